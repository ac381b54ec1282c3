"""The hot routes' happy path, answered around Litestar's router: a plain ASGI layer.

Every turn of a game is two requests: the caller's view (``GET /v1/games/{id}``) and an act
(``POST /v1/games/{id}/moves``, ``/commitments``, ``/reveals``). For those, Litestar's own
per-request work (routing, the keyword arguments and their signature model, the header
map, the exception middleware's send wrapper, the answer's conversion) is a fifth of the
API's CPU per act (bench/act_profile.py --profile). `HotRoutes` serves the requests of
those routes it is sure of itself, calling the function the handler calls: one path,
written once.

A hot route is marked on its handler, ``opt=hot(entry)``: ``entry(answers, ...)`` answers
it, taking the handler's own parameters by name (``body``: the raw bytes, as sent). At
start-up the layer builds its table from the app's route map and those marks, reading
everything else from the handler: the path and its template, the declared pattern of each
path parameter, each header parameter's name, pattern and length, the body's type, and
whether the rate limit counts the route (service/http/route_contract.py). Nothing is
written twice, so a rule tightened on the handler is tightened here too; a constraint the
layer cannot check stops the start-up.

What keeps the two one contract:

- **Only what it is sure of.** Anything else goes to Litestar unchanged, the body it read
  handed on as it came (`_replayed`): another path or method, a query string, a
  ``root_path``, a header the handler declares that ``entry`` does not take
  (``If-None-Match`` on the view), a repeated or non-ASCII header the route reads, a
  ``Host`` outside a plain set of characters, a header that fails its declared pattern or
  length, a body that is not ``application/json``, is larger than
  ``STAKEOUT_MAX_BODY_BYTES`` or does not decode strictly into the handler's body type
  (`decode_body`, as `StrictRequest` decodes it). So every refusal of a malformed request
  is Litestar's.
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

import inspect
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Request
from litestar.enums import ParamType, ScopeType
from litestar.exceptions import ValidationException
from litestar.handlers import HTTPRouteHandler
from litestar.params import BodyKwarg, ParameterKwarg
from litestar.response.base import ASGIResponse
from litestar.routes import BaseRoute
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send

from service.http.problems import PROBLEM_MEDIA_TYPE, problem_handler
from service.http.ratelimit import RateLimitMiddleware
from service.http.requests import decode_body
from service.http.route_contract import counted

# The handler's ``opt`` key of its hot entry.
HOT = "hot"
# A Host of these characters only (a subset of what Litestar's router accepts).
_PLAIN_HOST = re.compile(rb"[0-9A-Za-z.:\[\]-]*")
# The headers a route with a body reads besides its declared ones.
_BODY_HEADERS = (b"content-type", b"content-length")
# The handler parameters that are no request parameter (Litestar's own).
_FRAMEWORK = frozenset(("self", "request", "scope"))
# The constraints of a parameter the layer checks itself; any other stops the start-up.
_CHECKED = frozenset(("pattern", "max_length", "min_length"))
_CONSTRAINTS = (
    *_CHECKED,
    *("gt", "ge", "lt", "le", "multiple_of", "min_items", "max_items", "const", "enum"),
    *("lower_case", "upper_case"),
)
_ENCODER = msgspec.json.Encoder()

Entry = Callable[..., Awaitable[ASGIResponse]]


def hot(entry: Entry) -> dict[str, Any]:
    """The ``opt`` of a hot route's handler: ``entry(answers, **its parameters)`` answers
    the route's plain requests, and the handler calls it too."""
    return {HOT: entry}


class _Defer(Exception):
    """The request is Litestar's to answer."""


@dataclass(frozen=True, slots=True)
class _Header:
    """A header parameter the handler declares: its parameter name, its declared limits, and
    whether the entry takes it (if not, a request that sends it is Litestar's)."""

    param: str
    pattern: re.Pattern[str] | None
    min_length: int | None
    max_length: int | None
    taken: bool


@dataclass(frozen=True, slots=True)
class _Route:
    """One hot route, as its handler declares it."""

    template: str  # Litestar's ``path_template``
    path_params: tuple[str, ...]  # their names, in the path's order
    headers: dict[bytes, _Header]  # by lower-case name; the Host too (no parameter)
    body_type: Any  # the ``data`` parameter's type, or None without a body
    entry: Entry
    counted: bool


class HotRoutes:
    """Around Litestar's ASGI handler (``app.asgi_handler``), inside CORS and the access log;
    ``routes``: the app's route map (``app.routes``), read once."""

    def __init__(
        self,
        app: ASGIApp,
        max_body: int,
        rate_limit: RateLimitMiddleware | None = None,
        *,
        routes: Iterable[BaseRoute],
    ) -> None:
        self.app = app
        self.max_body = max_body
        self.rate_limit = rate_limit
        self.served = 0  # requests answered here (the rest went to Litestar)
        self._path, self._routes = _table(routes)

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A plain function handing back the chosen coroutine: no frame of its own on the
        # way to Litestar.
        if scope["type"] != ScopeType.HTTP or scope.get("query_string") or scope.get("root_path"):
            return self.app(scope, receive, send)
        found = self._path.fullmatch(scope["path"])
        if found is None:
            return self.app(scope, receive, send)
        first, by_method = self._routes[found.lastindex or 0]
        route = by_method.get(scope.get("method", ""))
        if route is None:
            return self.app(scope, receive, send)
        values = found.groups()[first : first + len(route.path_params)]  # patterns: checked
        return self._serve(scope, route, values, receive, send)

    async def _serve(
        self, scope: Scope, route: _Route, values: tuple[str, ...], receive: Receive, send: Send
    ) -> None:
        read: list[ReceiveMessage] = []
        try:
            arguments: dict[str, Any] = dict(zip(route.path_params, values, strict=True))
            headers = _headers(scope, route.headers)
            for name, value in headers.items():
                header = route.headers.get(name)
                if header is None:  # the body's
                    continue
                # The handler's declared limits, checked as its signature model checks them.
                if not header.taken or (
                    header.pattern is not None and header.pattern.search(value) is None
                ):
                    raise _Defer
                if header.max_length is not None and len(value) > header.max_length:
                    raise _Defer
                if header.min_length is not None and len(value) < header.min_length:
                    raise _Defer
                arguments[header.param] = value
            if route.body_type is not None:
                body = await self._body(headers, receive, read)
                arguments["data"] = decode_body(body, route.body_type)
                arguments["body"] = body
        except (_Defer, ValidationException):
            await self.app(scope, _replayed(read, receive) if read else receive, send)
            return
        self.served += 1
        # The scope as Litestar's router leaves it, for the access log and the metrics.
        scope["path_params"] = dict(zip(route.path_params, values, strict=True))
        scope["path_template"] = route.template
        try:
            if route.counted:
                await self._limit(scope)
            answer = await route.entry(scope["litestar_app"].state.answers, **arguments)
        except Exception as exc:
            await _problem(scope, _replayed(read, receive), send, exc)
            return
        await answer(scope, receive, send)

    async def _limit(self, scope: Scope) -> None:
        if self.rate_limit is not None:
            refusal = await self.rate_limit.refusal(scope)
            if refusal is not None:
                raise refusal

    async def _body(
        self, headers: dict[bytes, str], receive: Receive, read: list[ReceiveMessage]
    ) -> bytes:
        """The whole JSON body (the messages kept in ``read``); `_Defer` when it is not JSON
        (Litestar's 415, or its judgement), past the size limit (its 413), or when the
        client leaves."""
        media_type = headers.get(b"content-type", "").split(";", 1)[0].strip().lower()
        if media_type != "application/json":
            raise _Defer
        length = headers.get(b"content-length")
        if length is not None and not (length.isdigit() and int(length) <= self.max_body):
            raise _Defer
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
                raise _Defer
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _headers(scope: Scope, declared: dict[bytes, _Header]) -> dict[bytes, str]:
    """The headers the route reads (its declared ones and its body's) by lower-case name;
    `_Defer` when one of those or the Host is repeated or not ASCII, or the Host is unusual."""
    found: dict[bytes, str] = {}
    for name, value in scope["headers"]:
        if name == b"host":
            if _PLAIN_HOST.fullmatch(value) is None:
                raise _Defer
        elif name not in declared and name not in _BODY_HEADERS:
            continue
        if name in found or not value.isascii():
            raise _Defer
        found[name] = value.decode("ascii")
    return found


def _table(routes: Iterable[BaseRoute]) -> tuple[re.Pattern[str], dict[int, Any]]:
    """One pattern matching every hot route's path, each path an alternative of its own
    group, and by that group's number: the index of its first path parameter's group and
    its routes by method."""
    routes = list(routes)
    shapes: dict[str, tuple[str, list[str], dict[str, _Route]]] = {}
    for route in routes:
        for handler in getattr(route, "route_handlers", ()):
            entry = handler.opt.get(HOT) if isinstance(handler, HTTPRouteHandler) else None
            if entry is None:
                continue
            pattern, names = _path_pattern(route)
            _, _, by_method = shapes.setdefault(route.path_format, (pattern, names, {}))
            for method in handler.http_methods:
                by_method[method] = _route(route.path_format, names, handler, entry)
    alternatives: list[str] = []
    table: dict[int, Any] = {}
    group = 0
    for pattern, names, by_method in shapes.values():
        group += 1
        table[group] = (group, by_method)  # groups() is 0-based: its params start here
        alternatives.append(f"({pattern})")
        group += len(names)
    path = re.compile("|".join(alternatives) or "(?!)")
    # Litestar's router prefers a literal path over a parameter: the layer must never take
    # one of those for a hot route.
    for route in routes:
        if not route.path_parameters and path.fullmatch(route.path):
            raise ValueError(f"{route.path} is a literal path of the shape of a hot route")
    return path, table


def _path_pattern(route: BaseRoute) -> tuple[str, list[str]]:
    """The route's path as a pattern, each path parameter a group holding its handler's
    declared pattern (`_segment`), and the parameters' names."""
    declared = _declared_path_patterns(route)
    parts: list[str] = []
    names: list[str] = []
    for component in route.path_components:
        if isinstance(component, str):
            parts.append(re.escape(component))
            continue
        if component.type is not str:
            raise ValueError(f"{route.path}: a hot route's path parameters are strings")
        parts.append(f"({_segment(route.path, declared.get(component.name))})")
        names.append(component.name)
    return "/" + "/".join(parts), names


# A declared pattern the path's own can hold: anchored, of literal characters, classes and
# counts only, so it never matches a "/" (nor reaches past its segment).
_SEGMENT = re.compile(r"\^([A-Za-z0-9_\[\]{},*+?-]+)\$")


def _segment(path: str, pattern: str | None) -> str:
    if pattern is None:
        return "[^/]+"
    found = _SEGMENT.fullmatch(pattern)
    if found is None:
        raise ValueError(f"{path}: the layer cannot hold the path pattern {pattern!r}")
    return found.group(1)


def _declared_path_patterns(route: BaseRoute) -> dict[str, str | None]:
    """The patterns the route's handlers declare on its path parameters (one each)."""
    found: dict[str, set[str | None]] = {}
    for handler in getattr(route, "route_handlers", ()):
        for name, field in handler.parsed_fn_signature.parameters.items():
            kwarg = field.kwarg_definition
            if isinstance(kwarg, ParameterKwarg) and kwarg.param_type is ParamType.PATH:
                found.setdefault(name, set()).add(kwarg.pattern)
    if any(len(patterns) > 1 for patterns in found.values()):
        raise ValueError(f"{route.path}: its handlers declare its parameters differently")
    return {name: patterns.pop() for name, patterns in found.items()}


def _route(template: str, names: list[str], handler: HTTPRouteHandler, entry: Entry) -> _Route:
    """A hot route from its handler's signature; `ValueError` for what the layer cannot
    check as Litestar would, or what ``entry`` does not take."""
    takes = set(inspect.signature(entry).parameters)
    where = f"{handler.handler_name} (hot)"
    headers: dict[bytes, _Header] = {}
    body_type: Any = None
    for name, field in handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        if name in _FRAMEWORK:
            continue
        if isinstance(kwarg, BodyKwarg) or name == "data":
            if "data" not in takes or "body" not in takes:
                raise ValueError(f"{where}: the entry takes data and body")
            body_type = field.annotation
            continue
        if not isinstance(kwarg, ParameterKwarg):
            raise ValueError(f"{where}: {name} is no request parameter")
        if kwarg.param_type is ParamType.QUERY:  # Litestar's: the layer takes no query string
            continue
        if not _limits(kwarg) <= _CHECKED:
            raise ValueError(f"{where}: {name} has limits the layer does not check")
        if kwarg.param_type is ParamType.PATH:  # its pattern is in the path's (`_segment`)
            if _limits(kwarg) - {"pattern"}:
                raise ValueError(f"{where}: {name} has limits the layer does not check")
            continue
        pattern = re.compile(kwarg.pattern) if kwarg.pattern else None
        if kwarg.param_type is ParamType.HEADER:
            header_name = (kwarg.name or name).lower().encode("ascii")
            headers[header_name] = _Header(
                name, pattern, kwarg.min_length, kwarg.max_length, name in takes
            )
        else:
            raise ValueError(f"{where}: {name} is neither path, header nor query")
    if not set(names) <= takes:
        raise ValueError(f"{where}: the entry takes every path parameter")
    return _Route(
        template,
        tuple(names),
        headers,
        body_type,
        entry,
        counted(handler),
    )


def _limits(kwarg: ParameterKwarg) -> set[str]:
    """The constraints a parameter declares (pattern, lengths, bounds...)."""
    return {key for key in _CONSTRAINTS if getattr(kwarg, key, None) is not None}


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
