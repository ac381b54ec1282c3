"""What the pure fold costs: folding a whole game's events with `MatchEngine.fold` (a new `Match`
per event) against the game's own `evolve` alone (what any fold must do). Not a test.

    .venv/bin/python bench/fold_cost.py [--games 20]

Seeded random playthroughs of each game (tests/domain/playthrough.py); each game's events
are folded 5 times both ways; microseconds per event are printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from domain import registry
from domain.match import MATCH_EVENT_TYPES, MatchEngine
from tests.domain.playthrough import play

SEATS = {"fbi": 4, "feds": 4, "bonnie_clyde": 2}
OPTIONS: dict[str, dict[str, Any]] = {"bonnie_clyde": {"target": 10}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    print(
        "| game | events | MatchEngine.fold µs/event | game evolve alone µs/event | copy overhead |"
    )
    print("|---|---|---|---|---|")
    for name, seats in SEATS.items():
        game = registry.get(name)
        assert game is not None
        rules = MatchEngine(game)
        streams = [play(game, OPTIONS.get(name, {}), seats, seed)[1] for seed in range(args.games)]
        events = sum(len(s) for s in streams)
        start = time.perf_counter()
        for _ in range(5):
            for stream in streams:
                rules.replay(stream)
        folded = (time.perf_counter() - start) / (5 * events)
        start = time.perf_counter()
        for _ in range(5):
            for stream in streams:
                state = None
                for event in stream:
                    if not isinstance(event, MATCH_EVENT_TYPES):
                        state = game.evolve(state, event)
        evolved = (time.perf_counter() - start) / (5 * events)
        print(
            f"| {name} | {events} | {folded * 1e6:.2f} | {evolved * 1e6:.2f} |"
            f" {(folded - evolved) * 1e6:+.2f} µs |"
        )


if __name__ == "__main__":
    main()
