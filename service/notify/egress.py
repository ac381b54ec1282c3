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
import socket
from collections.abc import Iterable
from ipaddress import IPv4Address, IPv6Address, IPv6Network, ip_address

import httpcore
import httpx

from service.notify import streams
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


# A developer trying webhooks on their own machine needs the setting that lifts the rule.
PRIVATE_HINT = (
    " (a server run for local development may allow private targets: "
    "STAKEOUT_WEBHOOK_ALLOW_PRIVATE=1)"
)


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
        return None if is_public(literal) else f"{host} is not a public address{PRIVATE_HINT}"
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        addresses = await asyncio.wait_for(resolve(host, port), RESOLVE_SECONDS)
    except (OSError, TimeoutError, UnicodeError):
        return None  # cannot tell now; the delivery client checks when it connects
    refused = _first_refused(addresses)
    if refused is None:
        return None
    return f"{host} resolves to {refused}, not a public address{PRIVATE_HINT}"


class PublicOnlyBackend(httpcore.AsyncNetworkBackend):
    """Resolves every name itself and dials public addresses only."""

    def __init__(self, allow_private: bool) -> None:
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
                return await streams.open_tcp(str(ip), port, timeout, socket_options)
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
        await asyncio.sleep(seconds)
