"""The webhook worker's HTTP client: POSTs to receivers through the egress rules
(service/notify/egress.py), over connections kept alive per origin.

httpcore's HTTP/1.1 connections are used directly, with a small pool of this module's own:
httpx's pool looks at every connection for every request, which at a webhook worker's
concurrency cost more than the request itself (at 64 under way, 4.8 ms of CPU a request
against 0.56 ms at 4; bench/webhooks.py finds where a worker's time goes). The connections
run on asyncio's streams (service/notify/streams.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ssl
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass

import httpcore
import httpx

from service.notify.egress import PublicOnlyBackend, parse_target

# An idle kept-alive connection to a receiver is closed after this long.
KEEPALIVE_SECONDS = 30.0


class DeliveryClient:
    """POSTs to webhook receivers: public addresses only (`PublicOnlyBackend`), no
    redirects, no proxies, connections kept alive per origin (scheme, host, port).

    One serves a whole webhook worker. A delivery takes an idle connection to its URL's
    origin, or opens one (TLS verifies the certificate against the URL's host name); after
    an answer read to its end the connection waits for the origin's next delivery, up to
    `KEEPALIVE_SECONDS`; any other ending closes it. At most ``max_idle`` connections wait.
    A reused connection goes to the address checked when it was opened. A receiver may
    close an idle connection just as a delivery is sent on it: that delivery is sent again
    at once, on a new connection.
    """

    def __init__(
        self, allow_private: bool, max_idle: int = 64, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        """``ssl_context``: the certificates trusted (default: certifi's, as httpx has them)."""
        self._backend = PublicOnlyBackend(allow_private)
        self._ssl = ssl_context or httpx.create_ssl_context()
        self._max_idle = max_idle
        self._idle: dict[tuple[bytes, bytes, int], list[httpcore.AsyncHTTPConnection]] = {}
        self._idle_count = 0

    @contextlib.asynccontextmanager
    async def post(
        self, url: str, body: bytes, headers: dict[str, str]
    ) -> AsyncIterator[httpcore.Response]:
        """The answer to a POST of ``body`` to ``url``, its body not read yet (`read_head`
        reads a little). Raises httpcore's errors, and ``WebhookUrlInvalid``."""
        target = delivery_target(url)
        origin = target.origin
        request = httpcore.Request(
            b"POST",
            target.url,
            headers=[
                (b"Host", target.host),
                (b"User-Agent", b"stakeout-webhooks"),
                (b"Content-Length", str(len(body)).encode()),
                *((k.encode(), v.encode()) for k, v in headers.items()),
            ],
            content=body,
        )
        connection, reused = await self._take(origin)
        try:
            try:
                response = await connection.handle_async_request(request)
            except _STALE:
                if not reused:
                    raise
                await _close(connection)
                connection = self._new(origin)
                response = await connection.handle_async_request(request)
            try:
                yield response
            finally:
                await response.aclose()
        except BaseException:
            await _close(connection)
            raise
        if connection.is_idle() and self._idle_count < self._max_idle:
            self._idle.setdefault(_key(origin), []).append(connection)
            self._idle_count += 1
        else:
            await _close(connection)

    async def _take(self, origin: httpcore.Origin) -> tuple[httpcore.AsyncHTTPConnection, bool]:
        """An idle connection to ``origin`` (True), else a new one (False)."""
        key = _key(origin)
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            self._idle_count -= 1
            if not idle:
                del self._idle[key]
            if connection.is_idle() and not connection.has_expired():
                return connection, True
            await _close(connection)  # expired, or closed by the receiver
        return self._new(origin), False

    def _new(self, origin: httpcore.Origin) -> httpcore.AsyncHTTPConnection:
        return httpcore.AsyncHTTPConnection(
            origin,
            ssl_context=self._ssl if origin.scheme == b"https" else None,
            keepalive_expiry=KEEPALIVE_SECONDS,
            network_backend=self._backend,
        )

    async def close_expired(self) -> None:
        """Close the idle connections past their keep-alive (or closed by their receiver)."""
        for origin, idle in list(self._idle.items()):
            expired = [c for c in idle if c.has_expired()]
            if not expired:
                continue
            kept = [c for c in idle if c not in expired]
            self._idle_count -= len(expired)
            if kept:
                self._idle[origin] = kept
            else:
                del self._idle[origin]
            for connection in expired:
                await _close(connection)

    async def aclose(self) -> None:
        idle = [c for connections in self._idle.values() for c in connections]
        self._idle.clear()
        self._idle_count = 0
        for connection in idle:
            await _close(connection)

    async def __aenter__(self) -> DeliveryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# What a POST may fail with (besides its deadline): the network, the receiver's HTTP.
HTTP_ERRORS = (
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.TimeoutException,
    httpcore.UnsupportedProtocol,
)
# A kept-alive connection the receiver closed meanwhile fails with one of these.
_STALE = (httpcore.RemoteProtocolError, httpcore.ReadError, httpcore.WriteError)


async def _close(connection: httpcore.AsyncHTTPConnection) -> None:
    """Close; the closing goes on even if the task is cancelled meanwhile."""
    with contextlib.suppress(Exception):
        await asyncio.shield(connection.aclose())


@dataclass(frozen=True, slots=True)
class Target:
    """A webhook URL as a delivery uses it: its origin, the request URL, the Host header."""

    origin: httpcore.Origin
    url: httpcore.URL
    host: bytes

    @property
    def key(self) -> str:
        """The origin, as text (one webhook worker's share of attempts is per origin)."""
        return f"{self.origin.scheme!r}{self.origin.host!r}{self.origin.port}"


@functools.lru_cache(maxsize=4096)
def delivery_target(url: str) -> Target:
    """``url`` parsed once (a worker delivers to the same few URLs again and again).
    Raises ``WebhookUrlInvalid``."""
    parsed = parse_target(url)
    origin = httpcore.Origin(parsed.raw_scheme, parsed.raw_host, _port(parsed))
    request_url = httpcore.URL(
        scheme=parsed.raw_scheme, host=parsed.raw_host, port=origin.port, target=parsed.raw_path
    )
    return Target(origin, request_url, parsed.netloc)


def _key(origin: httpcore.Origin) -> tuple[bytes, bytes, int]:
    return origin.scheme, origin.host, origin.port


def _port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


async def read_head(response: httpcore.Response, limit: int) -> bytes:
    """The first ``limit`` bytes of an answer's body; the rest is never read (an answer cut
    short closes its connection)."""
    kept = b""
    stream = response.stream
    assert isinstance(stream, AsyncIterable)
    async for chunk in stream:
        kept += chunk
        if len(kept) >= limit:
            break
    return kept[:limit]
