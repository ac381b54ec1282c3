"""Presence is written only beside a game that exists: a note taken while a game was played
and flushed after it was archived leaves nothing behind (the archive deleted the hash)."""

from __future__ import annotations

import asyncio

import redis

from domain.match import Abort, SeatSpec
from service.play.game_service import NewGame
from service.play.records import Submission
from service.settings import Settings
from service.store.keys import archive_key
from service.wiring import open_wiring
from tests.processes import quick_options


def _keys_of(url: str, game_id: str) -> set[str]:
    client = redis.Redis.from_url(url)
    try:
        return {k.decode() for k in client.scan_iter(match=f"*{game_id}*")}
    finally:
        client.close()


def test_a_note_flushed_after_the_archive_writes_nothing(
    settings: Settings, clean_redis: str
) -> None:
    async def scenario() -> tuple[str, int, int]:
        async with open_wiring(settings) as wiring:
            seats = [SeatSpec("human"), SeatSpec("human")]
            made = await wiring.maker.make(NewGame("owner", "feds", quick_options("feds"), seats))
            game_id = made.created.game_id
            tracker = wiring.presence
            tracker.seen(game_id, 0)
            written_while_played = await tracker.flush()
            tracker.seen(game_id, 1)  # noted while played, not yet written...
            await wiring.games.act(Submission(game_id, Abort()))
            said = (await wiring.archiver.archive(game_id, 2**62)).said
            assert said.startswith("archived"), said
            return game_id, written_while_played, await tracker.flush()  # ...but now

    game_id, written_while_played, written_after = asyncio.run(scenario())
    assert written_while_played == 1
    assert written_after == 1  # the game's note was sent...
    assert _keys_of(clean_redis, game_id) == {archive_key(game_id)}  # ...and refused


def test_a_game_that_does_not_exist_gets_no_presence(clean_redis: str) -> None:
    async def scenario() -> None:
        async with open_wiring(Settings(redis_url=clean_redis)) as wiring:
            wiring.presence.seen("0" * 24, 0)
            await wiring.presence.flush()
            await wiring.presence.substituted("0" * 24, 1, 1_000)

    asyncio.run(scenario())
    assert _keys_of(clean_redis, "0" * 24) == set()
