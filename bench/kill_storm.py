"""The longest a game stalls while its game worker is SIGKILLed again and again. Not a test.

    .venv/bin/python bench/kill_storm.py [--seconds 60] [--games 9] [--game mix]

Starts its own embedded Valkey, one `stakeout serve`, and a game worker (its RQ jobs and the
outbox's dispatcher) that is SIGKILLed, with its whole process group, every 3 to 5 s
(seeded) for ``--seconds``, a new one started each time. The games are 3-seat games of
bots, so every move waits on the workers: with ``--game mix`` (the default) every kind at
every bot level in turn (``random``, ``greedy``, ``expert``; Bonnie and Clyde to 100
points: long games, still running when the storm ends), else ``--game``'s random bots.

A game's stall is the longest time between two of its changes while it was not over, read
from the times its stream records (each entry holds when it was appended), during the storm.
Prints each game's worst stall, the worst by kind and level, the worst of all, and how many
moves the games made during the storm. `tests/scale/test_outbox_faults.py` checks the same
storm for correctness (every game finished and scored, nothing twice); this says how long
it took.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import API_KEY, auth
from tests.processes import service_env, valkey_and_processes

SEED = 4242
KINDS = ("fbi", "feds", "bonnie_clyde")
LEVELS = ("random", "greedy", "expert")


def append_times(connection: redis.Redis, game_id: str) -> list[int]:
    """When each entry of the game's stream was appended (epoch ms)."""
    rows = connection.xrange(f"game:{{{game_id}}}:events")
    return sorted({int(fields[b"t"]) for _, fields in rows or [] if fields})


def worst_gap(times: list[int], start_ms: int, end_ms: int, over: bool) -> tuple[int, int]:
    """The longest gap (from, to) between two appends within [start, end], counting the gap
    from the start to the first and, for a game not over, from the last to the end."""
    inside = [t for t in times if start_ms <= t <= end_ms]
    marks = [start_ms, *inside] if over and inside else [start_ms, *inside, end_ms]
    return max(itertools.pairwise(marks), key=lambda gap: gap[1] - gap[0], default=(0, 0))


def last_event_before(connection: redis.Redis, game_id: str, at_ms: int) -> str:
    """The type of the game's last event appended at or before ``at_ms``."""
    kind = "?"
    rows: Any = connection.xrange(f"game:{{{game_id}}}:events") or []
    for _, fields in rows:
        if int(fields.get(b"t", 0)) > at_ms:
            break
        text = bytes(fields.get(b"e", b""))
        start = text.find(b'"type":"')
        if start >= 0:
            kind = text[start + 8 : text.find(b'"', start + 8)].decode()
    return kind


def main(seconds: float, games: int, game: str) -> None:
    rng = random.Random(SEED)
    with (
        valkey_and_processes() as (url, procs),
        redis.Redis.from_url(url) as connection,
    ):
        env = service_env(url)
        api = procs.api(env, timeout=60)
        mix = [(k, lv) for lv in LEVELS for k in KINDS] if game == "mix" else [(game, "random")]
        kinds = [mix[i % len(mix)] for i in range(games)]
        with httpx.Client(base_url=api.base, timeout=30) as http:
            worker = procs.worker(env)
            ids = [
                http.post(
                    "/v1/games",
                    json={
                        "game": name,
                        "seats": [{"type": "bot", "level": level}] * 3,
                        "options": {"target": 100} if name == "bonnie_clyde" else {},
                    },
                    headers=auth(API_KEY),
                ).json()["id"]
                for name, level in kinds
            ]
            time.sleep(3)  # under way before the storm
            start_ms = int(time.time() * 1000)
            kill_ms: list[int] = []
            stop = time.monotonic() + seconds
            while time.monotonic() < stop:
                time.sleep(rng.uniform(3.0, 5.0))
                procs.kill(worker)
                kill_ms.append(int(time.time() * 1000))
                worker = procs.worker(env)
            kills = len(kill_ms)
            end_ms = int(time.time() * 1000)
            over = {g: http.get(f"/v1/games/{g}").json()["status"] != "active" for g in ids}
            times = {g: append_times(connection, g) for g in ids}
            gaps = {g: worst_gap(times[g], start_ms, end_ms, over[g]) for g in ids}
            stalls = {g: (gaps[g][1] - gaps[g][0]) / 1000 for g in ids}
            during = sum(1 for g in ids for t in times[g] if start_ms <= t <= end_ms)
            by_kind: dict[tuple[str, str], list[float]] = {}
            for (name, level), game_id in zip(kinds, ids, strict=True):
                stall = stalls[game_id]
                by_kind.setdefault((name, level), []).append(stall)
                since, until = gaps[game_id]
                inside = [f"{(k - since) / 1000:.1f}" for k in kill_ms if since <= k <= until]
                print(
                    f"game {game_id} ({name}, {level}): longest stall {stall:.1f} s, from"
                    f" {(since - start_ms) / 1000:.1f} s into the storm, after"
                    f" {last_event_before(connection, game_id, since)}; kills at +"
                    f"{', +'.join(inside) or 'none'} s"
                )
            for (name, level), worst in sorted(by_kind.items()):
                print(f"{name}, {level}: longest stall {max(worst):.1f} s")
            print(
                f"{kills} kills in {seconds:.0f} s; {during} changes made meanwhile; longest "
                f"stall of any game {max(stalls.values()):.1f} s (median of the games' worst "
                f"{statistics.median(stalls.values()):.1f} s)"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--games", type=int, default=9)
    parser.add_argument("--game", default="mix", help="mix, or one kind (random bots)")
    args = parser.parse_args()
    main(args.seconds, args.games, args.game)
