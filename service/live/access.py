"""Who opens a live feed: a stream ticket's holder (`service.live.tickets`), never a token in
the URL."""

from __future__ import annotations

from service.live import tickets
from service.play.auth import Caller
from service.play.errors import ServiceError
from service.wiring import Context


class TokenInUrl(ServiceError):
    code = "token-in-url"


class InvalidTicketProblem(ServiceError):
    code = "invalid-ticket"


async def ticket_caller(ctx: Context, ticket: str, game_id: str) -> Caller:
    """The caller a game-feed ticket stands for (used up now)."""
    try:
        grant = await ctx.tickets.redeem(ticket)
    except tickets.InvalidTicket:
        raise InvalidTicketProblem("the stream ticket is unknown, used or expired") from None
    if grant.scope != "game" or grant.game_id != game_id:
        raise InvalidTicketProblem("this stream ticket is for another feed")
    return Caller(seat=grant.seat, api_key_id=grant.api_key_id)


async def feed_ticket_owner(ctx: Context, ticket: str) -> str:
    """The API key id an account-feed ticket stands for (used up now)."""
    try:
        grant = await ctx.tickets.redeem(ticket)
    except tickets.InvalidTicket:
        raise InvalidTicketProblem("the stream ticket is unknown, used or expired") from None
    if grant.scope != "feed" or grant.api_key_id is None:
        raise InvalidTicketProblem("this stream ticket is for another feed")
    return grant.api_key_id
