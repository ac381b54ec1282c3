"""Snapshots are derived data: a game loaded from a snapshot (and the entries after it) equals
the game folded from the start, for every kind of game at every snapshot; a snapshot of
another format, or one that is not of the stream's entry at its version, is never read.

The snapshots are kept by the changes' follow-ups, on a real game worker (its outbox
dispatcher), every 7 events here."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
import redis.asyncio

from domain import registry
from domain.errors import DomainError
from domain.match import CommitSeal, MakeMove, RevealSeal, SeatSpec, event_union
from domain.sealed import commitment
from service.play import snapshots
from service.play.game_service import GameService, NewGame
from service.play.records import Loaded, Submission
from service.play.snapshots import snapshot_format
from service.play.warm_cache import WarmCache
from service.settings import Settings
from service.store.event_store import EventStore
from service.store.keys import outbox_key, snapshot_key
from service.wiring import open_wiring
from tests.conftest import start_worker, stop_worker
from tests.processes import quick_options

EVERY = 7
# Each seat's sealed move and salt, from its commitment to its reveal.
Kept = dict[int, tuple[Any, str]]


async def _act_randomly(games: GameService, game_id: str, rng: random.Random, kept: Kept) -> bool:
    loaded = await games.load(game_id)
    if not loaded.awaited:
        return False
    action = rng.choice(loaded.awaited)
    seat = action.seat
    if action.action == "reveal":
        move, salt = kept[seat]
        act: Any = RevealSeal(seat, move, salt)
    else:
        move = msgspec.to_builtins(rng.choice(loaded.engine.legal(loaded.match, seat)))
        if action.action == "move":
            act = MakeMove(seat, move)
        else:
            salt = f"{rng.getrandbits(128):032x}"
            kept[seat] = (move, salt)
            act = CommitSeal(seat, commitment(game_id, action.step, seat, move, salt), action.step)
    try:
        await games.act(Submission(game_id, act))
    except DomainError as exc:
        raise AssertionError(f"{act!r} refused: {exc!r}") from exc
    return True


async def _followed_up(store: EventStore, game_id: str) -> None:
    """Once every change of the game has been followed up: its outbox shard's entries all
    read by the dispatchers' group and acknowledged (`Outbox.lag`; a test's own Valkey:
    only this game writes to it). Bounded at 120 s."""
    shard = store.outbox.shard_of(game_id)
    for _ in range(2400):
        lag = next(s for s in await store.outbox.lag() if outbox_key(s.shard) == shard)
        if lag.lag == 0 and lag.pending == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the game's follow-ups not done in 120 s: {lag}")


async def _caught_up(store: EventStore, games: GameService, game_id: str) -> Any:
    """The game's opening once the worker's follow-ups have kept the snapshot its version
    calls for (the last multiple of EVERY it passed), or after 2 s."""
    version = (await games.load(game_id)).match.version
    for _ in range(100):
        opening = await store.opening(game_id, snapshot_format())
        if opening.snapshot_version >= version // EVERY * EVERY:
            return opening
        await asyncio.sleep(0.02)
    return opening


def _same(one: Loaded, other: Loaded) -> bool:
    encode = msgspec.msgpack.encode
    return (encode(one.match), one.tip, one.changed_ms) == (
        encode(other.match),
        other.tip,
        other.changed_ms,
    )


async def _from_start(store: EventStore, game_id: str) -> Loaded:
    """The game folded from its first event (a cache-less service without snapshots)."""
    opening = await store.opening(game_id)
    assert opening.snapshot is None
    return WarmCache(store)._opened(game_id, opening)  # type: ignore[return-value]


@pytest.fixture
def snapshotting_worker(clean_redis: str) -> Iterator[None]:
    worker = start_worker(clean_redis, STAKEOUT_SNAPSHOT_EVERY=str(EVERY))
    try:
        yield
    finally:
        stop_worker(worker)


@pytest.mark.usefixtures("snapshotting_worker")
def test_a_game_loaded_from_its_snapshot_equals_the_game_folded_from_the_start(
    clean_redis: str,
) -> None:
    settings = dataclasses.replace(Settings(redis_url=clean_redis), snapshot_every=EVERY)

    async def run() -> int:
        checked = 0
        client = redis.asyncio.Redis.from_url(clean_redis)
        store = EventStore(client)
        try:
            async with open_wiring(settings) as wiring:
                for game in registry.games():
                    rng = random.Random(game.name)
                    seats = [SeatSpec("human")] * game.max_seats
                    options = quick_options(game.name)
                    made = await wiring.games.create(NewGame("o", game.name, options, seats))
                    game_id, kept = made.game_id, Kept()
                    while await _act_randomly(wiring.games, game_id, rng, kept):
                        opening = await _caught_up(store, wiring.games, game_id)
                        if opening.snapshot is None:
                            continue
                        engine = registry.engine_for(game.name)
                        assert engine is not None
                        # The snapshot itself is the match folded to its version...
                        at = opening.snapshot_version
                        assert at >= EVERY  # kept by the change that crossed a multiple
                        decoder = msgspec.json.Decoder(event_union(game))
                        events = [decoder.decode(e.data) for e in await store.read(game_id)]
                        folded = engine.replay(events[:at])
                        snapshot = snapshots.decode(engine, opening.snapshot)
                        assert msgspec.msgpack.encode(snapshot) == msgspec.msgpack.encode(folded)
                        assert snapshot == folded
                        # ...and a cold load from it is the game folded from the start.
                        cold = await GameService(store).load(game_id)
                        assert _same(cold, await _from_start(store, game_id)), game_id
                        checked += 1
        finally:
            store.close()
            await client.aclose()
        return checked

    assert asyncio.run(run()) > 3 * 10


@pytest.mark.usefixtures("snapshotting_worker")
def test_a_snapshot_of_another_format_or_another_stream_is_never_read(clean_redis: str) -> None:
    settings = dataclasses.replace(Settings(redis_url=clean_redis), snapshot_every=EVERY)

    async def run() -> None:
        client = redis.asyncio.Redis.from_url(clean_redis)
        store = EventStore(client)
        try:
            async with open_wiring(settings) as wiring:
                seats = [SeatSpec("human")] * 3
                made = await wiring.games.create(NewGame("o", "fbi", {}, seats))
                game_id, rng, kept = made.game_id, random.Random(9), Kept()
                for _ in range(3 * EVERY):
                    await _act_randomly(wiring.games, game_id, rng, kept)
            key = snapshot_key(game_id)
            # The worker's follow-ups keep it; every one of them done before the snapshot
            # is tampered with, or a later one would write a fresh snapshot over it.
            await _followed_up(store, game_id)
            assert (await store.opening(game_id, snapshot_format())).snapshot is not None
            truth = await _from_start(store, game_id)
            # Another format: the stamp of other code.
            await client.hset(key, "format", "1.0000000000000000")
            assert (await store.opening(game_id, snapshot_format())).snapshot is None
            assert _same(await GameService(store).load(game_id), truth)
            # Its format, but not of this stream's entry at its version (another tip).
            await client.hset(key, mapping={"format": snapshot_format(), "tip": "0" * 40})
            assert (await store.opening(game_id, snapshot_format())).snapshot is None
            assert _same(await GameService(store).load(game_id), truth)
            # Its format and tip, but a state that is not a match: folded from the start.
            opening = await store.opening(game_id)
            at = opening.events[EVERY - 1]
            await client.hset(
                key, mapping={"tip": at.tip, "version": EVERY, "state": b"\x81\xa1x\x01"}
            )
            assert (await store.opening(game_id, snapshot_format())).snapshot is not None
            assert _same(await GameService(store).load(game_id), truth)
        finally:
            store.close()
            await client.aclose()

    asyncio.run(run())
