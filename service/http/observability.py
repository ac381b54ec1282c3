"""Request ids, access lines and HTTP metrics: one ASGI wrapper around the whole app.

The wrapper sits outside Litestar's router (see `instrument`), so it also sees the requests
that match no route (404/405) and every problem response. It is on every request's path,
so it does as little there as it can:

- **A request id** in and out: the client's ``X-Request-ID`` when it is printable ASCII of
  at most 128 characters, else a new one (a per-process random prefix and a counter: no
  system call). Every log line of the request carries it (`LogFields`).
- **An access line and the metrics, recorded in a batch.** The request's end appends one
  `AccessLine` (a msgspec struct: built in C) and adds one to a count and a latency bucket
  held in plain dicts. The lines are written when `LINES_PER_WRITE` wait, and every
  `FLUSH_SECONDS` the rest are, with the counts and buckets added to the Prometheus metrics
  (`HTTP_REQUESTS`, `HTTP_LATENCY`) in one call per label set. Before, a request updated
  the metrics itself (a lock per value) and its line left in a write at the end of the
  event loop's turn; under uvicorn the line and the metrics were most of the wrapper's
  cost, and the wrapper about a third of a `/healthz` request's CPU
  (`bench/pipeline_server_cost.py`; docs/design-move-path.md, "The layers every request passes").

  What that costs: a scrape of another process, or of the metrics port, can miss up to
  `FLUSH_SECONDS` of requests (a scrape of this process's own `/metrics` flushes first);
  a process killed with SIGKILL loses at most that much of its access log (a normal exit
  flushes). Lines keep the time each request ended.
- When the JSON log stream is not the one `configure_logging` set up (a test's handler, an
  embedding app's logging), access lines go through `logging` at once, as any log line.
"""

from __future__ import annotations

import asyncio
import atexit
import bisect
import logging
import re
import time
from collections.abc import Awaitable
from typing import Any

import msgspec
from litestar import Litestar, Request, Response, get
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from prometheus_client.exposition import choose_encoder

from service.http.route_contract import problems
from service.store import unique_ids
from service.telemetry import logs
from service.telemetry.logs import LogFields, access_log, game_id_of, log_fields, now_iso
from service.telemetry.metrics import HTTP_LATENCY, HTTP_REQUESTS, QueueCollector, exposition

REQUEST_ID_HEADER = b"x-request-id"
MAX_REQUEST_ID = 128
UNMATCHED_ROUTE = "unmatched"  # 404/405 before routing: one label value, not the raw path
MAX_LOGGED_PATH = 256
FLUSH_SECONDS = 0.1
# Lines are written sooner when this many wait: a short list stays in the CPU's caches
# (measured: waiting for the timer, a few hundred lines a flush, cost more CPU a request).
LINES_PER_WRITE = 64
_CONVERTER = re.compile(r":[^}]*\}")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_STAKEOUT_LOGGER = logging.getLogger("stakeout")


def valid_request_id(value: str) -> bool:
    """Printable ASCII, 1 to 128 characters (anything else is replaced, not trusted)."""
    return 0 < len(value) <= MAX_REQUEST_ID and all(" " <= c <= "~" for c in value)


def _incoming_request_id(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == REQUEST_ID_HEADER:
            text = value.decode("latin-1")
            return text if valid_request_id(text) else None
    return None


_ROUTES: dict[str, str] = {}


def _route(scope: Scope) -> str:
    """The matched route template with converters dropped (``/v1/games/{game_id}``)."""
    template = scope.get("path_template")
    if not template:
        return UNMATCHED_ROUTE
    route = _ROUTES.get(template)
    if route is None:
        route = _ROUTES[template] = _CONVERTER.sub("}", template)
    return route


class AccessLine(msgspec.Struct, kw_only=True, omit_defaults=True, gc=False):
    """One access line, field for field what `service.telemetry.logs.JsonFormatter` writes for an
    access record (``game_id`` only when the route has one; ``level`` and ``logger`` have
    no default so that they are always written). Strings and numbers only, so the garbage
    collector need not track it (``gc=False``) while it waits to be written."""

    time: str
    level: str
    logger: str
    message: str
    request_id: str
    game_id: str | None = None
    method: str
    route: str
    path: str | None = None  # a request no route matched (404, 405): what it asked for
    status: int
    duration_ms: float


class Batch:
    """The access lines and HTTP metric tallies not yet written out."""

    def __init__(self) -> None:
        self.lines: list[AccessLine] = []
        self.counts: dict[tuple[str, str, int], int] = {}
        # By (method, route): [sum of seconds, then one count per bucket of HTTP_LATENCY].
        self.latencies: dict[tuple[str, str], list[float]] = {}
        self.bounds: list[float] = list(HTTP_LATENCY._upper_bounds)
        self.scheduled = False
        self.encoder = msgspec.json.Encoder()

    def record(
        self,
        request_id: str,
        scope: Scope,
        method: str,
        status: int,
        seconds: float,
        access: bool,
        metrics: bool,
    ) -> None:
        route = _route(scope)
        if metrics:
            self._count(method, route, status, seconds)
        if access and access_log.isEnabledFor(logging.INFO):
            self._log_access(request_id, scope, method, route, status, seconds)
        if not self.scheduled:
            self.scheduled = True
            try:
                asyncio.get_running_loop().call_later(FLUSH_SECONDS, self.flush)
            except RuntimeError:  # no event loop (not under an ASGI server): at once
                self.flush()

    def _count(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status)
        self.counts[key] = self.counts.get(key, 0) + 1
        latency = self.latencies.get((method, route))
        if latency is None:
            latency = self.latencies[(method, route)] = [0.0] * (len(self.bounds) + 1)
        latency[0] += seconds
        # The first bucket whose bound is at least ``seconds``, as Histogram.observe.
        latency[1 + bisect.bisect_left(self.bounds, seconds)] += 1

    def _log_access(
        self, request_id: str, scope: Scope, method: str, route: str, status: int, seconds: float
    ) -> None:
        duration_ms = round(seconds * 1_000_000) / 1000  # to the µs; round(x, 3) is slower
        # The metrics keep one label for every unmatched path; the log says which.
        path = str(scope.get("path", ""))[:MAX_LOGGED_PATH] if route == UNMATCHED_ROUTE else None
        if not self._fast():
            access_log.info(
                "%s %s %s",
                method,
                path or route,
                status,
                extra={
                    "method": method,
                    "route": route,
                    "path": path,
                    "status": status,
                    "duration_ms": duration_ms,
                },
            )
            return
        self.lines.append(
            AccessLine(
                time=now_iso(),
                level="INFO",
                logger="stakeout.access",
                message=f"{method} {path or route} {status}",
                request_id=request_id,
                game_id=game_id_of(scope),
                method=method,
                route=route,
                path=path,
                status=status,
                duration_ms=duration_ms,
            )
        )
        if len(self.lines) >= LINES_PER_WRITE:
            self.write_lines()

    @staticmethod
    def _fast() -> bool:
        """Whether access lines may be written straight to the JSON log stream."""
        return (
            logs.fast_handler() is not None
            and not _STAKEOUT_LOGGER.handlers
            and not access_log.handlers
        )

    def flush(self) -> None:
        """Write the lines, and add the tallies to the Prometheus metrics."""
        self.scheduled = False
        counts, self.counts = self.counts, {}
        latencies, self.latencies = self.latencies, {}
        for (method, route, status), count in counts.items():
            HTTP_REQUESTS.labels(method, route, str(status)).inc(count)
        for (method, route), latency in latencies.items():
            add_observations(HTTP_LATENCY.labels(method, route), latency[0], latency[1:])
        self.write_lines()

    def write_lines(self) -> None:
        lines, self.lines = self.lines, []
        handler = logs.fast_handler()
        if lines and handler is not None:
            data = self.encoder.encode_lines(lines)
            handler.acquire()
            try:
                stream = handler.stream
                stream.flush()  # what the logging module wrote first stays first
                # The bytes as msgspec made them, where the stream has a binary layer.
                binary = getattr(stream, "buffer", None)
                if binary is not None:
                    binary.write(data)
                    binary.flush()
                else:
                    stream.write(data.decode())
                    stream.flush()
            finally:
                handler.release()


def add_observations(child: Any, total: float, counts: list[float]) -> None:
    """Add observations to a labelled `Histogram` child in one go: their sum, and how many
    fell in each bucket (not cumulative). This is what ``observe`` does one observation at
    a time (prometheus_client 0.26: ``_sum`` and one value per bucket);
    tests/integration/test_observability.py compares the two."""
    child._sum.inc(total)
    for bucket, count in zip(child._buckets, counts, strict=True):
        if count:
            bucket.inc(count)


BATCH = Batch()
atexit.register(BATCH.flush)


class ObservabilityMiddleware:
    """Request id in and out, one access line, HTTP metrics; for every HTTP response."""

    def __init__(self, app: ASGIApp, access: bool = True, metrics: bool = True) -> None:
        # ``access`` and ``metrics`` off: for the benches that price each
        # (bench/pipeline_cost.py in-process, bench/pipeline_server_cost.py under uvicorn).
        self.app = app
        self.access = access
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await self.app(scope, receive, send)
            return
        request_id = _incoming_request_id(scope) or unique_ids.request_id()
        token = log_fields.set(LogFields(request_id, scope))
        header = (REQUEST_ID_HEADER, request_id.encode())
        status = 500  # if the app raises before answering, the server answers 500
        start = time.perf_counter()

        def send_with_id(message: Message) -> Awaitable[None]:
            # Hands back ``send``'s own coroutine: no extra frame for every message.
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [h for h in message.get("headers", ()) if h[0] != REQUEST_ID_HEADER]
                headers.append(header)
                message["headers"] = headers
            return send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            method = scope["method"] if scope["method"] in _METHODS else "OTHER"
            BATCH.record(
                request_id,
                scope,
                method,
                status,
                time.perf_counter() - start,
                self.access,
                self.metrics,
            )
            log_fields.reset(token)


@get("/metrics", include_in_schema=False, responses=problems(counted=False))
async def metrics(request: Request[Any, Any, Any]) -> Response[bytes]:
    """Prometheus exposition, this process's latest requests included (the batch is flushed
    first); rendered in a thread, as the Redis-read collector blocks."""
    BATCH.flush()
    collector: QueueCollector = request.app.state.queue_collector
    encode, content_type = choose_encoder(request.headers.get("accept", ""))
    body = await asyncio.to_thread(lambda: encode(exposition(collector)))
    # As the encoder names it (Litestar would append a second charset to a text/ type).
    return Response(body, media_type=content_type, headers={"content-type": content_type})


def instrument(app: Litestar, access: bool = True, metrics: bool = True) -> Litestar:
    """Wrap the whole ASGI handler (router and exception handling included).

    Litestar's ``middleware=`` runs only after a route matched, so it never sees a 404 for
    an unknown path; wrapping ``asgi_handler`` (what ``Litestar.__call__`` dispatches to)
    does, and leaves the app object, its state and its OpenAPI schema as they are.
    """
    app.asgi_handler = ObservabilityMiddleware(app.asgi_handler, access, metrics)
    return app


__all__ = [
    "BATCH",
    "FLUSH_SECONDS",
    "LINES_PER_WRITE",
    "MAX_REQUEST_ID",
    "UNMATCHED_ROUTE",
    "AccessLine",
    "ObservabilityMiddleware",
    "add_observations",
    "instrument",
    "metrics",
    "valid_request_id",
]
