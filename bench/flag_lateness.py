"""How late a clock's flag falls while game workers are SIGKILLed again and again (issue
34: at most 2 s). Not a test.

    .venv/bin/python bench/flag_lateness.py [--games 24] [--every 0.8] [--seconds 8]

Starts its own embedded Valkey, one `stakeout serve` and one game worker (its RQ jobs, its
scheduler and the outbox's dispatcher), SIGKILLed with its whole process group every 3 to
5 s (seeded, as bench/kill_storm.py does) and started again at once, until every flag has
fallen. The games are FBI with a human seat 0 that never acts and three random bots, a
clock of ``--seconds`` with no increment and ``bot_seat``; one is made every ``--every``
seconds, so their flags fall at moments spread over the storm, some just before or after a
kill, some while no worker is up yet. A flag's due moment is the deadline the view showed
for seat 0 (when its bank runs out); its fall is the ``at_ms`` the log recorded on the
``clock.flagged`` event. Prints each flag's lateness and the time since the last kill
before its due moment, then p50, p99 and the max.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import API_KEY, auth
from tests.processes import service_env, valkey_and_processes

SEED = 3434
BOTS = [{"type": "bot", "level": "random"}] * 3


def flagged_at(http: httpx.Client, game_id: str) -> int | None:
    """The ``at_ms`` of the game's first ``clock.flagged`` event, if any yet."""
    after = 0
    while True:
        page: Any = http.get(f"/v1/games/{game_id}/events", params={"after": after}).json()
        for record in page["events"]:
            if record["event"]["type"] == "clock.flagged":
                return int(record["at_ms"])
        if not page["has_more"]:
            return None
        after = page["next_after"]


def seat_0_due(http: httpx.Client, game_id: str) -> int | None:
    awaiting = http.get(f"/v1/games/{game_id}").json()["awaiting"]
    return next((a["deadline"] for a in awaiting if a["seat"] == 0 and a["deadline"]), None)


def percentile(values: list[int], p: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def main(games: int, every: float, seconds: int) -> None:
    rng = random.Random(SEED)
    clock = {"initial_seconds": seconds, "increment_seconds": 0, "on_time_out": "bot_seat"}
    with valkey_and_processes() as (url, procs):
        env = service_env(url)
        api = procs.api(env, timeout=60)
        with httpx.Client(base_url=api.base, timeout=30) as http:
            worker = procs.worker(env)
            ids: list[str] = []
            due: dict[str, int] = {}
            fell: dict[str, int] = {}
            kill_ms: list[int] = []
            next_game = time.monotonic()
            next_kill = time.monotonic() + rng.uniform(3.0, 5.0)
            give_up = time.monotonic() + games * every + seconds + 180
            while len(fell) < games and time.monotonic() < give_up:
                now = time.monotonic()
                if len(ids) < games and now >= next_game:
                    body = {"game": "fbi", "seats": [{"type": "human"}, *BOTS], "clock": clock}
                    created = http.post("/v1/games", json=body, headers=auth(API_KEY))
                    assert created.status_code == 201, created.text
                    ids.append(created.json()["id"])
                    next_game = now + every
                if now >= next_kill:
                    procs.kill(worker)
                    kill_ms.append(int(time.time() * 1000))
                    worker = procs.worker(env)
                    next_kill = now + rng.uniform(3.0, 5.0)
                for game_id in ids:
                    if game_id not in due:
                        found = seat_0_due(http, game_id)
                        if found is not None:
                            due[game_id] = found
                    elif game_id not in fell and time.time() * 1000 >= due[game_id]:
                        at = flagged_at(http, game_id)
                        if at is not None:
                            fell[game_id] = at
                time.sleep(0.05)
    late: list[int] = []
    for game_id in ids:
        if game_id not in fell:
            print(f"game {game_id}: no flag within the run (due {due.get(game_id)})")
            continue
        lateness = fell[game_id] - due[game_id]
        late.append(lateness)
        before = [k for k in kill_ms if k <= due[game_id]]
        since = f"{(due[game_id] - before[-1]) / 1000:.1f} s" if before else "none"
        print(f"game {game_id}: flag {lateness} ms late; last kill before due: {since}")
    print(
        f"{len(late)} flags, {len(kill_ms)} kills: lateness p50 {percentile(late, 0.5)} ms, "
        f"p99 {percentile(late, 0.99)} ms, max {max(late)} ms "
        f"(mean {statistics.fmean(late):.0f} ms, earliest {min(late)} ms)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--every", type=float, default=0.8, help="seconds between new games")
    parser.add_argument("--seconds", type=int, default=8, help="the clock's bank")
    args = parser.parse_args()
    main(args.games, args.every, args.seconds)
