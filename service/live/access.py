"""Who opens a live feed: a stream ticket's holder (`service.live.tickets`), never a token in
the URL."""

from __future__ import annotations

from service.live.errors import InvalidTicket
from service.live.tickets import TicketStore
from service.play.access import Caller


async def ticket_caller(tickets: TicketStore, ticket: str, game_id: str) -> Caller:
    """The caller a game-feed ticket stands for (used up now)."""
    grant = await tickets.redeem(ticket)
    if grant.scope != "game" or grant.game_id != game_id:
        raise InvalidTicket("this stream ticket is for another feed")
    return Caller(seat=grant.seat, api_key_id=grant.api_key_id)


async def feed_ticket_owner(tickets: TicketStore, ticket: str) -> str:
    """The API key id an account-feed ticket stands for (used up now)."""
    grant = await tickets.redeem(ticket)
    if grant.scope != "feed" or grant.api_key_id is None:
        raise InvalidTicket("this stream ticket is for another feed")
    return grant.api_key_id
