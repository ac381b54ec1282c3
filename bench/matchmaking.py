"""Matchmaking and leaderboard figures (issue 30). Not a test.

    .venv/bin/python bench/matchmaking.py [--seconds 10] [--rates 20,100,400]
    .venv/bin/python bench/matchmaking.py --flood [--rounds 7] [--backlog 2000] [--ref REV]

On a real Valkey it starts, in one process (the API's ticket desk and a game worker's
matcher, each as the service builds them):

1. Throughput: a backlog of tickets (2-player fbi, people only, players all at mu 25) is
   made at once, then the matcher's passes run back to back until every one is matched:
   tickets matched per second of matching.
2. Time to a match: tickets arrive at a steady rate for ``--seconds`` while the matcher runs
   as on a worker (a pass every 0.25 s); the time from a ticket's creation to its match
   (median, 95th percentile, max) and the tickets matched per second, at each rate.
3. The leaderboard's read cost with 1,000 and with 100,000 rated players (side by side in
   one run, three times each in turn, the fastest kept: compare the ratios): the top page, a
   page deep down, ``?around=`` a player, a player's rating. Each read is the store's own
   calls (what an API answer costs in Redis).

``--flood`` (issue 35) measures instead, against real processes (a Valkey, an API process,
a game worker and, where the build has one, a matchmaking worker), what one API key's
backlog of tickets costs another key. Builds, one after the other in one run: ``--ref``
(default ``5358476``, before the caps; exported with ``git archive``, run with this venv;
its matcher is a thread of the game worker), this tree as `stakeout run` runs it (the
matcher in a process of its own), and this tree with the matcher on the game worker's
thread (a plain ``stakeout worker``). Each: key B's two-player match (two tickets made, both
read until matched: median seconds of ``--rounds``) and its bot-only game (three random bots
of fbi, created and read until finished), idle, then with key A holding its backlog: A has
its quota of active games (``STAKEOUT_MAX_ACTIVE_GAMES`` 40 here), then asks for
``--backlog`` tickets (three per player, 2-player fbi, so every ticket could be seated
were A not at its quota): the ref keeps them all, this tree its cap
(``STAKEOUT_MAX_WAITING_TICKETS``, 1000), the rest refused 409. Every pass of the matcher
plans A's backlog again and finds A's quota full.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import msgspec

from service.matchmaking.matcher import Matcher, MatchNotifier
from service.matchmaking.ticket_desk import Asked
from service.ops.embedded import EmbeddedRedis
from service.players.ratings import Rating, display_value, player_identity
from service.settings import Settings
from service.store.keys import board_key, ratings_key
from service.wiring import Wiring, open_wiring
from tests.processes import Processes, cli_module, exported, free_port, service_env

API_KEY = "sk_bench"


def _asked(number: int) -> Asked:
    return Asked("fbi", {}, [2], f"player-{number}", None, None, "greedy", 3600)


def _matcher(wiring: Wiring) -> Matcher:
    notifier = MatchNotifier(wiring.webhooks, wiring.account_feed, wiring.deliveries)
    return Matcher(wiring.match_tickets, wiring.maker, notifier, "bench")


async def _backlog(wiring: Wiring, owner: str, count: int) -> tuple[float, int]:
    for number in range(count):
        await wiring.ticket_desk.open(owner, _asked(number))
    matcher = _matcher(wiring)
    started = time.perf_counter()
    seated = passes = 0
    while seated < count and passes < 100:
        seated += (await matcher.pass_once(int(time.time() * 1000))).seated
        passes += 1
    return time.perf_counter() - started, seated


async def _steady(wiring: Wiring, owner: str, rate: float, seconds: float) -> dict[str, float]:
    stop = asyncio.Event()
    runner = asyncio.create_task(_matcher(wiring).run(stop))
    made = []
    started = time.perf_counter()
    number = 0
    while time.perf_counter() - started < seconds:
        due = started + number / rate
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        ticket, _ = await wiring.ticket_desk.open(owner, _asked(10_000_000 + number))
        made.append(ticket.id)
        number += 1
    await asyncio.sleep(1.0)  # the last arrivals' passes
    stop.set()
    await runner
    tickets = await wiring.match_tickets.many(owner, made)
    waits = sorted(
        (t.done_ms - t.spec.created_ms) / 1000
        for t in tickets
        if t.status == "matched" and t.done_ms is not None
    )
    return {
        "arrived": len(made),
        "matched": len(waits),
        "per_second": len(waits) / (seconds + 1.0),
        "median": statistics.median(waits) if waits else float("nan"),
        "p95": waits[int(0.95 * (len(waits) - 1))] if waits else float("nan"),
        "max": waits[-1] if waits else float("nan"),
    }


async def _rated(wiring: Wiring, owner: str, players: int, game: str) -> None:
    """``players`` ratings on ``game``'s board, written straight into the store's keys."""
    redis: Any = wiring.ratings.redis
    encode = msgspec.json.Encoder().encode
    for start in range(0, players, 5_000):
        pipe = redis.pipeline(transaction=False)
        for i in range(start, min(players, start + 5_000)):
            mu, sigma = 15 + (i * 7919 % 20_000) / 1000, 1 + (i % 50) / 10
            identity = player_identity(f"user-{i}")
            rating = Rating(mu=mu, sigma=sigma, games=10 + i % 90, name=f"U{i}")
            pipe.hset(ratings_key(owner, game), identity, encode(rating))
            pipe.zadd(board_key(owner, game), {identity: display_value(mu, sigma)})
        await pipe.execute()


async def _read_costs(wiring: Wiring, owner: str, game: str, players: int) -> dict[str, float]:
    ratings, rounds = wiring.ratings, 300
    reads: dict[str, Callable[[], Awaitable[Any]]] = {
        "top 20": lambda: ratings.board(owner, game, 0, 20),
        "20 at rank 50%": lambda: ratings.board(owner, game, players // 2, 20),
        "around a player": lambda: _around(wiring, owner, game, f"user-{players // 3}"),
        "a player's rating": lambda: ratings.rating(
            owner, game, player_identity(f"user-{players // 4}")
        ),
    }
    out = {}
    for name, read in reads.items():
        await read()
        started = time.perf_counter()
        for _ in range(rounds):
            await read()
        out[name] = (time.perf_counter() - started) / rounds * 1000
    return out


async def _around(wiring: Wiring, owner: str, game: str, external_id: str) -> Any:
    rank = await wiring.ratings.rank_of(owner, game, player_identity(external_id))
    assert rank is not None
    await wiring.ratings.size(owner, game)
    return await wiring.ratings.board(owner, game, max(0, rank - 11), 20)


async def main(seconds: float, rates: list[float], backlog: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = EmbeddedRedis(Path(folder))
        url = server.start()
        try:
            settings = Settings(
                redis_url=url, api_keys=(API_KEY,), rate_limit_per_minute=0, max_active_games=0
            )
            async with open_wiring(settings) as wiring:
                owner = wiring.api_keys.identify(API_KEY) or ""
                spent, seated = await _backlog(wiring, owner, backlog)
                print(f"backlog of {backlog} tickets: {seated} matched in {spent:.2f} s, "
                      f"{seated / spent:.0f} tickets matched per second of matching")  # fmt: skip
                print("arrivals/s  arrived  matched  matched/s  median s  p95 s  max s")
                for rate in rates:
                    got = await _steady(wiring, owner, rate, seconds)
                    print(
                        f"{rate:10.0f} {got['arrived']:8.0f} {got['matched']:8.0f} "
                        f"{got['per_second']:10.1f} {got['median']:9.2f} {got['p95']:6.2f} "
                        f"{got['max']:6.2f}"
                    )
                small, large = 1_000, 100_000
                await _rated(wiring, owner, small, "feds")
                await _rated(wiring, owner, large, "bonnie_clyde")
                # Side by side, three times each in turn; the fastest of each (the least noise).
                runs = [
                    await _read_costs(wiring, owner, *board)
                    for _ in range(3)
                    for board in (("feds", small), ("bonnie_clyde", large))
                ]
                few = {k: min(r[k] for r in runs[0::2]) for k in runs[0]}
                many = {k: min(r[k] for r in runs[1::2]) for k in runs[0]}
                print(f"leaderboard read (ms)   {small:>9,} players  {large:>9,} players  ratio")
                for name, cost in few.items():
                    ratio = many[name] / cost
                    print(f"{name:<22} {cost:17.3f} {many[name]:17.3f} {ratio:6.2f}")
        finally:
            server.stop()


# ---- --flood: another key's backlog, against real processes ------------------------------

ROOT = Path(__file__).resolve().parent.parent
KEY_A, KEY_B = "sk_flooding_key", "sk_other_key"
FLOOD_QUOTA = 40
BOTS_ONLY = [{"type": "bot", "level": "random"}] * 3


class _Stack:
    """One build's processes on a Valkey of their own: an API, a game worker and the
    workers ``queues`` names (``None``: a plain ``stakeout worker``, as the ref has it)."""

    def __init__(self, tree: Path, folder: Path, workers: list[list[str]]) -> None:
        self.server = EmbeddedRedis(folder / "valkey")
        url = self.server.start()
        self.port = free_port()
        self.env = service_env(
            url,
            PORT=str(self.port),
            PYTHONPATH=str(tree),
            STAKEOUT_API_KEYS=f"{KEY_A},{KEY_B}",
            STAKEOUT_MAX_ACTIVE_GAMES=str(FLOOD_QUOTA),
        )
        self.procs = Processes(folder)
        cli = [sys.executable, "-m", cli_module(tree)]
        api = self.procs.spawn("api", [*cli, "serve"], self.env, tree)
        for queues in workers:
            args = ["worker", *(["--queues", ",".join(queues)] if queues else [])]
            self.procs.spawn("worker", [*cli, *args], self.env, tree)
        self.base = f"http://127.0.0.1:{self.port}"
        self.procs.wait_ready(api, self.base, 60)

    def close(self) -> None:
        self.procs.close()
        self.server.stop()


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _until(check: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError("not reached in time")
        time.sleep(0.01)


def _b_match(http: httpx.Client, number: int) -> float:
    """Key B's two tickets made, then read until both are matched: seconds."""
    started = time.perf_counter()
    ids = []
    for side in ("x", "y"):
        body = {"game": "fbi", "player": {"external_id": f"b{number}{side}"}, "seats": [2]}
        made = http.post("/v1/matchmaking/tickets", json=body, headers=_auth(KEY_B))
        assert made.status_code == 201, made.text
        ids.append(made.json()["id"])

    def matched() -> bool:
        return all(
            http.get(f"/v1/matchmaking/tickets/{i}", headers=_auth(KEY_B)).json()["status"]
            == "matched"
            for i in ids
        )

    _until(matched)
    return time.perf_counter() - started


def _b_bot_game(http: httpx.Client) -> float:
    """Key B's game of four bots, created, then read until finished: seconds."""
    started = time.perf_counter()
    made = http.post("/v1/games", json={"game": "fbi", "seats": BOTS_ONLY}, headers=_auth(KEY_B))
    assert made.status_code == 201, made.text
    game = made.json()["id"]
    _until(lambda: http.get(f"/v1/games/{game}").json()["status"] == "finished")
    return time.perf_counter() - started


def _flood(base: str, backlog: int) -> tuple[int, int]:
    """Key A at its quota, then ``backlog`` tickets asked for: (kept, refused)."""
    seats = [{"type": "human"}, {"type": "human"}]
    with httpx.Client(base_url=base, timeout=60) as http:
        for _ in range(FLOOD_QUOTA):
            made = http.post(
                "/v1/games", json={"game": "fbi", "seats": seats}, headers=_auth(KEY_A)
            )
            assert made.status_code == 201, made.text

    def ask(number: int) -> int:
        body = {"game": "fbi", "player": {"external_id": f"a{number // 3}"}, "seats": [2]}
        with httpx.Client(base_url=base, timeout=60) as http:
            return http.post("/v1/matchmaking/tickets", json=body, headers=_auth(KEY_A)).status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(ask, range(backlog)))
    return codes.count(201), codes.count(409)


def _figures(base: str, rounds: int, first: int) -> tuple[float, float]:
    with httpx.Client(base_url=base, timeout=60) as http:
        matches = [_b_match(http, first + i) for i in range(rounds)]
        games = [_b_bot_game(http) for _ in range(rounds)]
    return statistics.median(matches), statistics.median(games)


def flood_main(rounds: int, backlog: int, ref: str) -> None:
    with exported(ref) as old_tree, tempfile.TemporaryDirectory() as folder:
        builds: list[tuple[str, Path, list[list[str]]]] = [
            (f"{ref} (matcher on the game worker's thread)", old_tree, [[]]),
            ("this tree, matcher in its own process", ROOT, [["bots", "scoring"], ["matchmaking"]]),
            ("this tree, matcher on the game worker's thread", ROOT, [[]]),
        ]
        print(
            f"{'build':<50} {'backlog kept/refused':>20}  two-player match s: idle  flooded"
            "  ratio   bot game s: idle  flooded  ratio"
        )
        for number, (name, tree, workers) in enumerate(builds):
            here = Path(folder) / str(number)
            here.mkdir()
            stack = _Stack(tree, here, workers)
            try:
                match_idle, game_idle = _figures(stack.base, rounds, 0)
                kept, refused = _flood(stack.base, backlog)
                time.sleep(1.0)  # a few of the matcher's passes over the backlog first
                match_flood, game_flood = _figures(stack.base, rounds, 1000)
            finally:
                stack.close()
            print(
                f"{name:<50} {f'{kept}/{refused}':>20}  {match_idle:24.2f} {match_flood:8.2f}"
                f" {match_flood / match_idle:6.2f}   {game_idle:16.2f} {game_flood:8.2f}"
                f" {game_flood / game_idle:6.2f}",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rates", default="20,100,400")
    parser.add_argument("--backlog", type=int, default=2000)
    parser.add_argument("--flood", action="store_true", help="another key's backlog's cost")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--ref", default="5358476", help="the build before (for --flood)")
    args = parser.parse_args()
    if args.flood:
        flood_main(args.rounds, args.backlog, args.ref)
    else:
        asyncio.run(main(args.seconds, [float(r) for r in args.rates.split(",")], args.backlog))
