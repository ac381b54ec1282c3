"""Bot strength: seeded games between levels, win rates with 95% confidence intervals.

    .venv/bin/python bench/strength.py [--games 200] [--only fbi] [--workers 2]
                                       [--effort 1.0] [--seconds S]

Each row pits one seat of the first level against the other seats of the second level, the
focal seat rotating through every position. A shared win counts 1/k. Bots are handed only
their own seat's view and legal moves (`MatchEngine.bot_move`), exactly as on the server; sealed
steps go through real commitments. A measurement, not a test: it prints a table.

The experts search with their tuned sample counts (``--effort`` scales them) and no clock,
so a row is the same on every machine; ``--seconds`` adds the server's wall-clock cap
(`STAKEOUT_BOT_SECONDS`), which makes results depend on the machine's speed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain import registry
from domain.budget import Budget
from domain.engine import BotLevel
from domain.match import Match, MatchEngine
from domain.rng import Rng
from tests.domain.playthrough import play

# (game, seats, focal level, other level, target win rate or None)
ROWS: list[tuple[str, int, BotLevel, BotLevel, float | None]] = [
    ("fbi", 4, "expert", "greedy", 0.40),
    ("fbi", 4, "greedy", "random", None),
    ("feds", 4, "expert", "greedy", 0.40),
    ("feds", 4, "greedy", "random", None),
    ("bonnie_clyde", 2, "expert", "greedy", 0.60),
    ("bonnie_clyde", 2, "greedy", "random", None),
]


def one_game(
    args: tuple[str, int, BotLevel, BotLevel, int, dict[str, Any], Budget],
) -> tuple[float, float]:
    """Play one seeded game; returns (focal seat's win share, seconds)."""
    name, seats, focal, other, seed, options, budget = args
    game = registry.get(name)
    assert game is not None
    focal_seat = seed % seats

    def chooser(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        level = focal if seat == focal_seat else other
        return rules.bot_move(match, seat, level, rng.fork(f"{seat}.{match.version}"), budget)

    start = time.perf_counter()
    match, _ = play(game, options, seats, seed=seed, chooser=chooser)
    outcome = MatchEngine(game).result(match)
    assert outcome is not None
    share = 1 / len(outcome.winners) if focal_seat in outcome.winners else 0.0
    return share, time.perf_counter() - start


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--only", default=None, help="one game name")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--options", default="{}", help="creation options as JSON, e.g. '{\"target\": 30}'"
    )
    parser.add_argument("--effort", type=float, default=1.0, help="expert sample multiplier")
    parser.add_argument("--seconds", type=float, default=None, help="expert clock cap per move")
    args = parser.parse_args()
    budget = Budget(seconds=args.seconds, effort=args.effort)
    print(f"expert budget: {budget}")
    print(
        f"| game | seats | focal vs others | games | focal win rate | 95% CI | fair share"
        f" | target | s/game |\n|{'---|' * 9}"
    )
    with ProcessPoolExecutor(args.workers) as pool:
        for name, seats, focal, other, target in ROWS:
            if args.only and name != args.only:
                continue
            options = json.loads(args.options)
            jobs = [
                (name, seats, focal, other, 1000 + i, options, budget) for i in range(args.games)
            ]
            results = list(pool.map(one_game, jobs))
            wins = sum(r[0] for r in results)
            seconds = sum(r[1] for r in results) / len(results)
            low, high = wilson(wins, len(results))
            goal = f">= {target:.0%}" if target is not None else "clearly > fair"
            print(
                f"| {name} {args.options if args.options != '{}' else ''} | {seats} "
                f"| {focal} vs {other} | {len(results)} | "
                f"{wins / len(results):.1%} | {low:.1%}-{high:.1%} | {1 / seats:.0%} | {goal} "
                f"| {seconds:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
