"""What FBI shows to each seat and to spectators."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.fbi import GAME
from domain.fbi.commands import SelectAgents
from domain.fbi.events import DeckShuffled
from domain.fbi.state import FbiState
from domain.fbi.views import FbiView
from domain.match import Match, Rules
from domain.rng import Rng
from tests.domain.fbi_helpers import Deal, act, build, cards
from tests.domain.playthrough import play

VIEWERS: list[int | None] = [None, 0, 1, 2]


def states_of_a_game(seats: int = 3, seed: int = 7) -> tuple[list[FbiState], list[Any]]:
    """Every state where the game awaited a decision, and the whole event stream."""
    states: list[FbiState] = []

    def record(rules: Rules, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
        states.append(match.state)
        return rng.choice(legal)

    _, events = play(GAME, {"variant": "base"}, seats, seed, chooser=record)
    return states, events


def test_a_view_does_not_depend_on_the_undealt_deck_order() -> None:
    states, _ = states_of_a_game()
    for state in states[::7]:
        reordered = msgspec.structs.replace(state, deck=Rng(b"other").shuffled(state.deck))
        assert reordered.deck != state.deck or len(state.deck) < 2
        for seat in VIEWERS:
            assert GAME.view(reordered, seat) == GAME.view(state, seat)
            assert GAME.view(state, seat).deck_size == len(state.deck)


def test_another_seats_sealed_agent_choice_stays_hidden() -> None:
    deal = Deal()
    table = [deal.char("red", 3), deal.char("blue", -2)]
    state = build(3, deal=deal, phase="agents", table=table, arrest_order=[0, 1, 2])
    chosen, _ = act(state, 1, SelectAgents(first="red", second="2x"))
    other, _ = act(state, 1, SelectAgents(first="red", second="blue"))

    for seat in (None, 0, 2):
        assert GAME.view(chosen, seat) == GAME.view(state, seat) == GAME.view(other, seat)
        assert GAME.view(chosen, seat).agents[1] is None
    assert GAME.view(chosen, 1).agents[1] == ["red", "red"]


def test_agents_are_public_once_the_arrests_start() -> None:
    deal = Deal()
    state = build(
        2,
        deal=deal,
        phase="arrest",
        table=[deal.char("red", 3)],
        arrest_order=[1, 0],
        agents=[["red", "blue"], ["red", "red"]],
    )
    for seat in (None, 0, 1):
        assert GAME.view(state, seat).agents == [["red", "blue"], ["red", "red"]]


def test_the_view_shows_every_open_card() -> None:
    deal = Deal()
    table = [deal.char("green", 4), deal.char("red", -1)]
    slammers = [[deal.purple(2), deal.char("black", 5)], [deal.purple(-1)]]
    released = [deal.purple(1), deal.purple(-2)]
    state = build(
        2,
        deal=deal,
        table=table,
        slammers=slammers,
        released=released,
        handcuffs=1,
        releases=[(1, released[0])],
    )

    seen = GAME.view(state, None)

    assert seen.seat is None
    assert seen.table == cards(table)
    assert seen.slammers == [cards(s) for s in slammers]
    assert seen.released == cards(released)
    assert [(r.seat, r.card) for r in seen.releases] == [(1, cards(released[:1])[0])]
    assert seen.handcuffs_holder == 1
    assert seen.deck_size == 59 - 3  # two table cards and the black 5
    assert seen.scores == [7, -1]


def test_views_round_trip_through_json() -> None:
    states, _ = states_of_a_game(seats=4)
    decoder = msgspec.json.Decoder(FbiView)
    for state in states[::5]:
        for seat in VIEWERS:
            seen = GAME.view(state, seat)
            assert decoder.decode(msgspec.json.encode(seen)) == seen


@pytest.mark.parametrize("seat", VIEWERS)
def test_redact_hides_the_deck_order_from_everyone(seat: int | None) -> None:
    _, events = states_of_a_game()
    shuffled = next(e for e in events if isinstance(e, DeckShuffled))
    assert shuffled.card_ids is not None

    redacted = GAME.redact(shuffled, seat)

    assert redacted == DeckShuffled(size=59, card_ids=None)


@pytest.mark.parametrize("seat", VIEWERS)
def test_redact_leaves_the_open_events_unchanged(seat: int | None) -> None:
    _, events = states_of_a_game()
    fbi_events = [e for e in events if isinstance(e, GAME.event_types)]
    for event in fbi_events:
        if not isinstance(event, DeckShuffled):
            assert GAME.redact(event, seat) == event


def test_the_final_view_shows_bonuses_and_final_scores() -> None:
    _, events = states_of_a_game()
    final = Rules(GAME).replay(events).state
    seen = GAME.view(final, 0)
    outcome = GAME.result(final)
    assert outcome is not None
    assert seen.phase == "over"
    assert seen.scores == outcome.scores
    assert [b.colour for b in seen.bonuses] == ["red", "yellow", "blue", "green", "black"]
