"""The store's answers that let the warm cache stay right (real Valkey), the cache finding a
stream rewritten behind its back at the same length, and /readyz's check of the cache not
mistaking an act that lands meanwhile for a store gone backwards."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import msgspec
import pytest
import redis.asyncio

from domain.match import Abort, MakeMove, SeatSpec
from service.ops import archive_files
from service.play.errors import GameNotFound
from service.play.game_service import GameService, NewGame
from service.play.records import Submission
from service.settings import Settings
from service.store.event_store import EventStore
from tests.helpers import batch


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_the_append_script_answers_what_the_caller_needs_in_one_round_trip(
    clean_redis: str,
) -> None:
    async def scenario() -> None:
        store = EventStore(redis.asyncio.Redis.from_url(clean_redis))
        assert await store.create("g1", {"meta": "{}"}, b"\x01" * 32, [b'{"n":1}'])
        (first,) = await store.read("g1")
        ok = await store.append(batch("g1", 1, [b'{"n":2}', b'{"n":3}'], "k", "fp", tip=first.tip))
        assert (ok.status, ok.first, ok.version) == ("ok", 2, 3)
        # A retry: the first answer, with its events.
        again = await store.append(batch("g1", 1, [b'{"n":2}'], "k", "fp", tip=first.tip))
        assert (again.status, again.first, again.version) == ("duplicate", 2, 3)
        assert [(e.version, e.data) for e in again.events] == [(2, b'{"n":2}'), (3, b'{"n":3}')]
        # A lost race: the entries the caller missed.
        late = await store.append(batch("g1", 1, [b'{"n":9}'], tip=first.tip))
        assert (late.status, late.version) == ("conflict", 3)
        assert [e.version for e in late.events] == [2, 3]
        # A caller ahead of the stream, or holding another entry at its version: behind.
        ahead = await store.append(batch("g1", 5, [b'{"n":9}']))
        assert (ahead.status, ahead.version) == ("behind", 3)
        wrong = await store.append(batch("g1", 3, [b'{"n":9}'], tip="0" * 40))
        assert wrong.status == "behind"
        # Catching up: the entries after a version, or the key's earlier answer.
        tail = await store.catch_up("g1", 1, first.tip)
        assert (tail.status, [e.version for e in tail.events]) == ("ok", [2, 3])
        keyed = await store.catch_up("g1", 3, idempotency_key="k")
        assert (keyed.status, keyed.first, keyed.version) == ("duplicate", 2, 3)
        assert (await store.catch_up("g1", 4)).status == "behind"
        assert await store.version("g1") == 3  # nothing refused was appended
        await store.redis.aclose()

    run(scenario())


def test_a_stream_rewritten_at_the_same_length_is_found_and_the_game_reloaded(
    clean_redis: str,
) -> None:
    """The store lost the last act and another act was appended since (a restore, then a
    write): same length, another history. The cache must not keep its own."""

    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(clean_redis)
        games = GameService(EventStore(client))
        created = await games.create(NewGame("owner", "fbi", {}, [SeatSpec("human")] * 4))
        game_id = created.game_id
        loaded = await games.load(game_id)
        seat = loaded.engine.awaiting(loaded.match)[0].seat
        legal = [msgspec.to_builtins(m) for m in loaded.engine.legal(loaded.match, seat)]
        assert len(legal) >= 2
        applied = await games.act(Submission(game_id, MakeMove(seat, legal[0])))
        cached = await games.snapshot(game_id)
        assert cached.match.version == applied.version
        # Behind the service's back: the act's entries replaced by another act's.
        other = GameService(EventStore(client))
        key = f"game:{{{game_id}}}:events"
        kept: Any = await client.xrange(key, "-", f"0-{created.version}")
        await client.delete(key)
        for entry_id, fields in kept:
            await client.xadd(key, fields, id=entry_id)
        await other.act(Submission(game_id, MakeMove(seat, legal[1])))
        assert await client.xlen(key) == applied.version  # same length, another history
        assert games.regressions == 0
        fresh = await games.load(game_id)
        assert games.regressions == 1
        truth = await other.load(game_id)
        assert fresh.match.version == truth.match.version
        assert msgspec.json.encode(fresh.match) == msgspec.json.encode(truth.match)
        assert msgspec.json.encode(fresh.match) != msgspec.json.encode(cached.match)
        await client.aclose()

    run(scenario())


def test_an_act_landing_while_the_cache_is_checked_is_no_regression(clean_redis: str) -> None:
    """/readyz compares the cached versions with the store's: an act answered while that
    read is away (a readiness probe under load) moves the cache on, the store with it."""

    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(clean_redis)
        store = EventStore(client)
        games = GameService(store)
        created = await games.create(NewGame("owner", "fbi", {}, [SeatSpec("human")] * 4))
        game_id = created.game_id
        loaded = await games.load(game_id)
        seat = loaded.engine.awaiting(loaded.match)[0].seat
        move = msgspec.to_builtins(loaded.engine.legal(loaded.match, seat)[0])
        read_versions = store.versions

        async def versions_then_an_act(game_ids: Any) -> list[int]:
            seen = await read_versions(game_ids)  # the store as the probe read it...
            await games.act(Submission(game_id, MakeMove(seat, move)))  # ...then an act
            return seen

        store.versions = versions_then_an_act  # type: ignore[method-assign]
        assert await games.check_cached() == 0
        assert games.regressions == 0
        store.versions = read_versions  # type: ignore[method-assign]
        assert (await games.snapshot(game_id)).match.version > created.version
        assert await games.check_cached() == 0
        await client.aclose()

    run(scenario())


def test_cached_games_exported_and_deleted_leave_the_cache_without_a_traceback(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """`stakeout archive export --delete` removes archives a process holds warm: /readyz's
    check then reloads the other cached games, and one gone meanwhile is no error (each
    was logged with a traceback)."""

    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(settings.redis_url or "")
        games = GameService(EventStore(client))
        ids = []
        for _ in range(3):
            created = await games.create(NewGame("owner", "feds", {}, [SeatSpec("human")] * 2))
            applied = await games.act(Submission(created.game_id, Abort()))
            loaded = await games.load(created.game_id)
            assert loaded.match.version == applied.version
            status = await games.store.archive(created.game_id, applied.version, loaded.tip)
            assert status == "archived" or status == "ok"
            ids.append(created.game_id)
        for game_id in ids:  # all three warm
            await games.load(game_id)
        written, deleted = await archive_files.export(settings, io.BytesIO(), delete=True)
        assert (written, deleted) == (3, 3)
        with caplog.at_level(logging.INFO):
            assert await games.check_cached() == 3
            while games.reloading:
                await asyncio.sleep(0.01)
        for game_id in ids:
            with pytest.raises(GameNotFound):
                await games.load(game_id)
        await client.aclose()

    run(scenario())
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []
