"""Stream tickets: open a live feed without an Authorization header (a browser's
EventSource cannot send one) and without putting a long-lived token into a URL.

A ticket is random, lives ``TICKET_SECONDS`` and works once: the store keeps
``ticket:<sha256(ticket)>`` -> who it stands for (a game's seat, an API key, or a spectator;
or an API key's account feed), with an expiry, and redeeming it is one ``GETDEL`` (atomic:
of two requests with one ticket, one gets the feed). Any API process redeems any ticket.
"""

from __future__ import annotations

import secrets
import time

import msgspec

from service.live.errors import InvalidTicket
from service.play.records import token_hash
from service.store.clients import AnyRedis
from service.store.keys import ticket_key

TICKET_SECONDS = 60
_UNKNOWN = "the stream ticket is unknown, used or expired"


class Grant(msgspec.Struct, frozen=True):
    """What a ticket opens: ``scope`` game (``game_id``, as ``seat`` or ``api_key_id`` or
    a spectator) or feed (``api_key_id``'s account feed)."""

    scope: str
    game_id: str | None = None
    seat: int | None = None
    api_key_id: str | None = None


def _key(ticket: str) -> str:
    return ticket_key(token_hash(ticket))


class TicketStore:
    """Stream tickets (``ticket:<sha256(ticket)>``)."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def issue(self, grant: Grant) -> tuple[str, int]:
        """A new ticket for ``grant`` and when it expires (epoch ms)."""
        ticket = secrets.token_urlsafe(24)
        await self.redis.set(_key(ticket), msgspec.json.encode(grant), ex=TICKET_SECONDS)
        return ticket, int(time.time() * 1000) + TICKET_SECONDS * 1000

    async def redeem(self, ticket: str) -> Grant:
        """The grant of ``ticket``, which stops working now."""
        if not ticket or len(ticket) > 128:
            raise InvalidTicket(_UNKNOWN)
        raw = await self.redis.getdel(_key(ticket))
        if raw is None:
            raise InvalidTicket(_UNKNOWN)
        return msgspec.json.decode(raw, type=Grant)
