"""Seconds per expert move: with the tuned sample count alone, and with the server's clock cap.

    .venv/bin/python bench/bot_time.py [--games 4] [--seconds 1.0] [--effort 1.0] [--only fbi]

Plays seeded games (one expert, the other seats greedy) and times every expert decision
twice on the same position: once with ``Budget()`` (the tuned sample count, no clock, as
the strength table was measured) and once with ``Budget(seconds=S, effort=E)`` (what a
worker does with ``STAKEOUT_BOT_SECONDS=S`` and ``STAKEOUT_BOT_EFFORT=E``). Prints the
distribution of each. Decisions with one legal move or nothing to search are left out. A
measurement, not a test; the machine's load shows up in every figure, so compare the
columns of one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain import registry
from domain.budget import Budget
from domain.match import Match, MatchEngine
from domain.rng import Rng
from tests.domain.playthrough import play

GAMES = [("fbi", 4, {}), ("feds", 4, {}), ("bonnie_clyde", 2, {"target": 10})]


def timed_decisions(
    name: str, seats: int, options: dict[str, Any], games: int, cap: Budget
) -> list[tuple[float, float]]:
    """(seconds with the tuned budget, seconds with ``cap``) for every expert decision."""
    game = registry.get(name)
    assert game is not None
    pairs: list[tuple[float, float]] = []
    for seed in range(games):

        def chooser(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
            rng = rng.fork(f"{seat}.{match.version}")
            if seat != seed % seats:  # noqa: B023 - used before the loop moves on
                return rules.bot_move(match, seat, "greedy", rng)
            if len(legal) == 1:
                return legal[0]
            start = time.perf_counter()
            move = rules.bot_move(match, seat, "expert", rng.fork("tuned"))
            tuned = time.perf_counter() - start
            start = time.perf_counter()
            rules.bot_move(match, seat, "expert", rng.fork("capped"), cap)
            pairs.append((tuned, time.perf_counter() - start))
            return move

        play(game, options, seats, seed=2000 + seed, chooser=chooser)
    # Greedy-only shortcuts (nothing to search) take well under a millisecond.
    return [p for p in pairs if p[0] > 0.002]


def describe(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"{statistics.median(values):.3f} | {p95:.3f} | {values[-1]:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--effort", type=float, default=1.0)
    parser.add_argument("--only", default=None)
    args = parser.parse_args()
    cap = Budget(seconds=args.seconds, effort=args.effort)
    cap_label = f"{args.seconds:g} s cap, effort {args.effort:g}"
    print(
        f"| game | moves | tuned: median | p95 | max | over {args.seconds:g} s"
        f" | {cap_label}: median | p95 | max | over |\n|{'---|' * 10}"
    )
    for name, seats, options in GAMES:
        if args.only and name != args.only:
            continue
        pairs = timed_decisions(name, seats, options, args.games, cap)
        tuned = [p[0] for p in pairs]
        capped = [p[1] for p in pairs]

        def over(values: list[float]) -> str:
            return f"{sum(v > args.seconds for v in values) / len(values):.1%}"

        print(
            f"| {name} | {len(pairs)} | {describe(tuned)} | {over(tuned)}"
            f" | {describe(capped)} | {over(capped)} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
