"""Per-credential rate limits, shared by every API process.

Each bearer credential (an API key or a seat token; the client's address when there is
none) gets ``STAKEOUT_RATE_LIMIT_PER_MINUTE`` requests per sliding minute, counted in the
queue Redis so that all API replicas share one count (the ``limits`` library's sliding
window counter: two counters a key, atomic in Redis). A request over the limit gets a 429
problem with ``Retry-After`` and changes nothing. Probes and the metrics endpoint are not
counted. If the counter store cannot be reached the request is let through and a warning
logged: the limit protects the service, and should not take it down with Redis.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time

from limits import RateLimitItemPerMinute
from limits.aio.storage import RedisStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from service.errors import RateLimited

log = logging.getLogger("stakeout")

UNCOUNTED = ("/healthz", "/readyz", "/metrics")


class RateLimiter:
    def __init__(self, redis_url: str, per_minute: int) -> None:
        storage = RedisStorage(
            f"async+{redis_url}", implementation="redispy", key_prefix="stakeout:ratelimit"
        )
        self._strategy = SlidingWindowCounterRateLimiter(storage)
        self._item = RateLimitItemPerMinute(per_minute)
        self.per_minute = per_minute

    async def retry_after(self, identity: str) -> int | None:
        """Count one request of ``identity``: None if allowed, else seconds to wait."""
        try:
            if await self._strategy.hit(self._item, identity):
                return None
            stats = await self._strategy.get_window_stats(self._item, identity)
        except Exception:  # the store is down: let the request through
            log.warning("rate limit store unavailable; request not counted", exc_info=True)
            return None
        return max(1, math.ceil(stats.reset_time - time.time()))


def identity(scope: Scope) -> str:
    """Whose budget a request spends: its bearer credential, else its address."""
    for name, value in scope.get("headers", []):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return "token:" + hashlib.sha256(value[7:].strip()).hexdigest()[:32]
    client = scope.get("client")
    return f"address:{client[0] if client else 'unknown'}"


class RateLimitMiddleware(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)
    exclude_path_pattern = tuple(f"^{path}$" for path in UNCOUNTED)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        limiter: RateLimiter | None = getattr(scope["litestar_app"].state, "rate_limiter", None)
        if limiter is not None:
            wait = await limiter.retry_after(identity(scope))
            if wait is not None:
                raise RateLimited(
                    f"more than {limiter.per_minute} requests a minute with this credential;"
                    f" retry in {wait} s",
                    retry_after=wait,
                )
        await next_app(scope, receive, send)
