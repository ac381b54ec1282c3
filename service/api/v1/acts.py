"""Controllers for acts: a seat's move, commitment or reveal; a seat resigns; the creator
aborts the game. A seat's act is one `ActRequest`, answered by `Answers.act`.

The acts are hot routes: they take `Answers` from the app's state, not by dependency
injection, and send their answer without a `Response` (service/api/v1/responses.py). The
requests of theirs (and of the view) that are sure to be valid are answered before Litestar's
router by service/api/v1/hot_routes.py, with the same `Answers.act` (``STAKEOUT_HOT_ROUTES``)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, post
from litestar.params import Body
from litestar.response.base import ASGIResponse

from service.api.v1.answers import answers_of, expected_version, wants_representation
from service.api.v1.hot_routes import hot
from service.api.v1.params import (
    Authorization,
    GameId,
    IdempotencyKey,
    IfMatch,
    Injected,
    PreferHeader,
)
from service.api.v1.responses import declared, json_answer
from service.http.route_contract import API_KEY, SEAT_TOKEN, problems
from service.seats.act_kinds import Abortion, ActRequest, Resignation
from service.seats.answers import Answers
from service.views.schemas import Commit, Move, MoveAccepted, Reveal


async def seat_act(  # noqa: PLR0913 - HTTP parameters and the answers
    answers: Answers,
    game_id: str,
    data: Move | Commit | Reveal,
    body: bytes,
    authorization: str | None = None,
    idempotency_key: str | None = None,
    if_match: str | None = None,
    prefer: str | None = None,
) -> ASGIResponse:
    """A seat's move, commitment or reveal, answered: what each act handler does, and what
    the hot-route layer calls for them (service/api/v1/hot_routes.py)."""
    act = ActRequest(
        game_id,
        authorization,
        data,
        body,
        idempotency_key,
        expected_version(if_match),
        wants_representation(prefer),
    )
    return json_answer(*await answers.act(act))


class ActsController(Controller):
    path = "/v1/games"
    tags = ["games"]

    @post(
        "/{game_id:str}/moves",
        operation_id="postMove",
        opt=hot(seat_act),
        responses=declared(MoveAccepted) | problems(401, 403, 404, 409, 412, 413, 415, 422, 503),
        security=[SEAT_TOKEN],
        summary="Make a public move",
        description=(
            "Body: one item of `legal`. Without If-Match the move is decided on the latest "
            "state; with it, a stale version answers 412."
        ),
        status_code=200,
    )
    async def post_move(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        data: Annotated[Move, Body(description="One item of the view's legal list")],
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
        if_match: IfMatch = None,
        prefer: PreferHeader = None,
    ) -> ASGIResponse:
        body = await request.body()
        return await seat_act(
            answers_of(request),
            game_id,
            data,
            body,
            authorization,
            idempotency_key,
            if_match,
            prefer,
        )

    @post(
        "/{game_id:str}/commitments",
        operation_id="postCommitment",
        opt=hot(seat_act),
        responses=declared(MoveAccepted) | problems(401, 403, 404, 409, 413, 415, 422, 503),
        security=[SEAT_TOKEN],
        summary="Commit to a sealed move",
        description=(
            "commitment = hex(SHA-256(UTF-8 'sealed-v1|{game_id}|{step}|{seat}|{move}|{salt}')),"
            " move as JSON with sorted keys and no spaces. Commitments of different seats "
            "never conflict."
        ),
        status_code=200,
    )
    async def post_commitment(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        data: Annotated[Commit, Body()],
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
        prefer: PreferHeader = None,
    ) -> ASGIResponse:
        body = await request.body()
        return await seat_act(
            answers_of(request), game_id, data, body, authorization, idempotency_key, prefer=prefer
        )

    @post(
        "/{game_id:str}/reveals",
        operation_id="postReveal",
        opt=hot(seat_act),
        responses=declared(MoveAccepted) | problems(401, 403, 404, 409, 413, 415, 422, 503),
        security=[SEAT_TOKEN],
        summary="Reveal a sealed move",
        description="Opens once every seat of the step has committed; must hash to the commitment.",
        status_code=200,
    )
    async def post_reveal(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        data: Annotated[Reveal, Body()],
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
        prefer: PreferHeader = None,
    ) -> ASGIResponse:
        body = await request.body()
        return await seat_act(
            answers_of(request), game_id, data, body, authorization, idempotency_key, prefer=prefer
        )


class GameEndingsController(Controller):
    """Leaving a game: a seat resigns, or the creator aborts the game."""

    path = "/v1/games"
    tags = ["games"]

    @post(
        "/{game_id:str}/resign",
        operation_id="resignSeat",
        responses=problems(401, 403, 404, 409, 422, 503),
        security=[SEAT_TOKEN],
        summary="Resign the caller's seat: a bot plays it from now on",
        description=(
            "Seat token. A bot (level random, as when a turn deadline passes) plays the seat "
            "from now on: the view shows the seat as `resigned`, the event log has "
            "`seat.resigned`. In a sealed step the seat's unrevealed choice is forfeited "
            "(`seal.forfeited`) and a bot's choice stands in. The token still reads the "
            "seat's view; it may no longer act (403)."
        ),
        status_code=200,
    )
    async def resign(
        self,
        answers: Injected[Answers],
        game_id: GameId,
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
    ) -> MoveAccepted:
        act = ActRequest(game_id, authorization, Resignation(), idempotency_key=idempotency_key)
        answer, _ = await answers.act(act)
        return answer

    @post(
        "/{game_id:str}/abort",
        operation_id="abortGame",
        responses=problems(401, 403, 404, 409, 422, 503),
        security=[API_KEY],
        summary="Abort an unfinished game (its creator only)",
        description=(
            "The API key that created the game. The game ends here without a result: status "
            "`aborted`, a `game.aborted` event, no more moves; live feeds end and webhooks "
            "get `game.finished` with `status: aborted`. The replay (with the seed) opens. "
            "409 `game-finished` when the game is already over or aborted."
        ),
        status_code=200,
    )
    async def abort(
        self,
        answers: Injected[Answers],
        game_id: GameId,
        authorization: Authorization = None,
        idempotency_key: IdempotencyKey = None,
    ) -> MoveAccepted:
        act = ActRequest(game_id, authorization, Abortion(), idempotency_key=idempotency_key)
        answer, _ = await answers.act(act)
        return answer
