"""The capacity model: Redis bytes per hot and per archived game, by kind, and the hot set
before and after. Not a test.

    .venv/bin/python bench/retention.py [--games 1000] [--seats bots|humans] [--window 5]

Plays ``--games`` games (a third of each kind: FBI and The Feds with four seats, Bonnie and
Clyde with three to 100 points) on an embedded Valkey, many at once, in this process
through the service's own code: bot seats through `BotTurns` (the worker's bot turn, with its
idempotency keys and kept sealed choices), or with ``--seats humans`` random legal acts
under an Idempotency-Key each, as an HTTP client's (the key and fingerprint stored as the
API stores them). Each game's result is recorded as the scoring job records it and its
follow-up run by a worker's outbox dispatcher schedules its archive job; two real game
worker processes (``stakeout worker``: they also take the bot turns the dispatcher asks for,
which the bench has played already, harmlessly) archive the games once ``--window`` seconds
have passed
(``STAKEOUT_ARCHIVE_AFTER_SECONDS``; RQ's records of the jobs expire as fast:
``STAKEOUT_JOB_RESULT_TTL_SECONDS``).

Bytes are ``MEMORY USAGE <key> SAMPLES 0`` summed: a game's keys as soon as its result is
recorded (hot), and its archive once archived. The hot set is every key but the archives,
the API keys' histories (their game lists and counted games: they grow by one entry per
game ever played, printed apart) and the keys of the queue's Redis (RQ's, the workers'
heartbeats, metrics and recovery marks, all with TTLs or of a fixed size; printed apart).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

import msgspec
import redis.asyncio

from domain.errors import DomainError
from domain.match import CommitSeal, MakeMove, RevealSeal, SeatSpec
from domain.sealed import commitment
from service.ops.embedded import EmbeddedRedis
from service.play.game_service import NewGame
from service.play.records import Submission
from service.play.results import record_result
from service.settings import Settings
from service.store.clients import WORKER_TIMEOUT_SECONDS
from service.store.keys import seat_idempotency
from service.wiring import Wiring, open_wiring

ROOT = Path(__file__).resolve().parents[1]
KINDS: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("fbi", 4, {}),
    ("feds", 4, {}),
    ("bonnie_clyde", 3, {"target": 100}),
)
TARGET_RATIO = 0.15
TARGET_HOT_SET = 0.10


class Tally:
    """One kind's games: events, hot bytes and archived bytes of each (a plain class: the
    benches' import test loads this module outside sys.modules, where no dataclass can be
    made)."""

    def __init__(self) -> None:
        self.events: list[int] = []
        self.hot: list[int] = []
        self.archived: list[int] = []


async def _usage(client: Any, keys: list[bytes]) -> list[int]:
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.memory_usage(key, samples=0)
    return [int(v or 0) for v in await pipe.execute()]


async def _game_bytes(client: Any, game_id: str) -> int:
    keys = [k async for k in client.scan_iter(match=f"game:{{{game_id}}}:*", count=1000)]
    return sum(await _usage(client, keys))


async def _sets(client: Any) -> dict[str, int]:
    """Bytes of the hot set, the archives, the API keys' histories and RQ's keys."""
    out: dict[str, int] = defaultdict(int)
    keys = [k async for k in client.scan_iter(count=1000)]
    for key, used in zip(keys, await _usage(client, keys), strict=True):
        text = key.decode()
        if text.endswith(":archive"):
            out["archives"] += used
        elif text.startswith("owner:") and text.endswith(("}:games", "}:stats-counted")):
            out["histories"] += used
        elif text.startswith(("rq:", "stakeout:worker-", "stakeout:metrics:")):
            out["rq"] += used  # the queue's Redis (service/store/keys.py): RQ and the workers
        else:
            out["hot"] += used
    return out


async def _human_act(
    wiring: Wiring, game_id: str, rng: random.Random, kept: dict[int, Any]
) -> None:
    loaded = await wiring.games.load(game_id)
    action = rng.choice(loaded.awaited)
    seat = action.seat
    act: Any
    if action.action == "reveal":
        act = RevealSeal(seat, *kept.pop(seat))
    else:
        move = msgspec.to_builtins(rng.choice(loaded.engine.legal(loaded.match, seat)))
        if action.action == "move":
            act = MakeMove(seat, move)
        else:
            salt = secrets.token_hex(16)
            kept[seat] = (move, salt)
            act = CommitSeal(seat, commitment(game_id, action.step, seat, move, salt), action.step)
    # As the API stores a client's key: namespaced by the seat, with the request's SHA-256.
    key = seat_idempotency(seat, secrets.token_urlsafe(16))
    fingerprint = hashlib.sha256(msgspec.json.encode(act)).hexdigest()
    await wiring.games.act(Submission(game_id, act, key=key, fingerprint=fingerprint))


async def _play(
    wiring: Wiring, kind: tuple[str, int, dict[str, Any]], humans: bool, seed: int
) -> str:
    name, seats, options = kind
    spec = SeatSpec("human") if humans else SeatSpec("bot", "random")
    made = await wiring.games.create(NewGame("bench", name, options, [spec] * seats))
    game_id, rng = made.game_id, random.Random(seed)
    kept: dict[int, Any] = {}
    while True:
        loaded = await wiring.games.load(game_id)
        if loaded.engine.result(loaded.match) is not None:
            said = await record_result(wiring.games, wiring.stats, game_id)
            if (await wiring.games.load(game_id)).match.recorded is None:
                raise RuntimeError(f"game {game_id}: {said}")
            return game_id
        if humans:
            await _human_act(wiring, game_id, rng, kept)
            continue
        for action in loaded.awaited:
            with contextlib.suppress(DomainError):
                await wiring.bots.play(game_id, action.seat, loaded.match.version)


def _workers(url: str, window: int) -> list[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        "REDIS_URL": url,
        "LOG_LEVEL": "WARNING",
        "STAKEOUT_ARCHIVE_AFTER_SECONDS": str(window),
        "STAKEOUT_JOB_RESULT_TTL_SECONDS": str(window),
    }
    command = [sys.executable, "-m", "stakeout.cli", "worker"]
    return [subprocess.Popen(command, env=env, cwd=ROOT, start_new_session=True) for _ in range(2)]


async def _batch(
    wiring: Wiring, client: Any, games: int, humans: bool, at_once: int, first: int
) -> tuple[dict[str, Tally], float]:
    """Play ``games`` games, each measured once its result is recorded (its follow-up, on a
    worker, schedules its archive); wait until the workers archived them all.
    Returns the tallies and the seconds the games took."""
    tallies: dict[str, Tally] = {name: Tally() for name, _, _ in KINDS}
    gate = asyncio.Semaphore(at_once)
    started = time.monotonic()

    async def one(i: int) -> str:
        kind = KINDS[i % len(KINDS)]
        async with gate:
            game_id = await _play(wiring, kind, humans, first + i)
            loaded = await wiring.games.load(game_id)
            tally = tallies[kind[0]]
            tally.events.append(loaded.match.version)
            tally.hot.append(await _game_bytes(client, game_id))
            return game_id

    ids = await asyncio.gather(*(one(i) for i in range(games)))
    played = time.monotonic() - started
    waited = time.monotonic()
    while True:
        states = [await wiring.store.state(g) for g in ids]
        left = sum(where != "archived" for where, _, _ in states)
        if not left:
            break
        if time.monotonic() - waited > 600:
            raise RuntimeError(f"{left} games were not archived (are the workers up?)")
        await asyncio.sleep(1)
    for i, game_id in enumerate(ids):
        tallies[KINDS[i % len(KINDS)][0]].archived.append(await _game_bytes(client, game_id))
    return tallies, played


async def _settled(client: Any, window: int) -> tuple[dict[str, int], int]:
    """The sets once RQ's records of the jobs expired (after the window) and its registries
    were cleaned by the workers' maintenance (every 15 s)."""
    await asyncio.sleep(window + 20)
    return await _sets(client), int((await client.info("memory"))["used_memory"])


async def run(url: str, games: int, humans: bool, window: int, at_once: int) -> None:
    client = redis.asyncio.Redis.from_url(url)
    settings = Settings(
        redis_url=url, archive_after_seconds=window, job_result_ttl_seconds=window,
        max_active_games=0,
    )  # fmt: skip
    workers = _workers(url, window)
    try:
        # The workers' timeout: the bench loads the machine as no API request path would.
        async with open_wiring(settings, WORKER_TIMEOUT_SECONDS) as wiring:
            # A first few games, so that what does not grow with the games exists (the API
            # key's statistics, the workers' metrics): the hot set "before".
            await _batch(wiring, client, 2 * len(KINDS), humans, at_once, 10**6)
            before, before_memory = await _settled(client, window)
            tallies, played = await _batch(wiring, client, games, humans, at_once, 0)
            print(f"{games} games played in {played:.0f} s and archived")
            after, after_memory = await _settled(client, window)
            left = sorted([k.decode() async for k in client.scan_iter(count=1000)])
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
        await client.aclose()
    _report(tallies, before, after, before_memory, after_memory, games, humans)
    queue = ("rq:", "stakeout:worker-", "stakeout:metrics:")
    hot = [k for k in left if not k.endswith(":archive") and not k.startswith(queue)]
    print(f"hot keys after: {len(hot)}: {', '.join(hot[:12])}")


def _report(
    tallies: dict[str, Tally],
    before: dict[str, int],
    after: dict[str, int],
    before_memory: int,
    after_memory: int,
    games: int,
    humans: bool,
) -> None:
    seats = "humans, an Idempotency-Key per act" if humans else "random bots"
    print(f"\n{games} games, {seats}\n")
    print("| kind | games | events per game | hot bytes per game | archived bytes per game"
          " | archived / hot | target <= 15 % |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, tally in tallies.items():
        hot, archived = statistics.mean(tally.hot), statistics.mean(tally.archived)
        ratio = archived / hot
        print(
            f"| {name} | {len(tally.hot)} | {statistics.mean(tally.events):,.0f}"
            f" (max {max(tally.events):,}) | {hot:,.0f} | {archived:,.0f} | {ratio:.1%} |"
            f" {'met' if ratio <= TARGET_RATIO else 'MISSED'} |"
        )
    history = after["histories"] / games
    print(f"\nhistories (an API key's game list and counted games): {history:,.0f} bytes a game")
    grown = (after["hot"] - before["hot"]) / max(before["hot"], 1)
    verdict = "met" if grown <= TARGET_HOT_SET else "MISSED"
    print(
        f"hot set: {before['hot']:,} bytes before, {after['hot']:,} after ({grown:+.1%};"
        f" target within 10 %: {verdict})"
    )
    print(
        f"the queue's keys (RQ's, the workers' heartbeats, metrics and recovery marks):"
        f" {before['rq']:,} bytes before, {after['rq']:,} after"
    )
    print(f"archives: {after['archives']:,} bytes in all")
    print(f"used_memory (INFO): {before_memory:,} before, {after_memory:,} after")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seats", choices=("bots", "humans"), default="bots")
    parser.add_argument("--window", type=int, default=5, help="seconds before archiving")
    parser.add_argument("--at-once", type=int, default=64, help="games played at once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder))
        url = server.start()
        try:
            asyncio.run(run(url, args.games, args.seats == "humans", args.window, args.at_once))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
