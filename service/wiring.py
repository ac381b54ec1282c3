"""Wiring: the clients, the store, the game service and the job scheduler for one process.

Nothing connects at import time; `open_context` builds everything from `Settings` and
closes the clients on exit. The app and the workers both use it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio
import redis.asyncio.retry
import redis.backoff
import redis.retry
from redis.asyncio.cluster import RedisCluster

from service.follow_ups.jobs import FollowUps, RqScheduler
from service.live.feed import BLOCK_MS, LiveFeed
from service.play.auth import ApiKeys
from service.play.game_service import GameService
from service.settings import Settings
from service.store.connection import direct_client
from service.store.event_store import AnyRedis, EventStore
from service.stores import Stores
from service.views.summaries import kept_record


@dataclass
class Context(Stores):
    """One process's wiring: its stores (each by name: ``ctx.deadlines``, ``ctx.invites``,
    ..., see service/stores.py; the same instances the scheduler uses), the event store, the
    game service, the job scheduler, the API keys and the live feeds."""

    settings: Settings
    store: EventStore
    games: GameService
    scheduler: RqScheduler
    api_keys: ApiKeys
    live: LiveFeed
    follow_ups: FollowUps | None = None  # the API's background follow-ups (none in workers)


# A Redis that does not answer within these bounds is unavailable: the request gets a 503
# `unavailable` at once (service/play/errors.py), never a wait of many seconds. Connect and
# command timeouts are short, and a command is retried once, at once, only when its
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
    url = settings.queue_redis_url or settings.redis_url
    if url is None:
        raise RuntimeError("no Redis URL for the job queue")
    return url


@asynccontextmanager
async def open_context(
    settings: Settings, background: bool = True, timeout: float = REQUEST_TIMEOUT_SECONDS
) -> AsyncIterator[Context]:
    """``background``: follow-ups of an act run after its answer (the API); else before
    the act returns (the workers: a job's follow-ups are done when the job ends).
    ``timeout``: the Redis clients' command timeout (short on the request path)."""
    client = event_redis(settings, timeout=timeout)
    blocking = event_redis(settings, blocking_ms=BLOCK_MS, timeout=timeout)
    if isinstance(client, RedisCluster) and isinstance(blocking, RedisCluster):
        # Learn the slot map before the first command: otherwise concurrent first commands
        # go to random masters, collect MOVED replies and lose connections in the reshuffle.
        await client.initialize()
        await blocking.initialize()
    store = EventStore(client)
    live = LiveFeed(blocking, store)
    stores = Stores.over(store.redis, live.blocking_client, settings.max_active_games)
    scheduler = RqScheduler(
        lambda: queue_redis(settings, timeout), store, stores, settings.webhook_backoff
    )
    follow_ups = FollowUps(scheduler.follow_up) if background else None
    on_change = follow_ups.submit if follow_ups is not None else scheduler.on_change
    games = GameService(store, settings.game_cache_size, on_change, kept_record)
    try:
        yield Context(
            **stores.parts(),
            settings=settings,
            store=store,
            games=games,
            scheduler=scheduler,
            api_keys=ApiKeys(settings.api_keys),
            live=live,
            follow_ups=follow_ups,
        )
    finally:
        if follow_ups is not None:
            await follow_ups.close()
        await live.close()
        await blocking.aclose()
        store.close()
        await client.aclose()
        scheduler.close()
