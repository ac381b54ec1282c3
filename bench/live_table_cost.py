"""API CPU per act before issue 34 and after, without and with a clock and presence, in one
run. Not a test.

    .venv/bin/python bench/live_table_cost.py BASELINE [--acts 120] [--rounds 4] [--pairs 2]

BASELINE is a checkout of the code before issue 34 with a venv of its own (for example
`git worktree add --detach ../base 41091a1 && make -C ../base .venv/.installed-stamp`).
Starts a Valkey for each build and real API processes (`stakeout serve`), ``--pairs`` of
each kind:

- ``before``: the baseline's API (its own interpreter and checkout), games without a clock;
- ``no clock``: this build, default settings (presence on, 30 s), games without a clock;
- ``no clock, presence off``: this build with ``STAKEOUT_PRESENCE_SECONDS=0``;
- ``clock + presence``: this build, default settings, games with a clock of a day (banks
  charged every act, no flag falls).

Every kind gets the same client: 4-player FBI games, every seat human, each act a GET of
the acting seat's view (its token: presence written) and the POST of a legal act, with seat
0's NDJSON event feed open for the whole game (a live feed of its own: presence's lease and
watch). No workers (follow-ups wait in the outbox, the same for all). Each round runs
``--acts`` acts on every process in a shuffled (seeded) order, so all kinds share the
machine's load. CPU is the API process's user + system time from /proc over the round (the
acts and whatever it does meanwhile), divided by the acts. Printed: each kind's median,
min and max over rounds and processes, and each kind's ratio to ``before`` (the ratio of
medians, and the min and max of the per-round ratios). Needs Linux (/proc).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import secrets
import statistics
import tempfile
import threading
from pathlib import Path
from typing import Any

import httpx

from domain.sealed import commitment
from tests.processes import Processes, embedded_redis, running, service_env

ROOT = Path(__file__).resolve().parents[1]
API_KEY = "sk_bench_live_table"
CLOCK = {"initial_seconds": 86400, "increment_seconds": 30, "on_time_out": "bot_seat"}
BEFORE = "before"
# name -> (baseline build?, clock?, presence seconds or None for the default)
KINDS: dict[str, tuple[bool, bool, int | None]] = {
    BEFORE: (True, False, None),
    "no clock": (False, False, None),
    "no clock, presence off": (False, False, 0),
    "clock + presence": (False, True, None),
}


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of the process and its waited-for children (/proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
    return ticks / os.sysconf("SC_CLK_TCK")


class Api:
    """An API process (`stakeout serve`) of ``checkout``'s own build, and a client of it."""

    def __init__(self, procs: Processes, checkout: Path, redis_url: str, presence: int | None):
        extra = {"STAKEOUT_API_KEYS": API_KEY, "STAKEOUT_MAX_ACTIVE_GAMES": "0"}
        if presence is not None:
            extra["STAKEOUT_PRESENCE_SECONDS"] = str(presence)
        python = str(checkout / ".venv" / "bin" / "python")
        served = procs.api(service_env(redis_url, **extra), timeout=90, python=python, cwd=checkout)
        self.proc, self.base = served.proc, served.base
        self.client = httpx.Client(base_url=self.base, timeout=30)


class Feed(threading.Thread):
    """Seat 0's NDJSON event feed, read to its end (or until closed)."""

    def __init__(self, base: str, game_id: str, token: str) -> None:
        super().__init__(daemon=True)
        self.url = f"{base}/v1/games/{game_id}/stream"
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/x-ndjson"}
        self.lines = 0
        self.stop = threading.Event()
        self.opened = threading.Event()

    def run(self) -> None:
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(30, read=None)) as client,
                client.stream("GET", self.url, headers=self.headers) as answer,
            ):
                self.opened.set()
                for _ in answer.iter_lines():
                    self.lines += 1
                    if self.stop.is_set():
                        return
        except httpx.HTTPError:
            pass
        finally:
            self.opened.set()


class Table:
    """One FBI game of four human seats, played act by act, seat 0's feed open."""

    def __init__(self, api: Api, rng: random.Random, clock: bool) -> None:
        self.api, self.rng = api, rng
        body: dict[str, Any] = {"game": "fbi", "seats": [{"type": "human"}] * 4}
        if clock:
            body["clock"] = CLOCK
        created = api.client.post(
            "/v1/games", json=body, headers={"Authorization": f"Bearer {API_KEY}"}
        )
        assert created.status_code == 201, created.text
        self.game_id = created.json()["id"]
        self.tokens = [s["token"] for s in created.json()["seats"]]
        self.kept: dict[int, tuple[Any, str]] = {}
        self.over = False
        self.feed = Feed(api.base, self.game_id, self.tokens[0])
        self.feed.start()
        self.feed.opened.wait(10)

    def close(self) -> None:
        self.feed.stop.set()

    def act(self) -> None:
        """One act: a GET of the acting seat's view, then the POST."""
        base = f"/v1/games/{self.game_id}"
        spectator = self.api.client.get(base).json()
        if spectator["status"] != "active" or not spectator["awaiting"]:
            self.over = True
            return
        action = spectator["awaiting"][0]
        seat = action["seat"]
        headers = {"Authorization": f"Bearer {self.tokens[seat]}"}
        view = self.api.client.get(base, headers=headers).json()
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
        answer = self.api.client.post(path, json=body, headers=headers)
        assert answer.status_code == 200, answer.text


def _round(api: Api, clock: bool, acts: int, rng: random.Random) -> float:
    """API CPU seconds per act over ``acts`` acts (new tables as games end)."""
    table = Table(api, rng, clock)
    cpu = _cpu_seconds(api.proc.pid)
    done = 0
    while done < acts:
        if table.over:
            table.close()
            table = Table(api, rng, clock)
        table.act()
        if not table.over:
            done += 1
    cpu = _cpu_seconds(api.proc.pid) - cpu
    table.close()
    return cpu / acts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("baseline", type=Path, help="a checkout of before issue 34, with .venv")
    parser.add_argument("--acts", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--pairs", type=int, default=2)
    args = parser.parse_args()
    baseline = args.baseline.resolve()
    if not (baseline / ".venv" / "bin" / "python").exists():
        raise SystemExit(f"{baseline} has no .venv (make .venv/.installed-stamp there)")
    rng = random.Random(34)
    figures: dict[str, list[float]] = {name: [] for name in KINDS}
    by_round: list[dict[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        work = Path(tmp)
        urls = {b: stack.enter_context(embedded_redis(work / f"valkey-{b}")) for b in (True, False)}
        procs = stack.enter_context(running(work))
        apis: list[tuple[str, Api]] = []
        for name, (old, _, presence) in KINDS.items():
            checkout = baseline if old else ROOT
            for _ in range(args.pairs):
                apis.append((name, Api(procs, checkout, urls[old], presence)))
                stack.callback(apis[-1][1].client.close)
        for name, api in apis:  # warm up: imports, caches, scripts loaded
            _round(api, KINDS[name][1], 30, rng)
        for r in range(args.rounds):
            this_round: dict[str, list[float]] = {name: [] for name in KINDS}
            for name, api in random.Random(rng.random()).sample(apis, len(apis)):
                ms = _round(api, KINDS[name][1], args.acts, rng) * 1000
                figures[name].append(ms)
                this_round[name].append(ms)
            by_round.append(this_round)
            line = ", ".join(f"{n} {statistics.median(v):.3f}" for n, v in this_round.items())
            print(f"round {r + 1}: API CPU ms an act: {line}", flush=True)
    print(
        f"{args.pairs} API processes of each kind, {args.rounds} rounds of {args.acts} acts "
        "per process (4-player FBI, all human, seat 0's feed open)"
    )
    print(f"{'kind':>24} {'median':>8} {'min':>7} {'max':>7}  vs before: median (rounds min-max)")
    before = statistics.median(figures[BEFORE])
    for name, values in figures.items():
        ratios = [statistics.median(rnd[name]) / statistics.median(rnd[BEFORE]) for rnd in by_round]
        print(
            f"{name:>24} {statistics.median(values):8.3f} {min(values):7.3f} {max(values):7.3f}"
            f"  {statistics.median(values) / before:.3f} ({min(ratios):.3f}-{max(ratios):.3f})"
        )


if __name__ == "__main__":
    main()
