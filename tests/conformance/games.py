"""The games under test, their configurations, and seeded random playthroughs.

Every game of `domain.registry` is listed, with the example game of ``tests/example_game``
beside it; each configuration is one seat count and one set of options. A playthrough is
driven through the match layer exactly as the service drives it (`MatchEngine.perform` with
recorded acts; sealed steps by real commitments and reveals), so the suite sees the same
positions, events and acts a real game stores.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from domain import registry, sealed
from domain.engine import AnyGame
from domain.match import (
    Act,
    CommitSeal,
    MakeMove,
    Match,
    MatchEngine,
    RecordResult,
    RevealSeal,
    SeatSpec,
)
from domain.rng import Rng
from tests.example_game import GAME as EXAMPLE

#: Options per game: every variant and city card, with the switches that apply to it.
#: Bonnie and Clyde's only option is the target score: a short game (one or two hands) and
#: a longer one (several hands, so several shuffles and deals).
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "fbi": [{"variant": "base"}, {"variant": "stacked"}],
    "feds": [
        {"city": "chicago", "sirens": False},
        {"city": "chicago", "sirens": True},
        {"city": "detroit", "sirens": False},
        {"city": "detroit", "sirens": True},
        {"city": "new-orleans", "sirens": False},
    ],
    "bonnie_clyde": [{"target": 10}, {"target": 40}],
    "tipoff": [{"hand_size": 2}, {"hand_size": 3}, {"hand_size": 4}],
}

#: Positions sampled from each playthrough (evenly spread, the final one included).
POSITIONS_PER_GAME = 12
MAX_ACTS = 20_000


def all_games() -> list[AnyGame]:
    return [*registry.games(), EXAMPLE]


@dataclass(frozen=True)
class Config:
    game: AnyGame
    seats: int
    options: dict[str, Any] = field(hash=False)
    seed: int

    @property
    def id(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.game.name}-{self.seats}p-{opts}"

    def __str__(self) -> str:
        return f"{self.game.name}, {self.seats} seats, options {self.options}, seed {self.seed}"


def configs() -> list[Config]:
    out: list[Config] = []
    for game in all_games():
        options = OPTIONS.get(game.name, [{}])
        seats = range(game.min_seats, game.max_seats + 1)
        for n, (count, opts) in enumerate(itertools.product(seats, options)):
            out.append(Config(game, count, opts, seed=1000 * len(out) + n))
    return out


def config_ids(items: list[Config]) -> list[str]:
    return [c.id for c in items]


@dataclass(frozen=True)
class Position:
    """A resting position of a playthrough: the match after ``len(events)`` events."""

    config: Config
    match: Match
    history: list[Any] = field(repr=False)  # the whole game's events (shared)
    count: int = 0

    @property
    def events(self) -> list[Any]:
        """The events up to this position."""
        return self.history[: self.count]

    @property
    def version(self) -> int:
        return self.match.version

    def where(self) -> str:
        return f"{self.config}, position at version {self.version}"


@dataclass
class Playthrough:
    config: Config
    seed: bytes
    events: list[Any]
    acts: list[tuple[int, Act]]  # (index of the batch's first event, its act)
    positions: list[Position]

    @property
    def final(self) -> Position:
        return self.positions[-1]

    def sample(
        self, count: int = POSITIONS_PER_GAME, where: Callable[[Position], bool] | None = None
    ) -> list[Position]:
        """``count`` positions (of those ``where`` accepts) evenly spread over the game, the
        first and last included."""
        positions = [p for p in self.positions if where is None or where(p)]
        n = len(positions)
        picks = sorted({round(i * (n - 1) / max(1, count - 1)) for i in range(count)})
        return [positions[i] for i in picks]


def snapshot(match: Match) -> Match:
    """A copy the folds that follow cannot change (states are frozen; the dicts are not)."""
    return msgspec.structs.replace(
        match,
        commits=dict(match.commits),
        reveals=dict(match.reveals),
        forfeited=dict(match.forfeited),
    )


Secrets = dict[int, tuple[dict[str, Any], str]]


def next_act(
    rules: MatchEngine,
    match: Match,
    secrets: Secrets,
    choose: Callable[[Match, int], Any],
    rng: Rng,
) -> Act:
    """The next act of a game driven as the service drives it: the result once the game is
    over, else for the first awaited seat a reveal of its kept move, or the command
    ``choose(match, seat)`` picks as a move or as a commitment (its move and a seeded salt kept in
    ``secrets`` for the reveal)."""
    if rules.result(match) is not None:
        return RecordResult()
    action = rules.awaiting(match)[0]
    seat = action.seat
    if action.action == "reveal":
        move, salt = secrets.pop(seat)
        return RevealSeal(seat, move, salt)
    move = msgspec.to_builtins(choose(match, seat))
    if action.action == "move":
        return MakeMove(seat, move)
    salt = f"{rng.below(2**128):032x}"
    secrets[seat] = (move, salt)
    return CommitSeal(
        seat, sealed.commitment(match.game_id, action.step, seat, move, salt), action.step
    )


@functools.cache
def playthrough(config: Config) -> Playthrough:
    """One whole game with seeded random legal moves, the result recorded at the end."""
    rules = MatchEngine(config.game)
    seed = config.seed.to_bytes(32, "big")
    rng = Rng(seed, "players")
    seats = [SeatSpec("human")] * config.seats
    events = rules.create(f"g{config.seed}", config.options, seats, seed)
    match = rules.replay(events)
    acts: list[tuple[int, Act]] = []
    positions = [Position(config, snapshot(match), events, len(events))]
    secrets: Secrets = {}
    for _ in range(MAX_ACTS):
        if rules.result(match) is not None and match.recorded is not None:
            return Playthrough(config, seed, events, acts, positions)
        act = next_act(
            rules, match, secrets, lambda now, seat: rng.choice(rules.legal(now, seat)), rng
        )
        produced = rules.perform(match, act, seed)
        acts.append((len(events), act))
        for event in produced:
            match = rules.fold(match, event)
        events.extend(produced)
        if not isinstance(act, RecordResult):
            positions.append(Position(config, snapshot(match), events, len(events)))
    raise AssertionError(f"{config}: the game did not end within {MAX_ACTS} acts")
