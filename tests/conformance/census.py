"""How much the conformance suite checks, per game and property.

    .venv/bin/python -m tests.conformance.census

Counts the positions (and, for redaction, events) each property is checked at, with the
suite's own sampling, so the figures follow any change of its constants.
"""

from __future__ import annotations

from collections import Counter

from domain.match import MatchEngine
from tests.conformance import test_bots, test_legal_and_decide, test_no_leak, test_replay
from tests.conformance.games import Position, configs, playthrough
from tests.conformance.hidden import HIDDEN


def main() -> None:
    counts: Counter[tuple[str, str]] = Counter()
    names: list[str] = []
    for config in configs():
        name = config.game.name
        if name not in names:
            names.append(name)
        play = playthrough(config)
        rules = MatchEngine(config.game)
        counts[name, "configurations"] += 1
        counts[name, "legal/decide positions"] += len(play.sample(test_legal_and_decide.POSITIONS))
        viewers = config.seats + 1
        for kind in HIDDEN[name]:
            if kind.applies(config.seats, config.options):
                sampled = len(play.sample(test_no_leak.POSITIONS))
                counts[name, "no-leak (position, viewer, kind)"] += sampled * viewers
                counts[name, "no-leak (event, viewer, kind)"] += len(play.events) * viewers
        counts[name, "replay positions"] += len(play.sample(test_replay.POSITIONS)) + 1
        counts[name, "games verified"] += 1

        def moving(
            position: Position, rules: MatchEngine = rules, seats: int = config.seats
        ) -> bool:
            return any(rules.legal(position.match, seat) for seat in range(seats))

        counts[name, "bot positions"] += len(play.sample(test_bots.POSITIONS, where=moving))
    properties = list(dict.fromkeys(prop for _, prop in counts))
    print(f"{'':36}" + "".join(f"{n:>14}" for n in names))
    for prop in properties:
        print(f"{prop:36}" + "".join(f"{counts[n, prop]:>14}" for n in names))


if __name__ == "__main__":
    main()
