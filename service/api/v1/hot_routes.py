"""The hot routes' happy path, answered around Litestar's router: a plain ASGI layer.

Every turn of a game is two requests: the caller's view (``GET /v1/games/{id}``) and an act
(``POST /v1/games/{id}/moves``, ``/commitments``, ``/reveals``). For those, Litestar's own
per-request work (routing, the keyword arguments and their signature model, the header
map, the exception middleware's send wrapper, the answer's conversion) is a fifth of the
API's CPU per act (bench/act_profile.py --profile). `HotRoutes` serves the requests of
those routes it is sure of itself, calling what the handlers call (`Answers.view_of`,
`Answers.act` with the same `ActRequest`, `json_answer`): one act path, written once.

What keeps the two one contract:

- **Only what it is sure of.** Anything else goes to Litestar unchanged, the body it read
  handed on as it came (`_replayed`): another path or method, a query string, a
  ``root_path``, ``If-None-Match``, a repeated or non-ASCII header the route reads, a
  ``Host`` outside a plain set of characters, a header that fails its declared pattern or
  length (service/api/v1/params.py, checked with the same patterns), a body that is not
  ``application/json``, is larger than ``STAKEOUT_MAX_BODY_BYTES`` or does not decode
  strictly into the handler's body type (`decode_body`, as `StrictRequest` decodes it).
  So every refusal of a malformed request is Litestar's.
- **One way to fail.** An error of the view or the act (unknown game, not your turn, a
  stale If-Match, Redis down) is answered by the app's exception handler
  (`problem_handler`), encoded as Litestar encodes a problem; never handed to Litestar,
  which would act twice.
- **The rate limit** is the app's own middleware object's `refusal`, asked before the act.
- **The same labels.** ``path_params`` and ``path_template`` are set as Litestar's router
  sets them, so the access log and the metrics name the route alike
  (service/http/observability.py sits outside, as does CORS).

``STAKEOUT_HOT_ROUTES=0`` leaves the layer out. tests/integration/test_hot_routes.py plays
the same requests with it on and off and compares the answers.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import Any

import msgspec
from litestar import Request
from litestar.enums import ScopeType
from litestar.exceptions import ValidationException
from litestar.response.base import ASGIResponse
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send

from service.api.v1.answers import expected_version, wants_representation
from service.api.v1.responses import json_answer
from service.http.problems import PROBLEM_MEDIA_TYPE, problem_handler
from service.http.ratelimit import RateLimitMiddleware
from service.http.requests import decode_body
from service.seats.act_kinds import ActRequest
from service.seats.answers import Answers
from service.views.schemas import Commit, Move, Reveal

# The routes, exactly as Litestar's router would match them (anything else is Litestar's).
_PATH = re.compile(r"/v1/games/([0-9a-f]{24})(?:/(moves|commitments|reveals))?")
# Litestar's route templates of those routes (its router's ``path_template``).
_VIEW_TEMPLATE = "/v1/games/{game_id}"
_TEMPLATES = {route: f"{_VIEW_TEMPLATE}/{route}" for route in ("moves", "commitments", "reveals")}
# Each act route's body type, as its handler declares it (service/api/v1/acts.py).
_BODY_TYPES: dict[str, Any] = {"moves": Move, "commitments": Commit, "reveals": Reveal}
# The declared constraints of the header parameters (service/api/v1/params.py).
_IDEMPOTENCY_KEY = re.compile("^[A-Za-z0-9_.:-]{1,128}$")
_IF_MATCH = re.compile('^"?[0-9]{1,9}"?$')
_PREFER_MAX = 256
# A Host of these characters only (a subset of what Litestar's router accepts).
_PLAIN_HOST = re.compile(rb"[0-9A-Za-z.:\[\]-]*")
# The headers a hot route reads; a request with one of them twice is Litestar's.
_READ = frozenset(
    (
        b"authorization",
        b"idempotency-key",
        b"if-match",
        b"prefer",
        b"content-type",
        b"content-length",
        b"host",
        b"if-none-match",
    )
)
_ENCODER = msgspec.json.Encoder()


class _Defer(Exception):
    """The request is Litestar's to answer."""


class HotRoutes:
    """Around Litestar's ASGI handler (``app.asgi_handler``), inside CORS and the access log."""

    def __init__(
        self, app: ASGIApp, max_body: int, rate_limit: RateLimitMiddleware | None = None
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.rate_limit = rate_limit
        self.served = 0  # requests answered here (the rest went to Litestar)

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A plain function handing back the chosen coroutine: no frame of its own on the
        # way to Litestar.
        if scope["type"] != ScopeType.HTTP or scope.get("query_string") or scope.get("root_path"):
            return self.app(scope, receive, send)
        found = _PATH.fullmatch(scope["path"])
        if found is None:
            return self.app(scope, receive, send)
        route = found.group(2)
        method = scope.get("method")
        if route is None and method == "GET":
            return self._view(scope, found.group(1), receive, send)
        if route is not None and method == "POST":
            return self._act(scope, found.group(1), route, receive, send)
        return self.app(scope, receive, send)

    async def _view(self, scope: Scope, game_id: str, receive: Receive, send: Send) -> None:
        try:
            headers = _headers(scope)
            if b"if-none-match" in headers:  # a conditional read
                raise _Defer
        except _Defer:
            await self.app(scope, receive, send)
            return
        self._routed(scope, game_id, _VIEW_TEMPLATE)
        try:
            await self._limit(scope)
            answers: Answers = scope["litestar_app"].state.answers
            answer = json_answer(*await answers.view_of(game_id, headers.get(b"authorization")))
        except Exception as exc:
            await _problem(scope, receive, send, exc)
            return
        await answer(scope, receive, send)

    async def _act(
        self, scope: Scope, game_id: str, route: str, receive: Receive, send: Send
    ) -> None:
        read: list[ReceiveMessage] = []
        try:
            headers = _headers(scope)
            idempotency_key = headers.get(b"idempotency-key")
            if idempotency_key is not None and not _IDEMPOTENCY_KEY.search(idempotency_key):
                raise _Defer
            if_match = headers.get(b"if-match") if route == "moves" else None
            if if_match is not None and not _IF_MATCH.search(if_match):
                raise _Defer
            prefer = headers.get(b"prefer")
            if prefer is not None and len(prefer) > _PREFER_MAX:
                raise _Defer
            media_type = headers.get(b"content-type", "").split(";", 1)[0].strip().lower()
            if media_type != "application/json":  # Litestar's 415, or its judgement
                raise _Defer
            length = headers.get(b"content-length")
            if length is not None and not (length.isdigit() and int(length) <= self.max_body):
                raise _Defer
            body = await self._body(receive, read)
            data = decode_body(body, _BODY_TYPES[route])
        except (_Defer, ValidationException):
            await self.app(scope, _replayed(read, receive), send)
            return
        self._routed(scope, game_id, _TEMPLATES[route])
        act = ActRequest(
            game_id,
            headers.get(b"authorization"),
            data,
            body,
            idempotency_key,
            expected_version(if_match),
            wants_representation(prefer),
        )
        try:
            await self._limit(scope)
            answers: Answers = scope["litestar_app"].state.answers
            answer = json_answer(*await answers.act(act))
        except Exception as exc:
            await _problem(scope, _replayed(read, receive), send, exc)
            return
        await answer(scope, receive, send)

    def _routed(self, scope: Scope, game_id: str, template: str) -> None:
        """The scope as Litestar's router leaves it, for the access log and the metrics."""
        self.served += 1
        scope["path_params"] = {"game_id": game_id}
        scope["path_template"] = template

    async def _limit(self, scope: Scope) -> None:
        if self.rate_limit is not None:
            refusal = await self.rate_limit.refusal(scope)
            if refusal is not None:
                raise refusal

    async def _body(self, receive: Receive, read: list[ReceiveMessage]) -> bytes:
        """The whole body (the messages kept in ``read``); `_Defer` past the size limit or
        when the client leaves."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            read.append(message)
            if message["type"] != "http.request":
                raise _Defer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                raise _Defer  # Litestar's 413
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _headers(scope: Scope) -> dict[bytes, str]:
    """The headers a hot route reads, by lower-case name; `_Defer` when one is repeated or
    not ASCII, or the Host is unusual."""
    found: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        if name not in _READ:
            continue
        if name in found or not value.isascii():
            raise _Defer
        if name == b"host" and _PLAIN_HOST.fullmatch(value) is None:
            raise _Defer
        found[name] = value.decode("ascii")
    return found


async def _problem(scope: Scope, receive: Receive, send: Send, exc: Exception) -> None:
    """``exc`` answered as the app's exception handler answers it (service/http/problems.py)."""
    request: Request[Any, Any, Any] = Request(scope, receive)
    response = problem_handler(request, exc)
    answer = ASGIResponse(
        body=_ENCODER.encode(response.content),
        status_code=response.status_code,
        headers=response.headers,
        media_type=PROBLEM_MEDIA_TYPE,
    )
    await answer(scope, receive, send)


def _replayed(read: list[ReceiveMessage], receive: Receive) -> Receive:
    """A receive that hands on the messages already read, then the rest as they come."""
    pending = list(read)

    async def replay() -> Any:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


__all__ = ["HotRoutes"]
