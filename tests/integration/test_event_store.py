"""The event store against a real server: atomic appends, idempotency, durability."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest
import redis.asyncio

from service.ops.embedded import EmbeddedRedis
from service.store.event_store import EventStore
from tests.helpers import batch, fields_of, text

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def _store(url: str) -> EventStore:
    return EventStore(redis.asyncio.Redis.from_url(url))


async def _new_game(store: EventStore, game_id: str = "g1") -> None:
    assert await store.create(game_id, {"meta": "{}"}, b"\x01" * 32, [b'{"n":1}'])


def test_a_new_stream_starts_at_version_one_with_its_outbox_entry_and_one_hash_tag(
    clean_redis: str,
) -> None:
    async def scenario() -> None:
        store = await _store(clean_redis)
        await _new_game(store)
        assert await store.version("g1") == 1
        keys = sorted(text(k) for k in await store.redis.keys("*"))
        # The game's keys share its tag; the creation's outbox entry is in its shard.
        shard = store.outbox.shard_of("g1")
        assert keys == sorted(["game:{g1}:events", "game:{g1}:meta", "game:{g1}:seed", shard])
        outbox = fields_of(await store.redis.xrange(shard))
        assert outbox == [{b"g": b"g1", b"f": b"1", b"l": b"1", b"t": outbox[0][b"t"], b"s": b""}]
        assert not await store.create("g1", {"meta": "{}"}, b"\x02" * 32, [b"{}"])
        assert await store.seed("g1") == b"\x01" * 32
        await store.redis.aclose()

    run(scenario())


def test_concurrent_writers_at_the_same_version_exactly_one_wins(clean_redis: str) -> None:
    async def scenario() -> None:
        store = await _store(clean_redis)
        await _new_game(store)
        results = await asyncio.gather(
            *(store.append(batch("g1", 1, [f'{{"w":{i}}}'.encode()])) for i in range(20))
        )
        assert sorted(r.status for r in results) == ["conflict"] * 19 + ["ok"]
        assert await store.version("g1") == 2
        events = await store.read("g1")
        assert [e.version for e in events] == [1, 2]
        await store.redis.aclose()

    run(scenario())


def test_a_retried_append_with_the_same_idempotency_key_appends_once(clean_redis: str) -> None:
    async def scenario() -> None:
        store = await _store(clean_redis)
        await _new_game(store)
        first = await store.append(batch("g1", 1, [b"{}", b"{}"], "key-1", "fp"))
        again = await store.append(batch("g1", 1, [b"{}", b"{}"], "key-1", "fp"))
        later = await store.append(batch("g1", 3, [b"{}"], "key-1", "fp"))
        assert (first.status, first.first, first.version) == ("ok", 2, 3)
        assert (again.status, again.first, again.version) == ("duplicate", 2, 3)
        assert (later.status, later.first, later.version) == ("duplicate", 2, 3)
        assert await store.version("g1") == 3
        await store.redis.aclose()

    run(scenario())


def test_an_append_to_a_missing_game_is_refused(clean_redis: str) -> None:
    async def scenario() -> None:
        store = await _store(clean_redis)
        result = await store.append(batch("nope", 0, [b"{}"]))
        assert result.status == "missing"
        assert await store.version("nope") == 0
        await store.redis.aclose()

    run(scenario())


def test_reads_page_by_version_and_the_stream_is_never_trimmed(clean_redis: str) -> None:
    async def scenario() -> None:
        store = await _store(clean_redis)
        await _new_game(store)
        for v in range(1, 300):
            assert (await store.append(batch("g1", v, [b"{}"]))).status == "ok"
        page = await store.read("g1", after=100, count=50)
        assert [e.version for e in page] == list(range(101, 151))
        assert await store.redis.xlen("game:{g1}:events") == 300
        await store.redis.aclose()

    run(scenario())


@pytest.mark.parametrize("fsync", ["always"])
def test_a_killed_server_restarted_on_its_aof_keeps_every_acknowledged_append(
    tmp_path: Path, fsync: str
) -> None:
    data = tmp_path / "aof"
    server = EmbeddedRedis(data, appendfsync=fsync)
    url = server.start()
    port = server.port

    async def write() -> int:
        store = await _store(url)
        await _new_game(store)
        version = 1
        for _ in range(200):
            result = await store.append(batch("g1", version, [b'{"x":1}'], f"k{version}"))
            assert result.status == "ok"
            version = result.version
        await store.redis.aclose()
        return version

    acknowledged = run(write())
    server.kill()  # SIGKILL: no clean shutdown, only the AOF survives
    restarted = EmbeddedRedis(data, port=port, appendfsync=fsync)
    url = restarted.start()

    async def read() -> tuple[int, int]:
        store = await _store(url)
        version = await store.version("g1")
        retried = await store.append(batch("g1", 1, [b"{}"], "k1"))
        await store.redis.aclose()
        return version, retried.version if retried.status == "duplicate" else -1

    try:
        version, retried = run(read())
    finally:
        restarted.stop()
    assert version == acknowledged == 201
    assert retried == 2
