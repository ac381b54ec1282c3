"""The API's side of matchmaking: opening a ticket, and who may read or cancel one.

A ticket is read or cancelled with ``Authorization: Bearer`` and either its secret (its
holder: the player's app; once matched, the answer carries the seat token) or the API key
that made it (its backend: everything but the token, which the server cannot make without
the secret). Any other API key is told there is no such ticket: tickets are per API key.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass
from typing import Any

import msgspec

from domain import registry
from domain.engine import BotLevel
from domain.errors import InvalidOptions
from domain.match import Clock, SeatSpec
from service.matchmaking.errors import TicketMatched, UnknownTicket
from service.matchmaking.tickets import (
    DEFAULT_CLOCK,
    MatchTickets,
    Ticket,
    TicketCaps,
    TicketSpec,
    seat_token,
)
from service.play.access import ApiKeys, bearer
from service.play.errors import GameNotFound, Unauthorized
from service.play.records import token_hash
from service.players.rating_store import RatingStore
from service.players.ratings import MODEL, player_identity

_CHECK_ID = "0" * 24
NOT_A_CREDENTIAL = "the token is neither this ticket's secret nor an API key"
_CHECK_SEED = b"\x00" * 32


@dataclass(frozen=True)
class Asked:
    """What a ticket asks for, as the request gave it."""

    game: str
    options: Any
    seats: list[int]
    external_id: str
    name: str | None
    bots_after_seconds: int | None
    bot_level: BotLevel
    expires_in_seconds: int
    clock: Clock | None = None  # None: the default clock of matched games


@dataclass(frozen=True)
class Reader:
    """Who reads a ticket: its holder (``token``: the seat token once matched) or its key."""

    ticket: Ticket
    holder: bool
    secret: str | None = None

    @property
    def token(self) -> str | None:
        if self.holder and self.secret is not None and self.ticket.status == "matched":
            return seat_token(self.secret)
        return None


def normalized_options(game: str, options: Any, seats: list[int]) -> dict[str, Any]:
    """The options with defaults filled in, checked against every seat count asked for
    (422 ``invalid-options`` when a game of one of them could not be made)."""
    engine = registry.engine_for(game)
    if engine is None:
        raise GameNotFound(game)
    rules = engine.game
    outside = [n for n in seats if not rules.min_seats <= n <= rules.max_seats]
    if outside:
        raise InvalidOptions(
            f"{game} takes {rules.min_seats} to {rules.max_seats} seats, not {outside[0]}"
        )
    builtins = msgspec.to_builtins(options)
    for count in seats:
        created = engine.create(
            _CHECK_ID, builtins, [SeatSpec("bot", "random")] * count, _CHECK_SEED
        )
        filled: dict[str, Any] = created[0].options
    return filled


class TicketDesk:
    def __init__(
        self, tickets: MatchTickets, ratings: RatingStore, api_keys: ApiKeys, caps: TicketCaps
    ) -> None:
        self.tickets = tickets
        self.ratings = ratings
        self.api_keys = api_keys
        self.caps = caps

    async def open(self, owner: str, asked: Asked) -> tuple[Ticket, str]:
        """A new waiting ticket of ``owner`` and its secret (409 `ticket-limit` or
        `player-ticket-limit` beyond the caps)."""
        seats = sorted(set(asked.seats))
        if not seats:
            raise InvalidOptions("a ticket accepts at least one seat count")
        options = normalized_options(asked.game, asked.options, seats)
        rated = await self.ratings.rating(owner, asked.game, player_identity(asked.external_id))
        now = int(time.time() * 1000)
        spec = TicketSpec(
            game=asked.game,
            options=options,
            seats=seats,
            external_id=asked.external_id,
            name=asked.name,
            bots_after_ms=None
            if asked.bots_after_seconds is None
            else asked.bots_after_seconds * 1000,
            bot_level=asked.bot_level,
            created_ms=now,
            expires_ms=now + asked.expires_in_seconds * 1000,
            mu=rated[0].mu if rated is not None else MODEL.mu,
            clock=asked.clock or DEFAULT_CLOCK,
        )
        return await self.tickets.create(owner, spec, self.caps)

    async def reader(self, ticket_id: str, authorization: str | None) -> Reader:
        """Who is asking about the ticket: its holder or its API key; 401 or 404 else."""
        token = bearer(authorization)
        if token is None:
            raise Unauthorized("a ticket is read with its secret or its API key")
        owner = await self.tickets.owner_of(ticket_id)
        ticket = await self.tickets.get(owner, ticket_id) if owner is not None else None
        key_id = self.api_keys.identify(token)
        if ticket is not None and hmac.compare_digest(token_hash(token), ticket.secret_hash):
            reader = Reader(ticket, holder=True, secret=token)
        elif key_id is None:
            # One answer whether or not the ticket exists: a guessed secret must not tell
            # a real ticket id from an unknown one.
            raise Unauthorized(NOT_A_CREDENTIAL)
        elif ticket is None or key_id != ticket.owner:
            raise UnknownTicket
        else:
            reader = Reader(ticket, holder=False)
        # A cancelled ticket is gone (the DELETE's answer was the last word on it). Its hash
        # stays until it expires, so the matcher's seating still finds it not waiting.
        if reader.ticket.status == "cancelled":
            raise UnknownTicket
        return reader

    async def cancel(self, reader: Reader) -> Ticket:
        """Cancel a waiting ticket (or an expired one: it stays expired); the ticket as it is
        now, the last read of a cancelled one. 409 ``ticket-matched`` once it has its seat
        (matching or matched): the ticket stays readable, ``matched``."""
        ticket = reader.ticket
        said = await self.tickets.cancel(ticket, int(time.time() * 1000))
        if said in ("matching", "matched"):
            raise TicketMatched("too late to cancel: the ticket has its seat in a game")
        fresh = await self.tickets.get(ticket.owner, ticket.id)
        if fresh is None:
            raise UnknownTicket
        return fresh
