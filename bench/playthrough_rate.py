"""Random-playthrough rate per game and seat count (games per second, one core).

    .venv/bin/python bench/playthrough_rate.py [--seconds 5]

Plays seeded random games through the match layer (sealed steps through real
commitments) and prints the rate. A measurement, not a test: the figures vary with the
machine's load, so compare rows of one run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain import registry
from tests.domain.playthrough import play


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="time per row")
    args = parser.parse_args()
    print(f"{'game':<14}{'seats':>6}{'games':>8}{'events/game':>13}{'games/s':>10}")
    for game in registry.games():
        for seats in range(game.min_seats, game.max_seats + 1):
            start = time.perf_counter()
            games = events = 0
            while time.perf_counter() - start < args.seconds:
                _, log = play(game, {}, seats, seed=games + 1)
                games += 1
                events += len(log)
            elapsed = time.perf_counter() - start
            rate = games / elapsed
            print(f"{game.name:<14}{seats:>6}{games:>8}{events / games:>13.0f}{rate:>10.1f}")


if __name__ == "__main__":
    main()
