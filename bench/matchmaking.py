"""Matchmaking and leaderboard figures (issue 30). Not a test.

    .venv/bin/python bench/matchmaking.py [--seconds 10] [--rates 20,100,400]

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
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec

from service.matchmaking.matcher import Matcher, MatchNotifier
from service.matchmaking.ticket_desk import Asked
from service.ops.embedded import EmbeddedRedis
from service.players.ratings import Rating, display_value, player_identity
from service.settings import Settings
from service.store.keys import board_key, ratings_key
from service.wiring import Wiring, open_wiring

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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rates", default="20,100,400")
    parser.add_argument("--backlog", type=int, default=2000)
    args = parser.parse_args()
    asyncio.run(main(args.seconds, [float(r) for r in args.rates.split(",")], args.backlog))
