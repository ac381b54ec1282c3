"""The sweep's activity index is written at most once an ACTIVITY_EVERY_MS per game and
process (service/follow_ups/jobs.py), and at once when a game ends."""

from __future__ import annotations

import asyncio

import redis.asyncio

from domain.match import Abort, SeatSpec
from service.follow_ups.jobs import ACTIVITY_EVERY_MS, RqScheduler
from service.play.game_service import GameService
from service.store.event_store import EventStore
from service.store.keys import GAME_ACTIVITY as ACTIVITY
from service.stores import Stores


def test_activity_is_written_once_a_period_and_at_once_when_the_game_ends(
    clean_redis: str,
) -> None:
    async def run() -> None:
        client = redis.asyncio.Redis.from_url(clean_redis)
        try:
            store = EventStore(client)
            games = GameService(store)
            connect = lambda: redis.Redis.from_url(clean_redis)  # noqa: E731
            scheduler = RqScheduler(connect, store, Stores.over(client))
            created = await games.create("owner", "fbi", {}, [SeatSpec("human")] * 4)
            loaded = await games.load(created.game_id)
            game_id = created.game_id

            await scheduler.follow_up(loaded, (), 1_000_000)
            assert await client.zscore(ACTIVITY, game_id) == 1_000_000
            # Within the period: not written again.
            await scheduler.follow_up(loaded, (), 1_000_000 + ACTIVITY_EVERY_MS - 1)
            assert await client.zscore(ACTIVITY, game_id) == 1_000_000
            # Past it: written.
            await scheduler.follow_up(loaded, (), 1_000_000 + ACTIVITY_EVERY_MS)
            assert await client.zscore(ACTIVITY, game_id) == 1_000_000 + ACTIVITY_EVERY_MS
            # A game that ended leaves the index at once, within the period too.
            applied = await games.apply(game_id, lambda r, m, s: Abort())
            await scheduler.follow_up(applied.loaded, (), 1_000_000 + ACTIVITY_EVERY_MS + 1)
            assert await client.zscore(ACTIVITY, game_id) is None
            scheduler.close()
        finally:
            await client.aclose()

    asyncio.run(run())
