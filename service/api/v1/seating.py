"""Controllers for open seats: invites (look, claim), leaving before the start, filling
the rest with bots (service/lobby/invites.py does the work)."""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get, post
from litestar.params import Body, PathParameter

from service.api.v1.params import Authorization, GameId, Injected
from service.http.route_contract import ANYONE, API_KEY, SEAT_TOKEN, problems
from service.live.tickets import Grant, TicketStore
from service.lobby import invites as open_seats
from service.lobby.invites import InviteStore
from service.lobby.rematch import Rematches
from service.play.access import Access, bearer, owns
from service.play.errors import Forbidden, Unauthorized
from service.play.game_service import GameService
from service.play.identities import check_external_id, check_name
from service.seats.act_kinds import ActRequest, Leaving
from service.seats.answers import Answers
from service.views.lobby_schemas import (
    ClaimedSeat,
    ClaimRequest,
    FillRequest,
    InviteInfo,
    RematchCreatedResponse,
    StreamTicket,
)
from service.views.presenter import seat_infos, status_of
from service.views.schemas import MoveAccepted

InviteCode = Annotated[
    str,
    PathParameter(
        description="The invite code an open seat's creator passed on",
        pattern="^[A-Za-z0-9_-]{8,128}$",
    ),
]

_BINDING = "a claim that binds an external_id needs the game's API key"


class InvitesController(Controller):
    path = "/v1/invites"
    tags = ["lobby"]

    @get(
        "/{code:str}",
        operation_id="getInvite",
        responses=problems(404),
        security=[ANYONE],
        summary="What an invite leads to",
        description="No authentication: the code is the secret. The game, the seat the "
        "invite claims, the seats (who sits where, which are still open) and the options.",
    )
    async def get_invite(
        self, invites: Injected[InviteStore], games: Injected[GameService], code: InviteCode
    ) -> InviteInfo:
        game_id, seat = await invites.lookup(code)
        loaded = await games.load(game_id)
        return InviteInfo(
            game_id=game_id,
            game=loaded.engine.game.name,
            seat=seat,
            status=status_of(loaded),
            seats=seat_infos(loaded),
            options=loaded.match.options,
        )

    @post(
        "/{code:str}",
        operation_id="claimInvite",
        responses=problems(401, 403, 404, 409, 413, 415, 422, 503),
        security=[ANYONE, API_KEY],
        summary="Claim the invite's seat",
        description="No authentication: the code is the secret. Claims the open seat once "
        "and returns its token (shown once); of concurrent claims exactly one wins, the "
        "others get 409 `seat-taken`. The game starts when its last open seat is claimed. "
        "409 `game-started` once the game has started, `game-finished` once it ended; 404 "
        "`unknown-invite` once it is archived (its invites end with it). "
        "Who sits there: the code alone may give the seat a `name`, never an identity; an "
        "`external_id` is bound only by the API key that created the game, claiming with it "
        "(`Authorization: Bearer <API key>`) for one of its users (422 "
        "`identity-needs-api-key` without it, 403 with another key). A seat created with an "
        "`external_id` keeps it whoever claims it (409 `seat-bound` for another one).",
        status_code=201,
    )
    async def claim_invite(
        self,
        invites: Injected[InviteStore],
        games: Injected[GameService],
        access: Injected[Access],
        code: InviteCode,
        data: Annotated[ClaimRequest, Body()],
        authorization: Authorization = None,
    ) -> ClaimedSeat:
        check_name(data.name)
        check_external_id(data.external_id)
        game_id, seat = await invites.lookup(code)
        external_id = None
        if data.external_id is not None:
            key_id = None if authorization is None else access.api_key(authorization, _BINDING)
            loaded = await games.snapshot(game_id)
            external_id = open_seats.claim_identity(loaded, seat, data.external_id, key_id)
        claimed = await open_seats.claim(games, game_id, seat, data.name, external_id)
        return ClaimedSeat(game_id=game_id, seat=seat, token=claimed.token)


class SeatingController(Controller):
    """Seats before the start: leave one, or fill the open ones with bots."""

    path = "/v1/games"
    tags = ["lobby"]

    @post(
        "/{game_id:str}/leave",
        operation_id="leaveSeat",
        responses=problems(401, 403, 404, 409, 503),
        security=[SEAT_TOKEN],
        summary="Give a claimed seat back before the game starts",
        description="The seat token of a seat claimed by invite, before the game starts: the "
        "seat is open again (`seat.left`), its invite works again and this token no longer "
        "does. 409 `game-started` after the start, `not-an-open-seat` for a seat that was "
        "not open at creation.",
        status_code=200,
    )
    async def leave(
        self, answers: Injected[Answers], game_id: GameId, authorization: Authorization = None
    ) -> MoveAccepted:
        answer, _ = await answers.act(ActRequest(game_id, authorization, Leaving()))
        return answer

    @post(
        "/{game_id:str}/fill",
        operation_id="fillSeats",
        responses=problems(401, 403, 404, 409, 413, 415, 503),
        security=[API_KEY],
        summary="Bots take every open seat; the game starts",
        description="The API key that created the game, while it waits for players: bots of "
        "`level` take every open seat (`seats.filled`) and the game starts (`game.started`).",
        status_code=200,
    )
    async def fill(
        self,
        answers: Injected[Answers],
        game_id: GameId,
        data: Annotated[FillRequest, Body()],
        authorization: Authorization = None,
    ) -> MoveAccepted:
        answer, _ = await answers.act(ActRequest(game_id, authorization, data))
        return answer

    @post(
        "/{game_id:str}/stream-tickets",
        operation_id="createStreamTicket",
        responses=problems(401, 403, 404),
        security=[SEAT_TOKEN, API_KEY, ANYONE],
        summary="A single-use ticket to open the game's live feed",
        description="With a seat token: a ticket for that seat's feed; with an API key or "
        "nothing: a spectator's (not for a private game). Pass it as "
        "`GET /v1/games/{id}/stream?ticket=...` (a browser's EventSource cannot send "
        "Authorization). It works once, for about 60 s.",
        status_code=201,
    )
    async def stream_ticket(
        self,
        games: Injected[GameService],
        access: Injected[Access],
        tickets: Injected[TicketStore],
        game_id: GameId,
        authorization: Authorization = None,
    ) -> StreamTicket:
        caller = await access.viewer(await games.snapshot(game_id), authorization)
        grant = Grant("game", game_id, caller.seat, caller.api_key_id)
        ticket, expires = await tickets.issue(grant)
        return StreamTicket(ticket=ticket, expires_at_ms=expires)

    @post(
        "/{game_id:str}/rematch",
        operation_id="rematchGame",
        responses=problems(401, 403, 404, 409, 503),
        security=[SEAT_TOKEN, API_KEY],
        summary="The next game of this table, once this one has ended",
        description="A seat token or the API key that created the game, after the game ended "
        "(finished, aborted or abandoned after its start). The first call creates the next "
        "game: same game, options and kinds of seat, the seats rotated by one (old seat i "
        "sits at new seat i+1, the last at seat 0); every later call answers the same game. "
        "A seat token's caller also gets its new seat and that seat's token (the same on "
        "every call); the API key gets the game id. The old game's view shows "
        "`rematch` and its log a `rematch.created` event. 409 `game-not-finished` before the "
        "end.",
        status_code=201,
    )
    async def rematch_game(
        self,
        games: Injected[GameService],
        access: Injected[Access],
        rematches: Injected[Rematches],
        game_id: GameId,
        authorization: Authorization = None,
    ) -> RematchCreatedResponse:
        if authorization is None:
            raise Unauthorized("a rematch needs a seat token or the game's API key")
        loaded = await games.snapshot(game_id)
        caller = await access.caller(loaded, authorization)
        if caller.seat is None and not owns(loaded, caller.api_key_id):
            raise Forbidden("only the game's seats and its creator may ask for a rematch")
        token = bearer(authorization) if caller.seat is not None else None
        made = await rematches.rematch(game_id, caller.seat, token)
        return RematchCreatedResponse(game_id=made.game_id, seat=made.seat, token=made.token)
