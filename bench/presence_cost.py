"""What presence costs an act: API CPU and Redis commands per act, off and on. Not a test.

    .venv/bin/python bench/presence_cost.py [--acts 150] [--rounds 4]

Starts a Valkey server and real API processes (`stakeout serve`) on it, ``--pairs`` with
``STAKEOUT_PRESENCE_SECONDS=0`` (off) and as many with the default 30 (on); no workers (the
follow-ups wait in the outbox, the same for both). A client plays 4-player FBI games
(every seat human) the way a table does: each act is a GET of the acting seat's view and
the POST of a legal move, commitment or reveal. Each round runs ``--acts`` acts on every
process in a shuffled order (seeded), so both kinds see the same machine load.

For each process it prints, per act: its CPU time (user + system, from /proc: the GET and
the POST together, and anything the process does meanwhile, such as presence's writes
every 0.25 s), the Redis commands Valkey counted while the POSTs were answered
(``INFO commandstats``; the act's own round trips), and all the commands Valkey counted
during the round (the GETs' reads, presence's batched writes and reads). Then the ratios
on / off. Needs Linux (/proc).

On the development machine (2 cores, shared), ``--acts 200 --rounds 8 --pairs 3``: API CPU
2.25 ms an act off, 2.28 on (1.01); the commands while a POST is answered 6.34 and 6.38
(the +0.04 is presence's batched write of another moment landing in the window: the act
itself sends nothing more); all commands 14.51 and 14.61 an act. The CPU ratio moves
between about 0.9 and 1.2 from run to run when other work loads the machine (a run with
both kinds off gave 0.79 with one process of each), hence several processes of each kind.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import secrets
import statistics
from pathlib import Path
from typing import Any

import httpx
import redis

from domain.sealed import commitment
from tests.processes import Processes, service_env, valkey_and_processes

API_KEY = "sk_bench_presence"


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of the process and its waited-for children (/proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
    return ticks / os.sysconf("SC_CLK_TCK")


def _commands(client: redis.Redis) -> int:
    stats: Any = client.info("commandstats")
    return sum(int(v["calls"]) for v in stats.values())


class Api:
    """An API process (`stakeout serve`) with presence on or off, and a client of it."""

    def __init__(self, procs: Processes, redis_url: str, presence_seconds: int) -> None:
        env = service_env(
            redis_url,
            STAKEOUT_API_KEYS=API_KEY,
            STAKEOUT_PRESENCE_SECONDS=str(presence_seconds),
        )
        served = procs.api(env, timeout=60)
        self.proc = served.proc
        self.client = httpx.Client(base_url=served.base, timeout=30)


class Table:
    """One FBI game of four human seats, played act by act."""

    def __init__(self, api: Api, rng: random.Random) -> None:
        self.api, self.rng = api, rng
        created = api.client.post(
            "/v1/games",
            json={"game": "fbi", "seats": [{"type": "human"}] * 4},
            headers={"Authorization": f"Bearer {API_KEY}"},
        ).json()
        self.game_id = created["id"]
        self.tokens = [s["token"] for s in created["seats"]]
        self.kept: dict[int, tuple[Any, str]] = {}
        self.over = False

    def act(self, store: redis.Redis) -> int:
        """One act (a GET of the view, then the POST); the commands during the POST."""
        spectator = self.api.client.get(f"/v1/games/{self.game_id}").json()
        if spectator["status"] != "active" or not spectator["awaiting"]:
            self.over = True
            return 0
        action = spectator["awaiting"][0]
        seat = action["seat"]
        headers = {"Authorization": f"Bearer {self.tokens[seat]}"}
        view = self.api.client.get(f"/v1/games/{self.game_id}", headers=headers).json()
        base = f"/v1/games/{self.game_id}"
        if action["action"] == "move":
            path, body = f"{base}/moves", self.rng.choice(view["legal"])
        elif action["action"] == "commit":
            move, salt = self.rng.choice(view["legal"]), secrets.token_hex(16)
            self.kept[seat] = (move, salt)
            digest = commitment(self.game_id, action["step"], seat, move, salt)
            path, body = f"{base}/commitments", {"commitment": digest}
        else:
            move, salt = self.kept.pop(seat)
            path, body = f"{base}/reveals", {"move": move, "salt": salt}
        before = _commands(store)
        answer = self.api.client.post(path, json=body, headers=headers)
        during = _commands(store) - before - 1  # less the INFO itself
        assert answer.status_code == 200, answer.text
        return during


def _round(
    api: Api, store: redis.Redis, acts: int, rng: random.Random
) -> tuple[float, float, float]:
    """CPU s, POST commands and all commands, each per act, over ``acts`` acts."""
    table = Table(api, rng)
    cpu, total = _cpu_seconds(api.proc.pid), _commands(store)
    posts = done = 0
    while done < acts:
        if table.over:
            table = Table(api, rng)
        during = table.act(store)
        if not table.over:
            posts += during
            done += 1
    cpu = _cpu_seconds(api.proc.pid) - cpu
    # Each act's two INFO reads of its own, and the round's two, are the bench's.
    total = _commands(store) - total - 2 * acts - 1
    return cpu / acts, posts / acts, total / acts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--acts", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(34)
    figures: dict[str, list[tuple[float, float, float]]] = {"off": [], "on": []}
    with (
        valkey_and_processes() as (url, procs),
        redis.Redis.from_url(url) as store,
        contextlib.ExitStack() as clients,
    ):
        # Several processes of each: one process may run faster than its twin throughout
        # (measured: two identical processes differed by 20 %).
        apis = [("off", Api(procs, url, 0)) for _ in range(args.pairs)]
        apis += [("on", Api(procs, url, 30)) for _ in range(args.pairs)]
        for _, api in apis:
            clients.callback(api.client.close)
        for _, api in apis:  # warm up: imports, caches, scripts loaded
            _round(api, store, 30, rng)
        for _ in range(args.rounds):
            for name, api in random.Random(rng.random()).sample(apis, len(apis)):
                figures[name].append(_round(api, store, args.acts, rng))
    print(
        f"{args.pairs} API processes each, {args.rounds} rounds of {args.acts} acts per "
        "process (4-player FBI, all human); medians over rounds and processes"
    )
    print(f"{'presence':>9} {'API CPU ms/act':>15} {'POST cmds/act':>14} {'all cmds/act':>13}")
    medians: dict[str, tuple[float, float, float]] = {}
    for name, rows in figures.items():
        cpu = statistics.median(r[0] for r in rows) * 1000
        post = statistics.median(r[1] for r in rows)
        total = statistics.median(r[2] for r in rows)
        medians[name] = (cpu, post, total)
        print(f"{name:>9} {cpu:15.3f} {post:14.2f} {total:13.2f}")
    off, on = medians["off"], medians["on"]
    print(f"on / off: API CPU {on[0] / off[0]:.3f}, POST commands {on[1] - off[1]:+.2f} per act")


if __name__ == "__main__":
    main()
