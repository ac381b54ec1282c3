"""Matchmaking tickets: open one for a player, read it (with its secret: the seat token
once matched), cancel it. The matcher on the workers matches them (service/matchmaking/)."""

from __future__ import annotations

import time
from typing import Annotated

from litestar import Controller, delete, get, post
from litestar.params import Body, PathParameter

from service.api.v1.params import Authorization, Injected
from service.http.route_contract import API_KEY, TICKET_SECRET, problems
from service.matchmaking.ticket_desk import Asked, TicketDesk
from service.play.access import Access
from service.play.identities import check_external_id, check_name
from service.views.matchmaking_schemas import (
    CreateTicket,
    TicketCreated,
    TicketView,
    ticket_view,
)

TicketId = Annotated[
    str,
    PathParameter(description="The ticket id returned at creation", pattern="^[0-9a-f]{24}$"),
]


def _now_ms() -> int:
    return int(time.time() * 1000)


class MatchmakingController(Controller):
    path = "/v1/matchmaking/tickets"
    tags = ["matchmaking"]

    @post(
        "/",
        operation_id="createTicket",
        responses=problems(401, 409, 413, 415, 422, 503),
        security=[API_KEY],
        summary="Look for a game for a player",
        description=(
            "Needs an API key. The matcher on the workers seats compatible tickets (same "
            "game and options, a seat count all accept, ratings within a window that widens "
            "with waiting) at one new game of this key (within its quota of active games); "
            "after `bots_after_seconds` bots fill the seats nobody took. No connection needs "
            "to stay open: the ticket's next read says where it sits, and the key's account "
            "feed and webhooks get `match.found`. The answer's `secret` (shown once) reads "
            "the ticket with its seat token, and cancels it. A key has at most "
            "`STAKEOUT_MAX_WAITING_TICKETS` tickets waiting (409 `ticket-limit` beyond), a "
            "player at most `STAKEOUT_MAX_PLAYER_TICKETS` (409 `player-ticket-limit`)."
        ),
        status_code=201,
    )
    async def create_ticket(
        self,
        access: Injected[Access],
        ticket_desk: Injected[TicketDesk],
        data: Annotated[CreateTicket, Body()],
        authorization: Authorization = None,
    ) -> TicketCreated:
        owner = access.api_key(authorization, "matchmaking needs an API key")
        check_external_id(data.player.external_id, "player.external_id")
        check_name(data.player.name, "player.name")
        asked = Asked(
            game=str(type(data).__struct_config__.tag),
            options=data.options,
            seats=list(data.seats),
            external_id=data.player.external_id,
            name=data.player.name,
            bots_after_seconds=data.bots_after_seconds,
            bot_level=data.bot_level,
            expires_in_seconds=data.expires_in_seconds,
            clock=data.clock,
        )
        ticket, secret = await ticket_desk.open(owner, asked)
        return TicketCreated(**ticket_view(ticket, _now_ms(), None), secret=secret)

    @get(
        "/{ticket_id:str}",
        operation_id="getTicket",
        responses=problems(401, 404),
        security=[TICKET_SECRET, API_KEY],
        summary="A matchmaking ticket: waiting, or where it sits",
        description=(
            "With the ticket's secret (the player's app) or the API key that made it. Once "
            "matched, `match` names the game and the seat, and with the secret its seat "
            "token (the same on every read). A waiting ticket past `expires_ms` is expired."
        ),
    )
    async def get_ticket(
        self,
        ticket_desk: Injected[TicketDesk],
        ticket_id: TicketId,
        authorization: Authorization = None,
    ) -> TicketView:
        reader = await ticket_desk.reader(ticket_id, authorization)
        return TicketView(**ticket_view(reader.ticket, _now_ms(), reader.token))

    @delete(
        "/{ticket_id:str}",
        operation_id="cancelTicket",
        responses=problems(401, 404, 409),
        security=[TICKET_SECRET, API_KEY],
        summary="Stop looking",
        description=(
            "With the ticket's secret or its API key. A waiting ticket is cancelled, and "
            "gone: this answer (status `cancelled`) is its last read, a later GET or DELETE "
            "answers 404 `unknown-ticket`. An expired one stays expired. One that has its "
            "seat already is not cancelled: 409 `ticket-matched`, and it stays readable as "
            "`matched` (read it for its game). Either the ticket is matched or it is "
            "cancelled: never both, never a game with a cancelled ticket's seat."
        ),
        status_code=200,
    )
    async def cancel_ticket(
        self,
        ticket_desk: Injected[TicketDesk],
        ticket_id: TicketId,
        authorization: Authorization = None,
    ) -> TicketView:
        reader = await ticket_desk.reader(ticket_id, authorization)
        ticket = await ticket_desk.cancel(reader)
        return TicketView(**ticket_view(ticket, _now_ms(), None))
