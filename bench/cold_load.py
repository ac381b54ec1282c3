"""What a cold load costs against the number of events, with and without snapshots. Not a test.

    .venv/bin/python bench/cold_load.py [--every 100] [--repeat 30]

A cold load is what another API process, a worker or a restart pays for a game it has not
cached: one script call (the opening) and the fold of what it returns. One Bonnie and Clyde
game (three seats, to 100 points: the longest games stakeout runs, about 2,100 events at
most) is played with random legal acts on an embedded Valkey; at each of a few lengths the
game is loaded cold ``--repeat`` times by a fresh game service, once folding the whole
stream and once from a snapshot at the last multiple of ``--every`` events (as the
follow-ups keep them), side by side. Medians in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec
import redis.asyncio

from domain.errors import DomainError
from domain.match import CommitSeal, MakeMove, RevealSeal, SeatSpec
from domain.sealed import commitment
from service.ops.embedded import EmbeddedRedis
from service.play import snapshots
from service.play.game_service import GameService, NewGame
from service.play.records import Submission
from service.store.event_store import EventStore
from service.store.keys import snapshot_key

CHECKPOINTS = (50, 100, 250, 500, 1000, 1500, 2000)


async def _act(games: GameService, game_id: str, rng: Any, kept: dict[int, Any]) -> bool:
    loaded = await games.load(game_id)
    if not loaded.awaited:
        return False
    action = rng.choice(loaded.awaited)
    seat = action.seat
    act: Any
    if action.action == "reveal":
        act = RevealSeal(seat, *kept[seat])
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
    except DomainError:
        return True
    return True


async def _cold_ms(store: EventStore, game_id: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        games = GameService(store)
        start = time.perf_counter()
        await games.load(game_id)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def _snapshot_at(store: EventStore, games: GameService, game_id: str, every: int) -> int:
    """Keep the snapshot the follow-ups would have kept by now (at the last multiple)."""
    loaded = await games.load(game_id)
    at = loaded.match.version // every * every
    if at == 0:
        return 0
    past = await games.at_version(loaded, at)
    entry = (await store.read(game_id, at - 1, 1))[0]
    await store.redis.delete(snapshot_key(game_id))
    state = snapshots.encode(past.match)
    await store.keep_snapshot(game_id, at, entry.tip, snapshots.snapshot_format(), state)
    return at


async def run(url: str, every: int, repeat: int, seed: int) -> None:
    import random

    client = redis.asyncio.Redis.from_url(url)
    store = EventStore(client)
    games = GameService(store)
    rng = random.Random(seed)
    made = await games.create(
        NewGame("bench", "bonnie_clyde", {"target": 100}, [SeatSpec("human")] * 3)
    )
    game_id = made.game_id
    kept: dict[int, Any] = {}
    print(f"| events | whole stream, ms | from a snapshot (every {every}), ms | ratio |")
    print("|---|---|---|---|")
    pending = list(CHECKPOINTS)
    while True:
        more = await _act(games, game_id, rng, kept)
        version = (await games.load(game_id)).match.version
        if pending and (version >= pending[0] or not more):
            pending.pop(0)
            await client.delete(snapshot_key(game_id))
            whole = await _cold_ms(store, game_id, repeat)
            at = await _snapshot_at(store, games, game_id, every)
            snapped = await _cold_ms(store, game_id, repeat)
            await client.delete(snapshot_key(game_id))
            print(
                f"| {version} | {whole:.2f} | {snapped:.2f} (snapshot at {at}) |"
                f" {whole / snapped:.1f}x |"
            )
        if not more:
            break
    store.close()
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder))
        url = server.start()
        try:
            asyncio.run(run(url, args.every, args.repeat, args.seed))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
