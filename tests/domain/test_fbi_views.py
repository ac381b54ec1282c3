"""What FBI shows to each seat and to spectators."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.fbi import GAME
from domain.fbi.cards import card
from domain.fbi.commands import SelectAgents, UseAgent
from domain.fbi.events import AgentsSelected, CharacterArrested, DeckShuffled, FbiEvent
from domain.fbi.state import FbiState
from domain.fbi.views import FbiView
from domain.match import Match, MatchEngine, SealRevealed
from domain.rng import Rng
from tests.domain.fbi_helpers import (
    Deal,
    act,
    agents_it_may_hold,
    build,
    cards,
    positions_with_hidden_agents,
    with_agents,
)
from tests.domain.playthrough import play

VIEWERS: list[int | None] = [None, 0, 1, 2]


def states_of_a_game(seats: int = 3, seed: int = 7) -> tuple[list[FbiState], list[Any]]:
    """Every state where the game awaited a decision, and the whole event stream."""
    states: list[FbiState] = []

    def record(rules: MatchEngine, match: Match, seat: int, legal: list[Any], rng: Rng) -> Any:
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
        assert GAME.view(chosen, seat) == GAME.view(other, seat)
        assert GAME.view(chosen, seat).agents[1] is None
        assert GAME.view(chosen, seat).agents_left[1] == 2  # it chose; not what
    assert GAME.view(chosen, 1).agents[1] == ["red", "red"]


def test_other_seats_and_spectators_see_only_how_many_agents_a_seat_holds() -> None:
    deal = Deal()
    state = build(
        3,
        deal=deal,
        phase="arrest",
        table=[deal.char("red", 3), deal.char("black", 1)],
        arrest_order=[1, 0, 2],
        agents=[["red", "black"], ["red", "red"], ["black", "red"]],
    )
    for seat in (None, 0, 1, 2):
        seen = GAME.view(state, seat)
        assert seen.agents == [
            held if other == seat else None
            for other, held in enumerate([["red", "black"], ["red", "red"], ["black", "red"]])
        ]
        assert seen.agents_left == [2, 2, 2]
        assert seen.agents_played == [[], [], []]


def test_an_agent_becomes_public_when_its_owner_plays_it() -> None:
    deal = Deal()
    red = deal.char("red", 3)
    state = build(
        3,
        deal=deal,
        phase="arrest",
        table=[red, deal.char("black", 1)],
        arrest_order=[1, 0, 2],
        agents=[["red", "black"], ["red", "red"], ["black", "red"]],
    )

    state, events = act(state, 1, UseAgent(colour="red"))

    assert events == [CharacterArrested(seat=1, agent="red", card=card(red))]
    for seat in (None, 0, 1, 2):
        assert GAME.redact(events[0], seat) == events[0]
        seen = GAME.view(state, seat)
        assert seen.agents_played == [[], ["red"], []]
        assert seen.agents_left == [2, 1, 2]
    assert GAME.view(state, 1).agents[1] == ["red"]
    assert GAME.view(state, 0).agents[1] is None


@pytest.mark.parametrize(("seats", "seed"), [(2, 3), (3, 5), (4, 7), (5, 9)])
def test_no_view_depends_on_the_agents_another_seat_still_holds(seats: int, seed: int) -> None:
    changed = 0
    for state, selecting in positions_with_hidden_agents(seats, seed)[::3]:
        for owner in range(seats):
            for held in agents_it_may_hold(state, selecting, owner):
                other = with_agents(state, owner, held)
                changed += other != state
                for seat in [None, *range(seats)]:
                    if seat != owner:
                        assert GAME.view(other, seat) == GAME.view(state, seat)
    assert changed > 0  # there were other agents the seats might have held


def test_a_seats_agent_selection_is_redacted_for_everyone_else() -> None:
    _, events = states_of_a_game(seats=4)
    selections = [e for e in events if isinstance(e, AgentsSelected)]
    assert len(selections) >= 4
    for event in selections:
        assert None not in (event.first, event.second)  # the stored event holds both
        assert GAME.redact(event, event.seat) == event
        for seat in (None, 0, 1, 2, 3):
            if seat != event.seat:
                assert GAME.redact(event, seat) == AgentsSelected(seat=event.seat)
                # Whatever it chose, the others see the same event.
                assert GAME.redact(AgentsSelected(event.seat, "black", "2x"), seat) == (
                    GAME.redact(event, seat)
                )


def test_no_redacted_event_of_the_match_tells_another_seat_which_agents_a_seat_chose() -> None:
    _, events = states_of_a_game(seats=3)
    rules = MatchEngine(GAME)
    for viewer in [None, 0, 1, 2]:
        own = 0
        for event in events:
            seen = rules.redact(event, viewer)
            if isinstance(seen, SealRevealed | AgentsSelected) and seen.seat == viewer:
                assert seen == event
                own += 1
            elif isinstance(seen, SealRevealed):
                assert (seen.move, seen.salt) == (None, None)
            elif isinstance(seen, AgentsSelected):
                assert (seen.first, seen.second) == (None, None)
        assert own > 0 or viewer is None


def test_a_redacted_agent_selection_cannot_be_folded_into_a_state() -> None:
    state = build(2, phase="agents", arrest_order=[0, 1])
    with pytest.raises(ValueError, match="redacted"):
        GAME.evolve(state, AgentsSelected(seat=0))


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
    fbi_events = [e for e in events if isinstance(e, FbiEvent)]
    for event in fbi_events:
        if not isinstance(event, DeckShuffled | AgentsSelected):
            assert GAME.redact(event, seat) == event


def test_the_final_view_shows_bonuses_and_final_scores() -> None:
    _, events = states_of_a_game()
    final = MatchEngine(GAME).replay(events).state
    seen = GAME.view(final, 0)
    outcome = GAME.result(final)
    assert outcome is not None
    assert seen.phase == "over"
    assert seen.scores == outcome.scores
    assert [b.colour for b in seen.bonuses] == ["red", "yellow", "blue", "green", "black"]
