"""The fast lane: the two requests of every turn, served without Litestar's per-request work.

A client plays by reading its view (`GET /v1/games/{id}`) and posting an act (a move, a
commitment, a reveal). A profile of that loop in one process (`bench/act_profile.py
--profile`) put about a third of the API's CPU in Litestar's request machinery around the
handlers (routing aside): building the keyword arguments, the signature model, the
`Response` and its conversion to an ASGI answer, the middleware stack. For those four
operations, this layer calls the same functions the handlers call (`view_for`,
`act_answer_for` and the act builders in `service.api.v1.games`) and writes the answer
itself.

What keeps the two paths one contract:

- **Litestar routes.** The route, its handler and its path parameters come from Litestar's
  own router; a handler is in the lane when its ``opt`` names a lane (``view`` or ``act``).
- **Only requests the lane is sure of.** Anything else goes to Litestar untouched (a body
  already read is handed on as it came): a query string (long polls), ``If-None-Match``,
  an ``Origin`` (CORS), a repeated header, a parameter that fails its declared pattern or
  length (read from the handler's own signature, not restated), a body that is not JSON,
  is too large or does not decode strictly into the handler's body type. So every refusal
  of a malformed request is Litestar's.
- **One way to fail.** An error while serving (not your turn, unknown game, Redis down)
  is answered by the app's own exception handler (`service.play.errors.problem_handler`).
- **One answer.** The body is encoded by Litestar's serializer with the app's type
  encoders; `tests/integration/test_fast_lane.py` plays the same games through both paths
  and compares status, headers and bodies byte for byte.
- **The rate limit** is checked by the same middleware object, before the lane serves.

Request ids, the access log and the metrics wrap both paths (`service.http.observability`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from litestar import Litestar, Request
from litestar._asgi.utils import is_valid_host
from litestar.enums import ParamType, ScopeType
from litestar.exceptions import ValidationException
from litestar.handlers import HTTPRouteHandler
from litestar.params import ParameterKwarg
from litestar.routes import HTTPRoute
from litestar.serialization import encode_json, get_serializer
from litestar.types import (
    ASGIApp,
    HTTPRequestEvent,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    ReceiveMessage,
    Scope,
    Send,
)
from litestar.utils import normalize_path

from service.api.v1.answers import ActRequest, Answers, expected_version, wants_representation
from service.http.problems import problem_handler
from service.http.ratelimit import RateLimitMiddleware
from service.http.requests import decode_body
from service.http.strictness import is_json

# Headers that make a request Litestar's: CORS, and conditional reads.
_LITESTAR_ONLY = frozenset({b"origin", b"if-none-match"})
_JSON = (b"content-type", b"application/json")


@dataclass(frozen=True)
class _Param:
    """A declared header or path parameter: where it is, and its declared constraints."""

    argument: str  # the handler's argument name
    header: bytes | None  # the header's name, lower case (None: a path parameter)
    pattern: re.Pattern[str] | None
    max_length: int | None

    def valid(self, value: str) -> bool:
        if self.max_length is not None and len(value) > self.max_length:
            return False
        return self.pattern is None or self.pattern.search(value) is not None


@dataclass(frozen=True)
class _Lane:
    kind: str  # "view" or "act"
    route: str  # the act's route name ("moves", ...), for the Idempotency-Key fingerprint
    body_type: Any
    params: tuple[_Param, ...]
    headers: dict[bytes, _Param]  # the header parameters by lower-case name


def _lane(handler: HTTPRouteHandler) -> _Lane | None:
    name = handler.opt.get("lane")  # "view", or the act's route: "moves", ...
    if name is None:
        return None
    params = []
    for argument, field in handler.parsed_fn_signature.parameters.items():
        definition = field.kwarg_definition
        if not isinstance(definition, ParameterKwarg):
            continue
        if definition.param_type is ParamType.HEADER:
            header: bytes | None = (definition.name or argument).lower().encode()
        elif definition.param_type is ParamType.PATH:
            header = None
        else:  # a query parameter: any query string is declined before this is used
            continue
        pattern = re.compile(definition.pattern) if definition.pattern else None
        params.append(_Param(argument, header, pattern, definition.max_length))
    data = handler.parsed_data_field
    kind = "view" if name == "view" else "act"
    headers = {p.header: p for p in params if p.header is not None}
    body_type = None if data is None else data.annotation
    return _Lane(kind, str(name), body_type, tuple(params), headers)


class _Declined(Exception):
    """The request is Litestar's to answer."""


class FastLane:
    def __init__(
        self,
        app: Litestar,
        inner: ASGIApp,
        max_body: int,
        rate_limit: RateLimitMiddleware | None = None,
    ) -> None:
        self.app = app
        self.inner = inner
        self.max_body = max_body
        self.rate_limit = rate_limit
        self._lanes: dict[int, _Lane | None] = {}
        self._serializer = get_serializer(app.type_encoders)
        self.served = 0  # requests this lane answered (the rest went to Litestar)
        # Where the lane's routes start (``/v1/games/``): other paths are not routed twice.
        self._prefixes = tuple(
            {
                route.path_format.split("{", 1)[0]
                for route in app.routes
                if isinstance(route, HTTPRoute)
                for handler in route.route_handlers
                if handler.opt.get("lane")
            }
        )

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        lane = self._route(scope) if scope["type"] == ScopeType.HTTP else None
        if lane is None:
            return self.inner(scope, receive, send)  # no frame of the lane's own on the way
        return self._in_lane(scope, lane, receive, send)

    async def _in_lane(self, scope: Scope, lane: _Lane, receive: Receive, send: Send) -> None:
        try:
            values = self._headers(scope, lane)
            body, more = await self._read_body(receive) if lane.kind == "act" else (b"", False)
        except _Declined:
            await self.inner(scope, receive, send)
            return
        try:
            if more or len(body) > self.max_body:  # Litestar answers 413
                raise _Declined
            if lane.kind == "act" and not _json_body(values):
                raise _Declined
            data = decode_body(body, lane.body_type) if lane.body_type is not None else None
        except (_Declined, ValidationException):
            await self.inner(scope, _replay(body, more, receive), send)
            return
        await self._serve(scope, lane, values, data, body, receive, send)

    def _route(self, scope: Scope) -> _Lane | None:
        method = scope.get("method")
        if method not in ("GET", "POST") or scope.get("query_string"):
            return None
        if not scope["path"].startswith(self._prefixes):
            return None
        if scope.get("root_path"):
            return None
        try:
            _, handler, path, params, template = self.app.asgi_router.handle_routing(
                path=normalize_path(scope["path"]), method=method
            )
        except Exception:  # no route, no such method: Litestar's 404 and 405
            return None
        key = id(handler)
        if key not in self._lanes:
            self._lanes[key] = _lane(handler) if isinstance(handler, HTTPRouteHandler) else None
        lane = self._lanes[key]
        if lane is not None:
            scope["path"], scope["path_params"], scope["path_template"] = path, params, template
            scope["route_handler"] = handler
        return lane

    def _headers(self, scope: Scope, lane: _Lane) -> dict[str, Any]:
        """The lane's header values by argument name, plus ``content-type``; `_Declined`
        when anything about them is for Litestar to judge."""
        wanted = lane.headers
        values: dict[str, Any] = {p.argument: None for p in wanted.values()}
        seen: set[bytes] = set()
        for name, raw in scope["headers"]:
            if name in _LITESTAR_ONLY:
                raise _Declined
            if name == b"host" and not is_valid_host(raw):
                raise _Declined
            param = wanted.get(name)
            if param is None and name != b"content-type":
                continue
            if name in seen:
                raise _Declined
            seen.add(name)
            value = raw.decode("latin-1")
            if param is None:
                values["content-type"] = value
            elif not param.valid(value):
                raise _Declined
            else:
                values[param.argument] = value
        for param in lane.params:
            if param.header is None:
                path_value = scope["path_params"].get(param.argument)
                if not isinstance(path_value, str) or not param.valid(path_value):
                    raise _Declined
                values[param.argument] = path_value
        return values

    async def _read_body(self, receive: Receive) -> tuple[bytes, bool]:
        """The body, and whether more of it is left unread (past the size limit)."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                raise _Declined  # the client left: Litestar's usual path handles it
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            more = bool(message.get("more_body", False))
            if not more or size > self.max_body:
                return b"".join(chunks), more

    async def _serve(
        self,
        scope: Scope,
        lane: _Lane,
        values: dict[str, Any],
        data: Any,
        body: bytes,
        receive: Receive,
        send: Send,
    ) -> None:
        self.served += 1
        try:
            if self.rate_limit is not None:
                refusal = await self.rate_limit.refusal(scope)
                if refusal is not None:
                    raise refusal
            answer, headers = await self._answer(lane, values, data, body)
        except Exception as exc:  # answered as the app answers it: service/play/errors.py
            request: Request[Any, Any, Any] = Request(scope, _replay(body, False, receive))
            response = problem_handler(request, exc)
            await response.to_asgi_response(None, request)(scope, receive, send)
            return
        await _send_json(send, encode_json(answer, self._serializer), headers)

    async def _answer(
        self, lane: _Lane, values: dict[str, Any], data: Any, body: bytes
    ) -> tuple[Any, dict[str, str]]:
        """What the route's Litestar handler answers, from the same functions."""
        answers: Answers = self.app.state.wiring.answers
        if lane.kind == "view":
            return await answers.view_of(values["game_id"], values["authorization"])
        request = ActRequest(
            values["game_id"],
            values["authorization"],
            data,
            body,
            values.get("idempotency_key"),
            expected_version(values.get("if_match")),
            wants_representation(values.get("prefer")),
        )
        return await answers.act(request)


async def _send_json(send: Send, content: bytes, headers: dict[str, str]) -> None:
    """A 200 with a JSON body, as Litestar's Response writes it (one answer, two messages)."""
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": 200,
        "headers": [
            _JSON,
            (b"content-length", str(len(content)).encode()),
            *((name.lower().encode(), value.encode()) for name, value in headers.items()),
        ],
    }
    await send(start)
    end: HTTPResponseBodyEvent = {"type": "http.response.body", "body": content, "more_body": False}
    await send(end)


def _json_body(values: dict[str, Any]) -> bool:
    media_type = values.get("content-type")
    return media_type is not None and is_json(media_type.split(";", 1)[0])


def _replay(body: bytes, more: bool, receive: Receive) -> Receive:
    """A receive that hands on the body already read, then whatever is left of it."""
    sent = False

    async def replayed() -> ReceiveMessage:
        nonlocal sent
        if not sent:
            sent = True
            first: HTTPRequestEvent = {"type": "http.request", "body": body, "more_body": more}
            return first
        return await receive()

    return replayed


__all__ = ["FastLane"]
