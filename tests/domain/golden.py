"""Seeded bot-vs-bot games recorded once, to prove later changes keep games the same.

Each recorded game (`GOLDEN`) is played through the match layer by bots of fixed levels
with a fixed seed: sealed steps by real commitments and reveals (seeded salts). The file
under ``streams/`` holds its events as stored (JSON, as the service writes them) and, at a
few positions, every seat's and a spectator's view and legal moves. Tests replay the
stored stream with today's code (old games still load) and play the game again (same
seeds, same game). Regenerate only on purpose, when a change of behaviour is wanted:
``.venv/bin/python -m tests.domain.golden``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from domain import registry
from domain.budget import Budget
from domain.engine import BotLevel
from domain.match import (
    Match,
    MatchEngine,
    SeatSpec,
)
from domain.rng import Rng
from tests.conformance.games import Secrets, next_act

STREAMS = Path(__file__).parent / "streams"
MAX_ACTS = 5_000
# Few samples: the expert's choices still depend on its search, and the test stays quick.
BUDGET = Budget(effort=0.05)
VIEW_POSITIONS = 6


@dataclass(frozen=True)
class Golden:
    game: str
    options: dict[str, Any]
    levels: tuple[BotLevel, ...]
    seed: int

    @property
    def path(self) -> Path:
        levels = "-".join(self.levels)
        return STREAMS / f"{self.game}-{len(self.levels)}p-{levels}-{self.seed}.json"


GOLDEN = [
    Golden("fbi", {"variant": "base"}, ("expert", "greedy", "random"), 11),
    Golden("fbi", {"variant": "stacked"}, ("random", "expert", "greedy", "random", "expert"), 12),
    Golden("feds", {"city": "chicago", "sirens": True}, ("expert", "greedy", "random"), 21),
    Golden("feds", {"city": "new-orleans", "sirens": False}, ("greedy", "expert"), 22),
    Golden(
        "feds", {"city": "detroit", "sirens": True}, ("random", "greedy", "expert", "random"), 23
    ),
    Golden("bonnie_clyde", {"target": 40}, ("expert", "greedy", "random"), 31),
    Golden("bonnie_clyde", {"target": 10}, ("greedy", "expert"), 32),
]


def engine(golden: Golden) -> MatchEngine:
    game = registry.get(golden.game)
    assert game is not None
    return MatchEngine(game)


def play(golden: Golden) -> tuple[list[Any], int]:
    """The whole game's events, result recorded, as the bots play it with ``seed``, and the
    number of events the creation made."""
    rules = engine(golden)
    seed = golden.seed.to_bytes(32, "big")
    rng = Rng(seed, "bots")
    seats = [SeatSpec("bot", level) for level in golden.levels]
    events = rules.create(f"golden{golden.seed:018d}", golden.options, seats, seed)
    match = rules.replay(events)
    opening = len(events)
    secrets: Secrets = {}
    for n in range(MAX_ACTS):
        if match.recorded is not None:
            return events, opening

        def bot(match: Match, seat: int, n: int = n) -> Any:
            level = golden.levels[seat]
            return rules.bot_move(match, seat, level, rng.fork(f"act{n}"), BUDGET)

        act = next_act(rules, match, secrets, bot, rng)
        produced = rules.perform(match, act, seed)
        for event in produced:
            match = rules.fold(match, event)
        events.extend(produced)
    raise AssertionError(f"{golden}: the game did not end within {MAX_ACTS} acts")


def positions(start: int, count: int) -> list[int]:
    """Event counts from ``start`` to ``count`` at which views are recorded, both included."""
    span = count - start
    return sorted({start + round(i * span / (VIEW_POSITIONS - 1)) for i in range(VIEW_POSITIONS)})


def record(rules: MatchEngine, events: list[Any], start: int) -> dict[str, Any]:
    """What is stored and compared: the events, and views, legal moves, redacted events and
    the result at a few positions, from ``start`` (the creation batch's end) on."""
    seats = len(rules.replay(events[:1]).seats)
    snapshots: list[dict[str, Any]] = []
    for count in positions(start, len(events)):
        match: Match = rules.replay(events[:count])
        per_viewer: dict[str, Any] = {}
        for viewer in [*range(seats), None]:
            per_viewer[str(viewer)] = {
                "view": rules.view(match, viewer),
                "legal": rules.legal(match, viewer),
                "awaiting": rules.awaiting(match),
                "redacted": [rules.redact(e, viewer) for e in events[:count]][-8:],
            }
        snapshots.append({"events": count, "result": rules.result(match), "viewers": per_viewer})
    return {"opening": start, "events": events, "snapshots": snapshots}


def as_json(data: Any) -> Any:
    return json.loads(msgspec.json.encode(data))


def main() -> None:
    STREAMS.mkdir(exist_ok=True)
    for golden in GOLDEN:
        data = as_json(record(engine(golden), *play(golden)))
        golden.path.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
        print(golden.path.name, len(data["events"]), "events")


if __name__ == "__main__":
    main()
