"""Open seats: invites, claims, leaving before the start, filling with bots.

An invite is a random code, one per open seat, shown once to the game's creator; the
store keeps only ``invite:<sha256(code)>`` -> ``<game id>|<seat>`` (written before the game
exists, so no game is ever without its invites). The code stays valid for its seat: a
claimer who leaves before the start frees the seat, and the same code claims it again.
The hashes are also in the game's meta (``GameMeta.invites``): archiving the game deletes
its invites (`InviteStore.forget`), so a claim of an ended game answers 409
``game-finished`` while it is hot and 404 ``unknown-invite`` once it is archived.

A claim is a match act (`ClaimSeat`) appended by the event store's act script together
with the claimer's token hash (`EventStore.append` with ``grants``). The script appends
only at the version the claim was decided on, so of concurrent claims of one seat,
whichever API process answers them, exactly one is appended; the others are decided
again on the new state and refused (409 ``seat-taken``).

Who the claimer is (issue 35): the invite code is a bearer secret that anyone it was passed
to holds, so a claim made with it alone may give the seat a display name, never an
identity. Only the game's API key, the backend, binds an ``external_id``: at creation, or
by claiming the seat with the key for one of its users (`claim_identity`). A seat the
creator bound keeps its identity whoever claims it (the fold sees to it:
``Match.bound``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from domain.engine import BotLevel
from domain.match import ClaimSeat, FillSeats, LeaveSeat
from service.lobby.errors import IdentityNeedsApiKey, SeatBound, UnknownInvite
from service.play.access import owns
from service.play.errors import Forbidden
from service.play.game_service import GameService
from service.play.records import Applied, Loaded, Submission, token_hash
from service.store.clients import AnyRedis
from service.store.keys import invite_key

INVITE_PREFIX = "/v1/invites/"


def _key(code: str) -> str:
    return invite_key(token_hash(code))


def new_codes(seats: int) -> list[str]:
    return [secrets.token_urlsafe(16) for _ in range(seats)]


class InviteStore:
    """The invites of open seats (``invite:<sha256(code)>``)."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def record(self, game_id: str, codes: dict[int, str]) -> list[str]:
        """Store the hashes of a game's invite codes (seat -> code); the hashes, for the
        game's meta."""
        if not codes:
            return []
        for seat, code in codes.items():
            await self.redis.set(_key(code), f"{game_id}|{seat}")
        return [token_hash(code) for code in codes.values()]

    async def forget(self, hashes: Sequence[str]) -> None:
        """Delete a game's invites by their hashes (one key each: on Redis Cluster they
        are in slots of their own, so one DEL apiece, pipelined)."""
        if not hashes:
            return
        pipe = self.redis.pipeline(transaction=False)
        for digest in hashes:
            pipe.delete(invite_key(digest))
        await pipe.execute()

    async def lookup(self, code: str) -> tuple[str, int]:
        """The game and seat of an invite code."""
        if not code or len(code) > 128:
            raise UnknownInvite
        raw = await self.redis.get(_key(code))
        if raw is None:
            raise UnknownInvite
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        game_id, _, seat = text.partition("|")
        return game_id, int(seat)


@dataclass(frozen=True)
class Claimed:
    game_id: str
    seat: int
    token: str
    applied: Applied


def claim_identity(loaded: Loaded, seat: int, asked: str | None, key_id: str | None) -> str | None:
    """The external_id a claim of ``seat`` may record: ``asked`` when the game's API key
    (``key_id``: the caller's key, None for the invite code alone) names it, else none.
    Refused without changing anything: 422 ``identity-needs-api-key`` for an invite code
    alone, 403 for another API key, 409 ``seat-bound`` for another identity than the one
    the creator bound the seat to."""
    if asked is None:
        return None
    if key_id is None:
        raise IdentityNeedsApiKey(
            "a claim with the invite code alone may set a name, not an external_id: only "
            "the game's API key binds one"
        )
    if not owns(loaded, key_id):
        raise Forbidden("only the API key that created the game may bind its seats' players")
    bound = loaded.match.bound.get(seat)
    if bound is not None and bound != asked:
        raise SeatBound(f"seat {seat} was created for another player: it keeps that identity")
    return asked


async def claim(
    games: GameService, game_id: str, seat: int, name: str | None, external_id: str | None
) -> Claimed:
    """Claim ``seat``: its new token (shown once) and the claim's answer. Refused with a
    DomainError (seat-taken, game-started, game-finished) without changing anything."""
    token = secrets.token_urlsafe(32)
    act = ClaimSeat(seat, name, external_id)
    applied = await games.act(Submission(game_id, act, grants={seat: token_hash(token)}))
    return Claimed(game_id, seat, token, applied)


async def leave(games: GameService, game_id: str, seat: int) -> Applied:
    """The claimer gives the seat back before the start; its token stops working."""
    return await games.act(Submission(game_id, LeaveSeat(seat), grants={seat: ""}))


async def fill(games: GameService, game_id: str, level: BotLevel) -> Applied:
    """Bots take every open seat; the game starts."""
    return await games.act(Submission(game_id, FillSeats(level)))
