"""The Feds: thousands of seeded random games through the match layer, checking invariants.

Every seat count × city card × sirens (where allowed). At every event: 32 criminals and every
agent card are where they should be, exactly once. At the end: the game is over, a replay
rebuilds the same state, every event survives JSON, and the scores equal a recomputation
written here from the events alone.
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Any

import msgspec
import pytest

from domain.feds import GAME
from domain.feds.events import (
    AgentChosen,
    BadgePassed,
    CriminalsArrested,
    GameEnded,
    GameSetUp,
    UtilityTokenWon,
)
from domain.feds.state import FedsState
from domain.match import Match, MatchEngine, command_union, event_union
from domain.rng import Rng
from tests.domain.playthrough import play

CONFIGS = [
    (seats, city, sirens)
    for seats in (2, 3, 4)
    for city in ("chicago", "detroit", "new-orleans")
    for sirens in (False, True)
    if not (sirens and city == "new-orleans")
]
GAMES_PER_CONFIG = 150
#: In one game out of this many, every legal move of every decision is tried.
EXHAUSTIVE_EVERY = 25

ALL_AGENTS = sorted(
    ["infiltrate", "redeploy", "patrol", "plain-3", "plain-4", "plain-5", "plain-6"]
)
CRIMINALS = {"pink": 9, "blue": 8, "lime": 7, "orange": 6, "gray": 2}
# Written out again, on purpose: the scores are recomputed without the game's own tables.
POINTS = {
    "pink": [0, 1, 2, 4, 6, 9, 12, 16, 20, 25, 30, 36],
    "blue": [0, 2, 4, 6, 9, 12, 16, 20, 25, 30, 36, 43],
    "lime": [0, 3, 6, 9, 13, 17, 22, 28, 34, 41, 48, 56],
    "orange": [0, 4, 9, 14, 20, 27, 35, 44, 54, 65, 77, 90],
}
ENCODE = msgspec.json.Encoder().encode
DECODE_EVENT = msgspec.json.Decoder(event_union(GAME)).decode
DECODE_COMMAND = msgspec.json.Decoder(command_union(GAME)).decode


def _check_conservation(state: FedsState) -> None:
    places = [s.criminals for s in state.locations] + list(state.jails) + [state.bag]
    if state.officer is not None:
        places.append(state.officer.jail)
    for colour, total in CRIMINALS.items():
        counts = [getattr(c, colour) for c in places]
        assert min(counts) >= 0
        assert sum(counts) == total, colour

    cards: dict[int | None, list[str]] = {
        seat: list(state.hands[seat]) for seat in range(state.seats)
    }
    for seat, choice in enumerate(state.chosen):
        if choice is not None:
            cards[seat].append(choice.agent)
    if state.officer is not None:
        cards[None] = list(state.officer.deck)
    for spot in state.locations:
        for card in spot.field:
            cards[card.owner].append(card.agent)
        if spot.mole is not None:
            cards[spot.mole.owner].append(spot.mole.agent)
    for owner, held in cards.items():
        assert sorted(held) == ALL_AGENTS, owner


def _on_event(match: Match, event: Any) -> None:
    if match.state is not None:
        _check_conservation(match.state)
    assert DECODE_EVENT(ENCODE(event)) == event


def _exhaustive_chooser(
    rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng
) -> Any:
    for move in legal:
        assert DECODE_COMMAND(ENCODE(move)) == move
        rules.game.decide(match.state, seat, move, Rng(b"try"))  # must not raise
    return rng.choice(legal)


def _rescore(events: list[Any]) -> tuple[list[int], list[int]]:
    """Scores and places from the events alone, grays tried in every colour."""
    setup = events[1]
    assert isinstance(setup, GameSetUp)
    seats = setup.seats
    jails = [Counter[str]() for _ in range(seats)]
    tokens: list[list[int]] = [[] for _ in range(seats)]
    for event in events:
        if isinstance(event, CriminalsArrested) and event.owner is not None:
            for colour in CRIMINALS:
                jails[event.owner][colour] += getattr(event.criminals, colour)
        if isinstance(event, UtilityTokenWon) and event.owner is not None:
            tokens[event.owner].append(event.value)
    scores = []
    for jail, won in zip(jails, tokens, strict=True):
        best = 0
        for wild in product(list(POINTS), repeat=jail["gray"]):
            counts = {c: jail[c] + wild.count(c) for c in POINTS}
            best = max(best, sum(POINTS[c][n] for c, n in counts.items()))
        scores.append(best + sum(won))
    keys = [(scores[s], max(tokens[s], default=0), sum(jails[s].values())) for s in range(seats)]
    places = [1 + sum(1 for k in keys if k > key) for key in keys]
    return scores, places


@pytest.mark.parametrize(("seats", "city", "sirens"), CONFIGS)
def test_random_games_conserve_cards_end_replay_and_score_as_recomputed(
    seats: int, city: str, sirens: bool
) -> None:
    options = {"city": city, "sirens": sirens}
    rules = MatchEngine(GAME)
    for n in range(GAMES_PER_CONFIG):
        seed = 7919 * n + 31 * seats + len(city) + sirens
        chooser = _exhaustive_chooser if n % EXHAUSTIVE_EVERY == 0 else None
        match, events = play(GAME, options, seats, seed, chooser=chooser, on_event=_on_event)
        outcome = GAME.result(match.state)
        assert outcome is not None
        assert GAME.pending(match.state) == []
        assert rules.replay(events).state == match.state
        snapshot = msgspec.msgpack.encode(match.state)
        assert msgspec.msgpack.decode(snapshot, type=FedsState) == match.state
        scores, places = _rescore(events)
        assert outcome.scores == scores
        assert outcome.places == places
        assert outcome.winners == [s for s, p in enumerate(places) if p == 1]
        assert isinstance(events[-1], GameEnded)
        assert events[-1].scores == scores
        # 7 rounds, one card per seat each; the badge goes clockwise.
        setup = events[1]
        badges = [e.seat for e in events if isinstance(e, BadgePassed)]
        assert badges == [(setup.badge + k) % seats for k in range(1, 7)]
        assert sum(isinstance(e, AgentChosen) for e in events) == 7 * seats
