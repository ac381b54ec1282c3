"""Seeded random playthroughs of FBI through the match layer, checking invariants."""

from __future__ import annotations

import math
import re
from typing import Any

import msgspec
import pytest

from domain.fbi import GAME
from domain.fbi.cards import ALL_CARDS, CHARACTER_DECK, PURPLE_CARDS
from domain.fbi.events import CardReleased, CharacterArrested, GameEnded, PurpleCardsDealt
from domain.fbi.state import FbiState
from domain.match import Match, MatchEngine, command_union, event_union
from domain.rng import Rng
from tests.domain.playthrough import play

GAMES_PER_SETUP = 250
# Every legal move of every decision is tried (decide + JSON round trip) in one game of this many.
FULL_LEGAL_CHECK_EVERY = 10
STEP_ID = re.compile(r"[a-z0-9._-]+")
EVENTS = msgspec.json.Decoder(event_union(GAME))
COMMANDS = msgspec.json.Decoder(command_union(GAME))
COLOURS = ("red", "yellow", "blue", "green", "black")
BONUS = {"red": 5, "yellow": 4, "blue": 3, "green": 2, "black": 1}


def every_card(seats: int) -> list[int]:
    purple = [c.id for c in PURPLE_CARDS if abs(c.value) <= seats]
    return sorted([c.id for c in CHARACTER_DECK] + purple)


def cards_in_play(state: FbiState) -> list[int]:
    """Every card id in the deck, on the table, in a slammer or released, sorted."""
    ids = [*state.deck, *state.table, *state.released]
    for slammer in state.slammers:
        ids += slammer
    return sorted(ids)


def expected_scores(slammers: list[list[int]]) -> list[int]:
    """Independent of the scoring module: docs/house-rules.md#fbi-bonus-cards and
    docs/house-rules.md#fbi-score-ties."""
    totals = [sum(ALL_CARDS[i].value for i in slammer) for slammer in slammers]
    for colour in COLOURS:
        sums = [
            sum(ALL_CARDS[i].value for i in s if ALL_CARDS[i].colour == colour) for s in slammers
        ]
        top = max(sums)
        if top > 0 and sums.count(top) == 1:
            totals[sums.index(top)] += BONUS[colour]
    return totals


class Checker:
    def __init__(self, seats: int, check_all_legal: bool) -> None:
        self.all_cards = every_card(seats)
        self.check_all_legal = check_all_legal
        self.slammers: list[list[int]] = [[] for _ in range(seats)]
        self.steps: list[str] = []
        self.reported = 0

    def on_event(self, match: Match, event: Any) -> None:
        self.reported += 1
        self.check_cards(match)

    def check_cards(self, match: Match) -> None:
        state = match.state
        if state is not None and state.phase != "dealing":
            assert cards_in_play(state) == self.all_cards

    def follow(self, event: Any) -> None:
        """Slammers followed from the events alone, for the independent score check."""
        if isinstance(event, PurpleCardsDealt):
            for seat, dealt in enumerate(event.slammers):
                self.slammers[seat] += [c.id for c in dealt]
        elif isinstance(event, CardReleased):
            self.slammers[event.seat].remove(event.card.id)
        elif isinstance(event, CharacterArrested):
            self.slammers[event.seat].append(event.card.id)

    def choose(
        self, rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng
    ) -> Any:
        step = next(p.step for p in GAME.pending(match.state) if p.seat == seat)
        assert STEP_ID.fullmatch(step)
        if not self.steps or self.steps[-1] != step:
            assert step not in self.steps, f"step id {step} reused"
            self.steps.append(step)
        if self.check_all_legal:
            for move in legal:
                assert COMMANDS.decode(msgspec.json.encode(move)) == move
                assert GAME.decide(match.state, seat, move, rng)
            others = [
                s
                for s in range(match.state.seats)
                if s not in {p.seat for p in GAME.pending(match.state)}
            ]
            assert all(GAME.legal(match.state, s) == [] for s in others)
        return rng.choice(legal)


@pytest.mark.parametrize("variant", ["base", "stacked"])
@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_random_games_keep_every_invariant(seats: int, variant: str) -> None:
    rules = MatchEngine(GAME)
    for game in range(GAMES_PER_SETUP):
        checker = Checker(seats, check_all_legal=game % FULL_LEGAL_CHECK_EVERY == 0)
        seed = seats * 100_000 + (variant == "stacked") * 10_000 + game
        match, events = play(
            GAME,
            {"variant": variant},
            seats,
            seed,
            chooser=checker.choose,
            on_event=checker.on_event,
        )

        state = match.state
        outcome = rules.result(match)
        assert outcome is not None
        assert GAME.pending(state) == []
        assert state.turn == math.ceil(len(CHARACTER_DECK) / (2 * seats))
        # Replay from scratch (the setup events included, which play() does not report).
        setup_events = len(events) - checker.reported
        replayed: Match | None = None
        for index, event in enumerate(events):
            assert EVENTS.decode(msgspec.json.encode(event)) == event
            replayed = rules.fold(replayed, event)
            if index < setup_events:
                checker.check_cards(replayed)
            checker.follow(event)
        assert replayed is not None
        assert replayed.state == state
        assert state.slammers == checker.slammers
        expected = expected_scores(checker.slammers)
        assert outcome.scores == expected
        ended = events[-1]
        assert isinstance(ended, GameEnded)
        assert ended.scores == expected
        best = max(expected)
        assert outcome.winners == [s for s in range(seats) if expected[s] == best]
