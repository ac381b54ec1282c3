"""The process's Redis clients: the event store's and the job queue's, with short bounds.

Nothing connects here: a client connects on its first command.
"""

from __future__ import annotations

from typing import Any

import redis
import redis.asyncio
import redis.asyncio.retry
import redis.backoff
import redis.retry
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from service.settings import Settings
from service.store.connection import direct_client

# Either client of the event store: a plain server, or a Redis Cluster.
AnyRedis = Redis | RedisCluster

# A Redis that does not answer within these bounds is unavailable: the request gets a 503
# `unavailable` at once (service/http/problems.py), never a wait of many seconds. Connect
# and command timeouts are short, and a command is retried once, at once, only when its
# connection broke (a pooled connection to a Redis that restarted): never after a timeout,
# so a frozen Redis costs one timeout, not several (the client retries, after Retry-After).
# Workers, off the request path, allow longer.
CONNECT_TIMEOUT_SECONDS = 1.0
REQUEST_TIMEOUT_SECONDS = 1.0
WORKER_TIMEOUT_SECONDS = 5.0


def event_redis(
    settings: Settings,
    blocking_ms: int | None = None,
    timeout: float = REQUEST_TIMEOUT_SECONDS,
) -> AnyRedis:
    """The event store's client.

    ``blocking_ms``: a client for ``XREAD BLOCK`` of that many milliseconds, whose socket
    timeout is the block plus ``timeout``.
    """
    if settings.redis_url is None:
        raise RuntimeError("REDIS_URL is not set (make run starts an embedded server)")
    if blocking_ms is not None:
        timeout += blocking_ms / 1000
    options: dict[str, Any] = {
        "socket_timeout": timeout,
        "socket_connect_timeout": CONNECT_TIMEOUT_SECONDS,
    }
    if settings.redis_cluster:
        # The cluster client follows MOVED/ASK itself; a dead node still fails fast.
        return RedisCluster.from_url(settings.redis_url, **options)
    retry = redis.asyncio.retry.Retry(redis.backoff.NoBackoff(), 1, (redis.ConnectionError,))
    return direct_client(settings.redis_url, retry=retry, **options)


def queue_redis(settings: Settings, timeout: float = REQUEST_TIMEOUT_SECONDS) -> redis.Redis:
    """A synchronous client of the queue Redis (RQ), with the same short bounds."""
    return redis.Redis.from_url(
        queue_url(settings),
        socket_timeout=timeout,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
        retry=redis.retry.Retry(redis.backoff.NoBackoff(), 1, (redis.ConnectionError,)),
    )


def queue_url(settings: Settings) -> str:
    """The queue Redis: its own URL when set, else the event store's (RQ needs a plain one)."""
    url = settings.queue_redis_url or settings.redis_url
    if url is None:
        raise RuntimeError("no Redis URL for the job queue")
    return url


__all__ = [
    "CONNECT_TIMEOUT_SECONDS",
    "REQUEST_TIMEOUT_SECONDS",
    "WORKER_TIMEOUT_SECONDS",
    "AnyRedis",
    "event_redis",
    "queue_redis",
    "queue_url",
]
