"""The outbox and its dispatchers against a real Redis: one entry per change, in the game's
shard; dispatchers share the shards by lease, take over a dead one's entries, park an entry
that keeps failing and go on, and trim what they acknowledged."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import redis.asyncio

from domain.match import MakeMove, SeatSpec
from service.follow_ups.dispatcher import Dispatcher
from service.play.game_service import NewGame
from service.play.records import Submission
from service.settings import Settings
from service.store.keys import OUTBOX_GROUP, OUTBOX_SHARDS, outbox_key, outbox_parked_key
from service.store.outbox import OutboxEntry
from service.wiring import Wiring, open_wiring
from tests.helpers import fields_of

HUMANS = [SeatSpec("human")] * 4


class Recorder:
    """Stands in for `FollowUp`: records what it is asked to follow up (and can fail)."""

    def __init__(self, fail_game: str | None = None) -> None:
        self.calls: list[tuple[str, int]] = []
        self.fail_game = fail_game

    async def follow_up(self, loaded: Any, acted: Any, at_ms: int, events: Any) -> None:
        if loaded.game_id == self.fail_game:
            raise ValueError("this game's follow-up always fails")
        self.calls.append((loaded.game_id, loaded.match.version))


@asynccontextmanager
async def _wiring(url: str) -> AsyncIterator[Wiring]:
    async with open_wiring(Settings(redis_url=url)) as wiring:
        yield wiring


@asynccontextmanager
async def _running(dispatcher: Dispatcher) -> AsyncIterator[asyncio.Event]:
    stop = asyncio.Event()
    task = asyncio.get_running_loop().create_task(dispatcher.run(stop))
    try:
        yield stop
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)


async def _until(check: Any, timeout: float = 15.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError("condition not reached in time")


def test_every_change_leaves_one_entry_in_its_games_shard(clean_redis: str) -> None:
    async def scenario() -> None:
        async with _wiring(clean_redis) as wiring:
            games = wiring.games
            created = await games.create(NewGame("owner", "fbi", {}, HUMANS))
            game_id = created.game_id
            loaded = await games.load(game_id)
            seat = loaded.awaited[0].seat
            move = loaded.engine.legal(loaded.match, seat)[0]
            act = MakeMove(seat, msgspec.to_builtins(move))
            applied = await games.act(Submission(game_id, act))
            shard = wiring.store.outbox.shard_of(game_id)
            client = redis.asyncio.Redis.from_url(clean_redis)
            rows = fields_of(await client.xrange(shard))
            await client.aclose()
            fields = [{k.decode(): v.decode() for k, v in f.items()} for f in rows]
            first = applied.events[0].version
            assert [(f["g"], f["f"], f["l"], f["s"]) for f in fields] == [
                (game_id, "1", str(created.version), ""),
                (game_id, str(first), str(applied.version), str(seat)),
            ]

    asyncio.run(scenario())


def _same_shard_ids(wiring: Wiring, count: int) -> list[str]:
    """``count`` game ids whose entries share one shard."""
    ids: list[str] = []
    shard = None
    n = 0
    while len(ids) < count:
        candidate = f"{n:024x}"
        n += 1
        if shard is None:
            shard = wiring.store.outbox.shard_of(candidate)
        if wiring.store.outbox.shard_of(candidate) == shard:
            ids.append(candidate)
    return ids


def test_an_entry_that_keeps_failing_is_parked_and_the_shard_goes_on(clean_redis: str) -> None:
    async def scenario() -> None:
        async with _wiring(clean_redis) as wiring:
            bad, good = _same_shard_ids(wiring, 2)
            seats = [SeatSpec("human")] * 3
            await wiring.games.create(NewGame("owner", "fbi", {}, seats, game_id=bad))
            await wiring.games.create(NewGame("owner", "fbi", {}, seats, game_id=good))
            recorder = Recorder(fail_game=bad)
            dispatcher = Dispatcher(wiring.store.outbox, wiring.games, recorder, "d1")  # type: ignore[arg-type]
            async with _running(dispatcher):
                await _until(lambda: _true(recorder.calls))
            assert [g for g, _ in recorder.calls] == [good]
            client = redis.asyncio.Redis.from_url(clean_redis)
            shard = wiring.store.outbox.shard_of(bad).removeprefix("outbox:{").removesuffix("}")
            parked = fields_of(await client.xrange(outbox_parked_key(shard)))
            pending = await client.xpending(outbox_key(shard), OUTBOX_GROUP)
            await client.aclose()
            assert [f[b"g"] for f in parked] == [bad.encode()]
            assert b"this game's follow-up always fails" in parked[0][b"error"]
            assert pending["pending"] == 0

    asyncio.run(scenario())


async def _true(value: Any) -> Any:
    return value


def test_a_dead_dispatchers_entries_are_taken_over_when_its_lease_expires(
    clean_redis: str,
) -> None:
    """A dispatcher that read entries and died (no acknowledgement, no lease given back):
    the next one takes its shard once the lease expires, and follows those entries up."""

    async def scenario() -> None:
        async with _wiring(clean_redis) as wiring:
            outbox = wiring.store.outbox
            ids = _same_shard_ids(wiring, 3)
            for game_id in ids:
                await wiring.games.create(NewGame("owner", "fbi", {}, HUMANS, game_id=game_id))
            key = outbox.shard_of(ids[0])
            shard = key.removeprefix("outbox:{").removesuffix("}")
            # The dead one: it holds the lease and has read every entry.
            assert await outbox.lease(shard, "dead", ttl_ms=1500)
            await outbox.ensure_group(shard)
            read: list[OutboxEntry] = await outbox.read(shard, "dead", 10, None)
            assert [e.game_id for e in read] == ids
            recorder = Recorder()
            dispatcher = Dispatcher(outbox, wiring.games, recorder, "alive")  # type: ignore[arg-type]
            async with _running(dispatcher):
                await asyncio.sleep(0.5)
                assert shard not in dispatcher.shards  # still the dead one's
                assert recorder.calls == []
                await _until(lambda: _true(len(recorder.calls) == 3), timeout=20)
                assert shard in dispatcher.shards
            assert [g for g, _ in recorder.calls] == ids  # in order

    asyncio.run(scenario())


def test_acknowledged_entries_are_trimmed(clean_redis: str) -> None:
    async def scenario() -> None:
        async with _wiring(clean_redis) as wiring:
            outbox = wiring.store.outbox
            ids = _same_shard_ids(wiring, 4)
            for game_id in ids:
                await wiring.games.create(NewGame("owner", "fbi", {}, HUMANS, game_id=game_id))
            shard = outbox.shard_of(ids[0]).removeprefix("outbox:{").removesuffix("}")
            await outbox.ensure_group(shard)
            entries = await outbox.read(shard, "me", 10, None)
            await outbox.ack(shard, [e.entry_id for e in entries[:2]])
            await outbox.trim(shard)
            client = redis.asyncio.Redis.from_url(clean_redis)
            left = [f[b"g"].decode() for f in fields_of(await client.xrange(outbox_key(shard)))]
            assert left == ids[2:]  # the unacknowledged ones stay
            await outbox.ack(shard, [e.entry_id for e in entries[2:]])
            await outbox.trim(shard)
            assert await client.xlen(outbox_key(shard)) == 0
            await client.aclose()
            lags = {lag.shard: lag for lag in await outbox.lag()}
            assert (lags[shard].lag, lags[shard].pending) == (0, 0)
            assert set(lags) == set(OUTBOX_SHARDS)

    asyncio.run(scenario())


def test_two_dispatchers_share_the_shards_and_follow_every_change_once(clean_redis: str) -> None:
    async def scenario() -> None:
        async with _wiring(clean_redis) as wiring:
            created = [
                (await wiring.games.create(NewGame("owner", "fbi", {}, HUMANS))).game_id
                for _ in range(40)
            ]
            one, two = Recorder(), Recorder()
            first = Dispatcher(wiring.store.outbox, wiring.games, one, "one")  # type: ignore[arg-type]
            second = Dispatcher(wiring.store.outbox, wiring.games, two, "two")  # type: ignore[arg-type]
            async with _running(first), _running(second):
                await _until(lambda: _true(len(one.calls) + len(two.calls) >= 40))
                await asyncio.sleep(0.3)
                held = set(first.shards) | set(second.shards)
                assert not set(first.shards) & set(second.shards)
            assert sorted(g for g, _ in one.calls + two.calls) == sorted(created)
            assert held == set(OUTBOX_SHARDS)

    asyncio.run(scenario())
