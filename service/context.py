"""Wiring: the clients, the store, the game service and the job scheduler for one process.

Nothing connects at import time; `open_context` builds everything from `Settings` and
closes the clients on exit. The app and the workers both use it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import redis
import redis.asyncio
from redis.asyncio.cluster import RedisCluster

from service.auth import ApiKeys
from service.games import GameService
from service.live import LiveFeed
from service.scheduling import FollowUps, RqScheduler
from service.settings import Settings
from service.store import AnyRedis, EventStore


@dataclass
class Context:
    settings: Settings
    store: EventStore
    games: GameService
    scheduler: RqScheduler
    api_keys: ApiKeys
    live: LiveFeed
    follow_ups: FollowUps | None = None  # the API's background follow-ups (none in workers)


def event_redis(settings: Settings, blocking: bool = False) -> AnyRedis:
    """The event store's client; ``blocking`` ones have no socket timeout (XREAD BLOCK)."""
    if settings.redis_url is None:
        raise RuntimeError("REDIS_URL is not set (make run starts an embedded server)")
    timeout = None if blocking else 5.0
    if settings.redis_cluster:
        return RedisCluster.from_url(settings.redis_url, socket_timeout=timeout)
    return redis.asyncio.Redis.from_url(settings.redis_url, socket_timeout=timeout)


def queue_url(settings: Settings) -> str:
    url = settings.queue_redis_url or settings.redis_url
    if url is None:
        raise RuntimeError("no Redis URL for the job queue")
    return url


@asynccontextmanager
async def open_context(settings: Settings, background: bool = True) -> AsyncIterator[Context]:
    """``background``: follow-ups of an act run after its answer (the API); else before
    the act returns (the workers: a job's follow-ups are done when the job ends)."""
    client = event_redis(settings)
    blocking = event_redis(settings, blocking=True)
    if isinstance(client, RedisCluster) and isinstance(blocking, RedisCluster):
        # Learn the slot map before the first command: otherwise concurrent first commands
        # go to random masters, collect MOVED replies and lose connections in the reshuffle.
        await client.initialize()
        await blocking.initialize()
    store = EventStore(client)
    live = LiveFeed(blocking, store)
    scheduler = RqScheduler(
        lambda: redis.Redis.from_url(queue_url(settings)), store, settings.webhook_backoff
    )
    follow_ups = FollowUps(scheduler.follow_up) if background else None
    on_change = follow_ups.submit if follow_ups is not None else scheduler.on_change
    games = GameService(store, settings.game_cache_size, on_change)
    try:
        yield Context(
            settings, store, games, scheduler, ApiKeys(settings.api_keys), live, follow_ups
        )
    finally:
        if follow_ups is not None:
            await follow_ups.close()
        await live.close()
        await blocking.aclose()
        await client.aclose()
        scheduler.close()
