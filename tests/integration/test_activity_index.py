"""The sweep's activity index is written at most once an ACTIVITY_EVERY_MS per game and
process (service/follow_ups/follow_ups.py), and at once when a game ends."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio

from domain.match import Abort, SeatSpec
from service.follow_ups.follow_ups import ACTIVITY_EVERY_MS
from service.play.game_service import NewGame
from service.play.records import Submission
from service.settings import Settings
from service.store.keys import bucket_of, game_activity_key
from service.wiring import open_wiring


def test_activity_is_written_once_a_period_and_at_once_when_the_game_ends(
    clean_redis: str,
) -> None:
    async def run() -> None:
        client = redis.asyncio.Redis.from_url(clean_redis)
        settings = Settings(redis_url=clean_redis)
        try:
            # No dispatcher runs here: each follow-up is run by the test, at a chosen time.
            async with open_wiring(settings) as wiring:
                await _check(wiring, client)
        finally:
            await client.aclose()

    asyncio.run(run())


async def _check(wiring: Any, client: Any) -> None:
    games, follow_up = wiring.games, wiring.follow_up
    created = await games.create(NewGame("owner", "fbi", {}, [SeatSpec("human")] * 4))
    loaded = await games.load(created.game_id)
    game_id = created.game_id
    ACTIVITY = game_activity_key(bucket_of(game_id))  # noqa: N806 - the key, as before

    await follow_up.follow_up(loaded, (), 1_000_000)
    assert await client.zscore(ACTIVITY, game_id) == 1_000_000
    # Within the period: not written again.
    await follow_up.follow_up(loaded, (), 1_000_000 + ACTIVITY_EVERY_MS - 1)
    assert await client.zscore(ACTIVITY, game_id) == 1_000_000
    # Past it: written.
    await follow_up.follow_up(loaded, (), 1_000_000 + ACTIVITY_EVERY_MS)
    assert await client.zscore(ACTIVITY, game_id) == 1_000_000 + ACTIVITY_EVERY_MS
    # A game that ended leaves the index at once, within the period too.
    applied = await games.act(Submission(game_id, Abort()))
    await follow_up.follow_up(applied.loaded, (), 1_000_000 + ACTIVITY_EVERY_MS + 1)
    assert await client.zscore(ACTIVITY, game_id) is None
