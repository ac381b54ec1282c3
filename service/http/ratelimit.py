"""Rate limits: a token bucket per verified credential (else per client address), shared by
every API process, that never refuses an act the game is waiting for.

Whose budget a request spends:

- a valid API key: that key's (``key:<id>``);
- a seat token, on a path of the game it belongs to: that seat's (``seat:<game>:<seat>``);
- anything else, a made-up or foreign bearer included: the client's address. A bearer the
  server cannot verify is not a credential, so sending a new made-up one on each request
  buys nothing.

The client's address is the connection's peer, unless the peer is a trusted proxy
(``STAKEOUT_TRUSTED_PROXIES``, CIDRs): then ``X-Forwarded-For`` is read from the right,
skipping trusted hops, and the first untrusted address is the client. Nobody else's
``X-Forwarded-For`` is believed (uvicorn's own proxy-header handling is off, see
stakeout/cli.py), so a client cannot pick its own bucket, and behind an ingress every
client still has its own.

Each bucket holds ``STAKEOUT_RATE_LIMIT_BURST`` tokens and refills at
``STAKEOUT_RATE_LIMIT_PER_MINUTE``; a request takes one. A client that polls in bursts gets
them, a client that never pauses settles at the refill rate. The bucket is one Lua script
on the queue Redis (Redis's clock, so replicas agree).

Counting costs a round trip only now and then: a process takes up to ``lease_size``
tokens from the shared bucket at once (a twentieth of the burst, at least one: 10 with the
default burst of 200) and spends them locally without a round trip, then takes more.
Tokens a process holds were taken from the shared bucket, so all processes together never
let through more than the bucket allows. A process refuses only when the shared bucket has
no whole token left, so a credential spread over several processes may be refused while
another process still holds some of its tokens (at most ``lease_size - 1`` per process).
A client idle for long may find up to that many held tokens on top of a full bucket.
With a burst under 40 the lease is one token: every request is counted in Redis.

Over the limit the answer is 429 ``too-many-requests`` with ``Retry-After`` — except for a
move, commitment or reveal of a seat the game is awaiting right now: that is let through
(one load of the game decides, only on this refusal path), so the limit can slow a
client's reads but never lock it out of its own turn.

The limiter's Redis calls are bounded by a short timeout of their own (this module's
client, not the service's), and a failure opens the limiter for a few seconds: requests
go through uncounted and a warning is logged. Neither a dead nor a frozen Redis adds more
than ``TIMEOUT_SECONDS`` to a request.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import re
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address, ip_address

import msgspec
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from service.http.problems import RateLimited
from service.http.route_contract import counted
from service.play.access import ApiKeys, SeatTokens
from service.play.game_service import GameService
from service.settings import Network
from service.store.connection import direct_client
from service.store.event_store import EventStore
from service.store.keys import RATE_LIMIT_PREFIX

log = logging.getLogger("stakeout")

# A limiter call waits this long at most; after a failure it stays open this long.
TIMEOUT_SECONDS = 0.25
OPEN_SECONDS = 5.0
# Deciding whether a refused act is awaited loads the game (the store's own timeouts).
AWAITED_CHECK_SECONDS = 2.0
# A lease is this fraction of the burst (at least one token); leases of this many
# identities are held per process at most.
LEASE_FRACTION = 20
LEASES_HELD = 10_000

# KEYS[1]: the bucket. ARGV: capacity, tokens per millisecond, tokens wanted. Takes up to
# that many whole tokens and returns how many (at least 1), or, when not one is there, minus
# the milliseconds until one will be. Redis's clock: replicas agree.
_BUCKET_SCRIPT = """
local now_t = redis.call('TIME')
local now = tonumber(now_t[1]) * 1000 + math.floor(tonumber(now_t[2]) / 1000)
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local taken = math.min(math.floor(tokens), tonumber(ARGV[3]))
local answer
if taken >= 1 then
  tokens = tokens - taken
  answer = taken
else
  answer = -math.max(1, math.ceil((1 - tokens) / rate))
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate) + 1000)
return answer
"""

_GAME_PATH = re.compile(r"^/v1/games/([0-9a-f]{24})(/(moves|commitments|reveals))?/?$")
_GAME_PREFIX = re.compile(r"^/v1/games/([0-9a-f]{24})(/|$)")


@dataclass(frozen=True)
class Callers:
    """What the limiter asks to tell whose budget a request spends: the API keys, the games'
    creation facts (their seats' token hashes), the tokens granted later, and the games
    (which seats they await)."""

    api_keys: ApiKeys
    store: EventStore
    seat_tokens: SeatTokens
    games: GameService


class RateLimiter:
    def __init__(
        self,
        redis_url: str,
        per_minute: int,
        burst: int | None = None,
        timeout: float = TIMEOUT_SECONDS,
        callers: Callers | None = None,
    ) -> None:
        """``callers``: how to tell credentials apart (None: every request counts against
        its address)."""
        self.callers = callers
        self.per_minute = per_minute
        self.burst = burst if burst is not None else per_minute
        self._rate_per_ms = per_minute / 60_000
        self._redis = direct_client(
            redis_url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )
        self._bucket = self._redis.register_script(_BUCKET_SCRIPT)
        self._open_until = 0.0
        self.lease_size = max(1, self.burst // LEASE_FRACTION)
        # Tokens this process took from a shared bucket and has not spent yet, by identity
        # (the most recently used ones; a forgotten lease is tokens spent, never more).
        self._leased: OrderedDict[str, int] = OrderedDict()

    async def retry_after(self, identity: str) -> int | None:
        """Take one token of ``identity``: None if allowed, else whole seconds to wait."""
        held = self._leased.get(identity, 0)
        if held > 0:
            self._leased[identity] = held - 1
            return None
        if time.monotonic() < self._open_until:
            return None
        try:
            answer = int(
                await self._bucket(
                    keys=[RATE_LIMIT_PREFIX + identity],
                    args=[self.burst, repr(self._rate_per_ms), self.lease_size],
                )
            )
        except Exception:  # a dead or frozen store: let requests through for a while
            self._open_until = time.monotonic() + OPEN_SECONDS
            log.warning("rate limit store unavailable; requests not counted", exc_info=True)
            return None
        if answer < 0:
            return max(1, math.ceil(-answer / 1000))
        if answer > 1:
            # This request spends one; the rest are held here (added to what a concurrent
            # request of the same identity may have taken meanwhile).
            self._leased[identity] = self._leased.get(identity, 0) + answer - 1
            self._leased.move_to_end(identity)
            while len(self._leased) > LEASES_HELD:
                self._leased.popitem(last=False)
        return None

    async def close(self) -> None:
        await self._redis.aclose()


# ---- who is asking ---------------------------------------------------------------------


def _ip(text: str) -> IPv4Address | IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[v6]:port"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "v4:port"
        text = text.split(":", 1)[0]
    try:
        return ip_address(text)
    except ValueError:
        return None


def _trusted(ip: IPv4Address | IPv6Address | None, trusted: Sequence[Network]) -> bool:
    return ip is not None and any(ip in network for network in trusted)


def _header(scope: Scope, name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", []) if k == name]


def client_address(scope: Scope, trusted: Sequence[Network]) -> str:
    """The client's address: the peer, or what trusted proxies say the client was."""
    client = scope.get("client")
    peer = client[0] if client else "unknown"
    address = _ip(peer)
    if not _trusted(address, trusted):
        return peer
    hops = [hop for value in _header(scope, b"x-forwarded-for") for hop in value.split(",")]
    for hop in reversed(hops):
        hop_ip = _ip(hop)
        if hop_ip is None:  # garbage from beyond the proxies: the last good hop stands
            break
        address = hop_ip
        if not _trusted(hop_ip, trusted):
            break
    return str(address)


def _bearer(scope: Scope) -> str | None:
    for value in _header(scope, b"authorization"):
        scheme, _, token = value.strip().partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and token and len(token) <= 512:
            return token
    return None


class _SeatTokens:
    """Seat token hashes of games, read once per process: they never change (tokens
    granted later, by an invite or a rematch, are looked up in the store each time)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._known: OrderedDict[str, tuple[list[str | None], bool]] = OrderedDict()

    async def seat_of(self, callers: Callers, game_id: str, token: str) -> int | None:
        known_hashes = self._known.get(game_id)
        if known_hashes is None:
            raw = await callers.store.meta(game_id)
            if raw is None or "meta" not in raw:
                return None
            meta = msgspec.json.decode(raw["meta"])
            known_hashes = (list(meta["token_hashes"]), bool(meta.get("late_tokens")))
            self._known[game_id] = known_hashes
            while len(self._known) > self.size:
                self._known.popitem(last=False)
        hashes, late = known_hashes
        digest = hashlib.sha256(token.encode()).hexdigest()
        seat: int | None = None
        for index, known in enumerate(hashes):
            if known is not None and hmac.compare_digest(digest, known):
                seat = index
        if seat is None and late:
            seat = await callers.seat_tokens.late_seat(game_id, token)
        return seat


class Identity(msgspec.Struct, frozen=True):
    """Whose budget a request spends; ``seat`` and ``game_id`` for a verified seat token."""

    bucket: str
    game_id: str | None = None
    seat: int | None = None


async def identify(
    scope: Scope, callers: Callers, seats: _SeatTokens, trusted: Sequence[Network]
) -> Identity:
    token = _bearer(scope)
    if token is not None:
        key_id = callers.api_keys.identify(token)
        if key_id is not None:
            return Identity("key:" + key_id)
        found = _GAME_PREFIX.match(scope.get("path", ""))
        if found is not None:
            game_id = found.group(1)
            seat = await seats.seat_of(callers, game_id, token)
            if seat is not None:
                return Identity(f"seat:{game_id}:{seat}", game_id, seat)
    return Identity("address:" + client_address(scope, trusted))


async def awaited_act(scope: Scope, games: GameService, who: Identity) -> bool:
    """Is this a move, commitment or reveal by a seat the game is waiting for right now?"""
    if who.seat is None or who.game_id is None or scope.get("method") != "POST":
        return False
    found = _GAME_PATH.match(scope.get("path", ""))
    if found is None or found.group(3) is None:
        return False
    loaded = await games.load(who.game_id)
    return any(action.seat == who.seat for action in loaded.awaited)


class RateLimitMiddleware(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    @staticmethod
    def should_bypass_for_scope(scope: Scope) -> bool:
        # The routes that declare no 429 (probes, metrics: service/http/route_contract.py).
        return not counted(scope["route_handler"])

    def __init__(self, trusted_proxies: Sequence[Network] = ()) -> None:
        self.trusted = tuple(trusted_proxies)
        self.seats = _SeatTokens()

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        refusal = await self.refusal(scope)
        if refusal is not None:
            raise refusal
        await next_app(scope, receive, send)

    async def refusal(self, scope: Scope, who: Identity | None = None) -> RateLimited | None:
        """The refusal of a request over its budget (None: it may go on); ``who``: whose
        budget, when the caller told it apart already (a play socket's act: its scope is the
        act's route, service/api/v1/play.py)."""
        state = scope["litestar_app"].state
        limiter: RateLimiter | None = getattr(state, "rate_limiter", None)
        if limiter is None:
            return None
        wait = await self._check(scope, limiter, who)
        if wait is None:
            return None
        return RateLimited(
            f"this credential (or address) is over {limiter.per_minute} requests a "
            f"minute (bursts of {limiter.burst}); retry in {wait} s",
            retry_after=wait,
        )

    async def _identify(self, scope: Scope, callers: Callers | None) -> Identity:
        if callers is None:
            return Identity("address:" + client_address(scope, self.trusted))
        return await identify(scope, callers, self.seats, self.trusted)

    async def _check(
        self, scope: Scope, limiter: RateLimiter, known: Identity | None = None
    ) -> int | None:
        try:
            async with asyncio.timeout(TIMEOUT_SECONDS):
                who = known or await self._identify(scope, limiter.callers)
        except Exception:  # the event store is slow or down: the handler will say so
            who = Identity("address:" + client_address(scope, self.trusted))
        wait = await limiter.retry_after(who.bucket)
        if wait is None:
            return None
        try:
            async with asyncio.timeout(AWAITED_CHECK_SECONDS):
                if limiter.callers and await awaited_act(scope, limiter.callers.games, who):
                    return None
        except Exception:  # cannot tell: the request is refused like any other
            log.warning("could not tell whether an act is awaited", exc_info=True)
        return wait
