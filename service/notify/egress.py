"""Where webhook deliveries may go: public addresses only (no SSRF into the deployment).

A webhook URL is chosen by an API client, and the worker that POSTs to it sits inside the
deployment, next to Redis, the cloud's metadata service and whatever else is private. So
deliveries reach only globally routable addresses, checked twice:

- at registration, for immediate feedback: an IP literal, or a name that resolves now, that
  is not public is refused (422 ``webhook-target-refused``);
- at connect time, in the delivery client's network backend: every name is resolved there
  and only public addresses are dialled. This is the check that counts: it also covers a
  name whose DNS answer changes after registration (rebinding), and TLS still verifies the
  certificate against the URL's host name.

Deliveries never follow redirects and ignore proxy settings from the environment.
``STAKEOUT_WEBHOOK_ALLOW_PRIVATE=1`` turns the rule off, for local development and tests
whose receivers listen on loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterable, AsyncIterator, Iterable
from ipaddress import IPv4Address, IPv6Address, IPv6Network, ip_address

import httpcore
import httpx

from service.notify.errors import WebhookUrlInvalid

IPAddress = IPv4Address | IPv6Address

# IPv6 prefixes that carry an IPv4 address in their low 32 bits (RFC 6052 NAT64).
_NAT64 = IPv6Network("64:ff9b::/96")
# IPv6 global unicast is 2000::/3 (RFC 4291); everything outside it is refused, whatever
# ``ipaddress`` thinks (Python 3.11 calls ::7f00:1, 64:ff9b:1::/48 and fec0::/10 global).
_GLOBAL_UNICAST = IPv6Network("2000::/3")
# ...minus the special-purpose blocks inside it (IANA IPv6 special-purpose registry).
_SPECIAL_V6 = tuple(
    IPv6Network(block)
    for block in (
        "2001::/23",  # IETF protocol assignments: Teredo, benchmarking, ORCHID, AMT, ...
        "2001:db8::/32",  # documentation
        "3fff::/20",  # documentation (RFC 9637)
        "2002::/16",  # 6to4: judged by the IPv4 address it embeds (below)
    )
)
# Registration waits this long for DNS at most; an unresolved name is left to connect time.
RESOLVE_SECONDS = 1.0
# An idle kept-alive connection to a receiver is closed after this long.
KEEPALIVE_SECONDS = 30.0


def is_public(ip: IPAddress) -> bool:
    """Globally routable unicast; an IPv6 address embedding an IPv4 one is judged by it.

    IPv6: an allow-list (2000::/3 minus its special blocks), not ``ipaddress``'s deny-list.
    The only embeddings honoured are IPv4-mapped, 6to4 and the well-known NAT64 prefix;
    the deprecated IPv4-compatible form (``::a.b.c.d``) and local-use NAT64 prefixes
    (64:ff9b:1::/48) are outside 2000::/3 and so refused.
    """
    if isinstance(ip, IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public(embedded)
        if ip.scope_id or ip not in _GLOBAL_UNICAST:
            return False
        if any(ip in block for block in _SPECIAL_V6):
            return False
    return ip.is_global and not ip.is_multicast


async def resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (an IP literal resolves to itself)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen = dict.fromkeys(ip_address(str(info[4][0]).split("%")[0]) for info in infos)
    return list(seen)


def _first_refused(addresses: Iterable[IPAddress]) -> IPAddress | None:
    return next((ip for ip in addresses if not is_public(ip)), None)


def parse_target(url: str) -> httpx.URL:
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise WebhookUrlInvalid(f"url is not a valid URL: {exc}") from None
    if not parsed.host:
        raise WebhookUrlInvalid("url has no host")
    return parsed


async def registration_refusal(url: str, allow_private: bool) -> str | None:
    """Why ``url`` may not be a webhook target, or None when it may (so far as DNS says now).

    Raises ``WebhookUrlInvalid`` for a URL that is not one.
    """
    parsed = parse_target(url)
    if allow_private:
        return None
    host = parsed.host
    try:
        literal: IPAddress | None = ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        return None if is_public(literal) else f"{host} is not a public address"
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        addresses = await asyncio.wait_for(resolve(host, port), RESOLVE_SECONDS)
    except (OSError, TimeoutError, UnicodeError):
        return None  # cannot tell now; the delivery client checks when it connects
    refused = _first_refused(addresses)
    return None if refused is None else f"{host} resolves to {refused}, not a public address"


class PublicOnlyBackend(httpcore.AsyncNetworkBackend):
    """Resolves every name itself and dials public addresses only."""

    def __init__(self, allow_private: bool) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._allow_private = allow_private

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await asyncio.wait_for(resolve(host, port), timeout)
        except (OSError, TimeoutError, UnicodeError) as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        allowed = [ip for ip in addresses if self._allow_private or is_public(ip)]
        if not allowed:
            raise httpcore.ConnectError(f"{host} resolves to no public address")
        failure: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for ip in allowed:
            try:
                return await self._inner.connect_tcp(
                    str(ip), port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("a webhook cannot target a unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


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

    httpcore's connections are used directly, with this small pool: httpx's pool looks at
    every connection for every request, which at a worker's concurrency costs more than the
    request itself (bench/webhooks.py).
    """

    def __init__(self, allow_private: bool, max_idle: int = 64) -> None:
        self._backend = PublicOnlyBackend(allow_private)
        self._ssl = httpx.create_ssl_context()
        self._max_idle = max_idle
        self._idle: dict[tuple[bytes, bytes, int], list[httpcore.AsyncHTTPConnection]] = {}
        self._idle_count = 0

    @contextlib.asynccontextmanager
    async def post(
        self, url: str, body: bytes, headers: dict[str, str]
    ) -> AsyncIterator[httpcore.Response]:
        """The answer to a POST of ``body`` to ``url``, its body not read yet (`read_head`
        reads a little). Raises httpcore's errors, and ``WebhookUrlInvalid``."""
        target = parse_target(url)
        origin = httpcore.Origin(target.raw_scheme, target.raw_host, _port(target))
        request = httpcore.Request(
            b"POST",
            httpcore.URL(
                scheme=target.raw_scheme,
                host=target.raw_host,
                port=origin.port,
                target=target.raw_path,
            ),
            headers=[
                (b"Host", target.netloc),
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
