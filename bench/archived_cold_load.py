"""An archived game's cold load, with the snapshot its archive now carries and without (an
archive made before archives carried one). Not a test.

    .venv/bin/python bench/archived_cold_load.py [--events 1900] [--repeat 30] [--rounds 5]

One Bonnie and Clyde game (three seats, to 100 points: the longest games stakeout runs) is
played with random legal acts on an embedded Valkey to ``--events`` events (then aborted,
if it has not ended), and archived as the archiver does, the match folded at its version
in the archive. The same archive is then stored in turn with its snapshot and without it
(byte for byte what this code wrote before), and the game loaded cold ``--repeat`` times
by a fresh game service each, interleaved over ``--rounds`` rounds. Medians in ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec
import redis.asyncio
import zstandard

from domain.errors import DomainError
from domain.match import Abort, CommitSeal, MakeMove, RevealSeal, SeatSpec
from domain.sealed import commitment
from service.ops.embedded import EmbeddedRedis
from service.play import snapshots
from service.play.game_service import GameService, NewGame
from service.play.records import Submission
from service.store import archive as archives
from service.store.event_store import EventStore
from service.store.keys import archive_key


async def _act(games: GameService, game_id: str, rng: Any, kept: dict[int, Any]) -> bool:
    """One random legal act of an awaited seat (as bench/cold_load.py plays); False: none."""
    loaded = await games.load(game_id)
    if not loaded.awaited:
        return False
    action = rng.choice(loaded.awaited)
    seat = action.seat
    if action.action == "reveal":
        act: Any = RevealSeal(seat, *kept[seat])
    else:
        move = msgspec.to_builtins(rng.choice(loaded.engine.legal(loaded.match, seat)))
        salt = f"{rng.getrandbits(128):032x}"
        kept[seat] = (move, salt)
        digest = commitment(game_id, action.step, seat, move, salt)
        act = (
            MakeMove(seat, move)
            if action.action == "move"
            else CommitSeal(seat, digest, action.step)
        )
    with contextlib.suppress(DomainError):
        await games.act(Submission(game_id, act))
    return True


async def _long_game(games: GameService, events: int, seed: int) -> str:
    """A game of at least ``events`` events (the longest of a few seeds, else)."""
    best, best_version = "", 0
    for attempt in range(6):
        rng = random.Random(seed + attempt)
        made = await games.create(
            NewGame("bench", "bonnie_clyde", {"target": 100}, [SeatSpec("human")] * 3)
        )
        kept: dict[int, Any] = {}
        while (await games.load(made.game_id)).match.version < events:
            if not await _act(games, made.game_id, rng, kept):
                break
        version = (await games.load(made.game_id)).match.version
        if version > best_version:
            best, best_version = made.game_id, version
        if version >= events:
            break
    with contextlib.suppress(DomainError):  # ended already
        await games.act(Submission(best, Abort()))
    return best


def _without_snapshot(value: bytes) -> bytes:
    """The archive as this code wrote it before archives carried a snapshot."""
    header = archives.header_of(value)
    assert header is not None
    record = msgspec.to_builtins(archives.decode(value).record, builtin_types=(bytes,))
    del record["snapshot"]
    start = header.length + header.summary_length
    level = archives.ZSTD_LEVEL
    return value[:start] + zstandard.ZstdCompressor(level=level).compress(
        msgspec.msgpack.encode(record)
    )


async def _cold_ms(store: EventStore, game_id: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        games = GameService(store)
        start = time.perf_counter()
        await games.load(game_id)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def run(url: str, events: int, repeat: int, rounds: int, seed: int) -> None:
    client = redis.asyncio.Redis.from_url(url)
    store = EventStore(client)
    games = GameService(store)
    game_id = await _long_game(games, events, seed)
    loaded = await games.load(game_id)
    version = loaded.match.version
    snapshot = (snapshots.snapshot_format(), snapshots.encode(loaded.match))
    assert await store.archive(game_id, version, loaded.tip, snapshot=snapshot) == "ok"
    with_snapshot = await store.archive_value(game_id)
    assert with_snapshot is not None
    before = _without_snapshot(with_snapshot)
    kinds = {"before (no snapshot)": before, "after (snapshot)": with_snapshot}
    times: dict[str, list[float]] = {name: [] for name in kinds}
    for _ in range(rounds):
        for name, value in kinds.items():
            await client.set(archive_key(game_id), value)
            times[name].append(await _cold_ms(store, game_id, repeat))
    print(f"An archived Bonnie and Clyde game of {version} events, loaded cold")
    print(f"(medians of {repeat} loads, over {rounds} interleaved rounds):\n")
    print("| archive | bytes | cold load, ms |")
    print("|---|---|---|")
    medians = {name: statistics.median(found) for name, found in times.items()}
    for name, value in kinds.items():
        print(f"| {name} | {len(value):,} | {medians[name]:.2f} |")
    ratio = medians["before (no snapshot)"] / medians["after (snapshot)"]
    print(f"\nbefore / after: {ratio:.1f}x")
    store.close()
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1900)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder))
        url = server.start()
        try:
            asyncio.run(run(url, args.events, args.repeat, args.rounds, args.seed))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
