"""Seeded random games of Bonnie and Clyde through the match layer, checking invariants.

Every event: the 77 cards are all somewhere, and the event survives a JSON round trip.
Every game: it ends, replaying its events rebuilds the same state, and every hand's score
matches a recomputation from the public events written here (not `scoring`). In part of
the games every legal move of every decision is tried against `decide`.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.bonnie_clyde import GAME
from domain.bonnie_clyde.commands import DrawFromCaseFile, DrawFromFiles, LayOff, Meld
from domain.bonnie_clyde.events import (
    CardDiscarded,
    CardDrawn,
    CardTakenFromFiles,
    CarMoved,
    FugitiveCaptured,
    GameEnded,
    HandDealt,
    HandScored,
    HiddenCardTaken,
    LaidOff,
    MeldPlayed,
    TedHintonPlayed,
)
from domain.bonnie_clyde.state import BonnieClydeState
from domain.match import Match, MatchEngine, command_union, event_union
from domain.rng import Rng
from tests.domain.playthrough import play

EVENTS = msgspec.json.Decoder(event_union(GAME))
COMMANDS = msgspec.json.Decoder(command_union(GAME))


def _cards_on_the_table(match: Match) -> int:
    state = match.state
    assert isinstance(state, BonnieClydeState)
    in_front = sum(p.count for t in state.tables for p in t) + sum(map(len, state.fugitives))
    under = sum(1 for card in state.locations if card is not None)
    ted = 1 if state.ted_in_play else 0
    held = sum(map(len, state.hands))
    return len(state.case_file) + len(state.files) + under + held + in_front + ted


def _check_event(match: Match, event: Any) -> None:
    if match.state is not None and match.state.hand_number > 0:
        assert _cards_on_the_table(match) == 77, event
    assert EVENTS.decode(msgspec.json.encode(event)) == event


def _chooser(try_every_move: bool) -> Any:
    """Random play, leaning towards the Case File and towards melds and layoffs so that
    hands end and score; optionally tries every legal move against `decide` first."""

    def choose(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        if try_every_move:
            for move in legal:
                assert COMMANDS.decode(msgspec.json.encode(move)) == move
                GAME.decide(match.state, seat, move, rng.fork("probe"))
        if DrawFromCaseFile() in legal and DrawFromFiles() in legal:
            return DrawFromCaseFile() if rng.below(4) else DrawFromFiles()
        plays = [m for m in legal if isinstance(m, Meld | LayOff)]
        if plays and rng.below(3):
            return rng.choice(plays)
        return rng.choice(legal)

    return choose


def _recompute(events: list[Any], seats: int, target: int) -> list[int]:
    """The totals, from the public events alone; checks each bc.hand_scored on the way."""
    totals = [0] * seats
    for event in events:
        if isinstance(event, HandDealt):
            points = [0] * seats
            fugitives = [0] * seats
            held = list(event.hand_sizes)
            case_file = event.case_file_size
            car = event.car
        elif isinstance(event, MeldPlayed | LaidOff):
            points[event.seat] += event.count * (4 if event.sideways else 2)
            held[event.seat] -= event.count
            assert event.sideways == (car == event.location)
        elif isinstance(event, FugitiveCaptured):
            points[event.seat] += 10
            fugitives[event.seat] += 1
            assert event.location == car
        elif isinstance(event, CarMoved):
            assert event.from_location == car
            assert abs(event.to_location - car) == 1 or event.to_location == car == 10
            car = event.to_location
            assert 1 <= car <= 10
        elif isinstance(event, CardDrawn):
            held[event.seat] += 1
            if event.source == "case_file":
                case_file -= 1
        elif isinstance(event, CardTakenFromFiles | HiddenCardTaken):
            held[event.seat] += 1
        elif isinstance(event, TedHintonPlayed):
            held[event.seat] -= 1
        elif isinstance(event, CardDiscarded):
            held[event.seat] -= 1
            assert held[event.seat] >= 0
            last_seat = event.seat
        elif isinstance(event, HandScored):
            went_out = held[last_seat] == 0
            assert went_out or case_file == 0
            expected = list(points)
            if went_out:
                expected[last_seat] += car
            # Whoever ended the hand (going out, or drawing the last Case File card)
            # shuts the others out with both fugitives in front.
            if fugitives[last_seat] == 2:
                expected = [p if s == last_seat else 0 for s, p in enumerate(expected)]
            assert event.hand_scores == expected
            totals = [t + p for t, p in zip(totals, expected, strict=True)]
            assert event.totals == totals
        elif isinstance(event, GameEnded):
            best = max(totals)
            assert best >= target
            assert totals.count(best) == 1
            assert event.winner == totals.index(best)
    return totals


def _play_and_check(seats: int, target: int, seed: int, try_every_move: bool) -> int:
    match, events = play(
        GAME,
        {"target": target},
        seats,
        seed,
        chooser=_chooser(try_every_move),
        on_event=_check_event,
    )
    outcome = GAME.result(match.state)
    assert outcome is not None
    assert GAME.pending(match.state) == []
    assert MatchEngine(GAME).replay(events).state == match.state
    assert outcome.scores == _recompute(events[1:], seats, target)
    assert outcome.winners == [match.state.winner]
    assert isinstance(match.state, BonnieClydeState)
    hands = match.state.hand_number
    for hand in range(1, hands):
        assert sum(isinstance(e, HandScored) and e.hand_number == hand for e in events) == 1
    return hands


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_short_random_games_keep_every_invariant(seats: int) -> None:
    hands = 0
    for seed in range(700):
        hands += _play_and_check(seats, 10 + seed % 21, seed, try_every_move=seed % 10 == 0)
    assert hands > 700  # some games took several hands


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_random_games_to_100_keep_every_invariant(seats: int) -> None:
    for seed in range(1000, 1012):
        assert _play_and_check(seats, 100, seed, try_every_move=seed % 6 == 0) >= 2
