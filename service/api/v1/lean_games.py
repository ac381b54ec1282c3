"""The view and act routes written lean on Litestar's public API (a prototype for issue 27).

The four requests of every turn (`GET /v1/games/{id}`, `POST .../moves`, `/commitments`,
`/reveals`) stay ordinary Litestar handlers, declared exactly as in `GamesController` (the
contract is unchanged, and every refusal of a malformed request is still Litestar's), with
two per-request costs taken out:

- **No dependency injection.** `GamesController` gets the process's objects as ``ctx``
  through a `Provide`: every request then builds a `State` copy for the provider, runs the
  provider's own signature model, makes a cleanup group and enters an exit stack. Here
  the handlers read them from the app's `State`, captured when the controller is made.
- **No `Response` object.** A handler returning `Response` has Litestar build one, run
  ``to_asgi_response`` (header dicts merged, the media type resolved, a serializer made
  from the app's type encoders, the body encoded with a one-off encoder), then an
  `ASGIResponse`. Here the body is encoded by one encoder made at import, and the handler
  returns the `ASGIResponse` itself; its 200 is declared with a `ResponseSpec`, so the
  OpenAPI document reads as before.

`service.app.create_app(..., lean=True)` serves these instead of the originals (with the
fast lane off); `bench/move_path.py --configs lane,lean` measures the two side by side.
"""

# No ``from __future__ import annotations``: the handlers take their originals' module name
# (`_as_declared`), so Litestar must find their annotations evaluated, not by name.
from collections.abc import Callable
from http import HTTPStatus
from typing import Annotated, Any

import msgspec
from litestar import Request, route
from litestar.datastructures import State
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Body, QueryParameter
from litestar.response.base import ASGIResponse
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send

from domain.match import Act
from service.api.v1 import games
from service.api.v1.games import (
    MAX_WAIT_SECONDS,
    Authorization,
    GameId,
    GamesController,
    IdempotencyKey,
    IfMatch,
    IfNoneMatch,
    PreferHeader,
)
from service.api.v1.schemas import Commit, GameView, Move, MoveAccepted, Reveal
from service.context import Context
from service.strictness import etag, not_modified

_ENCODER = msgspec.json.Encoder()  # made once: the answers hold builtins and Structs only


_JSON = (b"content-type", b"application/json")


class _Answer(ASGIResponse):
    """A 200 with a JSON body, as `ASGIResponse` sends it, without the header map it builds
    first (about as much work as the rest of the answer): the headers are encoded once."""

    __slots__ = ("_head",)

    def __init__(self, body: bytes, headers: dict[str, str]) -> None:  # no super(): see above
        self.status_code = HTTPStatus.OK
        self.body = body
        self._head = [
            *(
                (name.lower().encode("latin-1"), value.encode("latin-1"))
                for name, value in headers.items()
            ),
            _JSON,
            (b"content-length", str(len(body)).encode()),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": HTTPStatus.OK,
            "headers": self._head,
        }
        await send(start)
        end: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": self.body,
            "more_body": False,
        }
        await send(end)


def _json(value: Any, headers: dict[str, str]) -> ASGIResponse:
    return _Answer(_ENCODER.encode(value), headers)


def _as_declared(handler: HTTPRouteHandler, answer: type) -> Callable[[Any], HTTPRouteHandler]:
    """The original handler's declaration, with its 200 answer named explicitly (a handler
    returning `ASGIResponse` has no answer type for the OpenAPI document to read).

    The function also takes the original's qualified name: Litestar orders a controller's
    routes by it, and the OpenAPI document gives a shared schema the description of the
    first field that reaches it, so another order would change two descriptions in the
    contract. (Once these handlers replace the originals in `GamesController`, this goes.)
    """
    ok = ResponseSpec(answer, generate_examples=False, description=HTTPStatus.OK.description)
    original = handler.fn

    def declared(fn: Any) -> HTTPRouteHandler:
        fn.__module__, fn.__qualname__ = original.__module__, original.__qualname__
        return route(http_method=sorted(handler.http_methods), **options)(fn)

    options: dict[str, Any] = {
        "path": sorted(handler.paths),
        "operation_id": handler.operation_id,
        "summary": handler.summary,
        "description": handler.description,
        "status_code": handler.status_code,
        "opt": handler.opt,
        "responses": {HTTPStatus.OK: ok},
    }
    return declared


AfterVersion = Annotated[
    int,
    QueryParameter(
        ge=0, le=10**9, description="Long-poll: answer once the version exceeds this (with `wait`)"
    ),
]
Wait = Annotated[
    int,
    QueryParameter(
        ge=0,
        le=MAX_WAIT_SECONDS,
        description="Long-poll: seconds to wait at most for a version past "
        "`after_version` (0: answer at once)",
    ),
]


def lean_games_controller(state: State) -> type[GamesController]:
    """`GamesController` with its view and act routes lean; ``state`` is the app's own
    (``Litestar(state=...)``), whose ``ctx`` the lifespan sets before any request."""

    async def act(
        request: Request[Any, Any, Any],
        game_id: str,
        authorization: str | None,
        act_for: Callable[[int], Act],
        route: str,
        keys: tuple[str | None, str | None, str | None],
    ) -> ASGIResponse:
        idempotency_key, if_match, prefer = keys
        ctx: Context = state.ctx
        body = await request.body()  # read once already, for the body's decoding
        answer, headers = await games.act_answer_for(
            ctx, game_id, authorization, act_for, body, route, idempotency_key, if_match, prefer
        )
        return _json(answer, headers)

    class LeanGamesController(GamesController):
        @_as_declared(GamesController.get_game, GameView)
        async def get_game(
            self,
            game_id: GameId,
            authorization: Authorization = None,
            after_version: AfterVersion = 0,
            wait: Wait = 0,
            if_none_match: IfNoneMatch = None,
        ) -> ASGIResponse:
            ctx: Context = state.ctx
            if not wait and if_none_match is None:  # a plain read: the common case
                view, headers = await games.view_for(ctx, game_id, authorization)
                return _json(view, headers)
            loaded = await ctx.games.load(game_id)
            caller = await games._viewer(ctx, loaded, authorization)
            waits = wait and loaded.match.version <= after_version
            if waits and await ctx.live.wait_past(game_id, after_version, wait):
                loaded = await ctx.games.load(game_id)
            version = loaded.match.version
            if not_modified(if_none_match, version):
                cached = {"ETag": etag(version), "Vary": "Authorization"}
                return ASGIResponse(status_code=HTTPStatus.NOT_MODIFIED, headers=cached)
            view, headers = await games.view_answer(ctx, loaded, caller)
            return _json(view, headers)

        @_as_declared(GamesController.post_move, MoveAccepted)
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
            keys = (idempotency_key, if_match, prefer)
            return await act(request, game_id, authorization, games.move_act(data), "moves", keys)

        @_as_declared(GamesController.post_commitment, MoveAccepted)
        async def post_commitment(
            self,
            request: Request[Any, Any, Any],
            game_id: GameId,
            data: Annotated[Commit, Body()],
            authorization: Authorization = None,
            idempotency_key: IdempotencyKey = None,
            prefer: PreferHeader = None,
        ) -> ASGIResponse:
            act_for = games.commitment_act(data)
            keys = (idempotency_key, None, prefer)
            return await act(request, game_id, authorization, act_for, "commitments", keys)

        @_as_declared(GamesController.post_reveal, MoveAccepted)
        async def post_reveal(
            self,
            request: Request[Any, Any, Any],
            game_id: GameId,
            data: Annotated[Reveal, Body()],
            authorization: Authorization = None,
            idempotency_key: IdempotencyKey = None,
            prefer: PreferHeader = None,
        ) -> ASGIResponse:
            act_for = games.reveal_act(data, await request.body())
            keys = (idempotency_key, None, prefer)
            return await act(request, game_id, authorization, act_for, "reveals", keys)

    return LeanGamesController


__all__ = ["lean_games_controller"]
