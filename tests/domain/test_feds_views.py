"""The Feds: views and redacted events never show what a seat may not know."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
import pytest
from msgspec.structs import replace

from domain.feds import GAME
from domain.feds.cards import Agent
from domain.feds.events import (
    AgentChosen,
    FedsEvent,
    GameSetUp,
    MolePeeked,
    MolePlaced,
    UtilityTokenFace,
)
from domain.feds.options import FedsOptions
from domain.feds.state import Choice, FedsState, Mole, UtilityToken
from domain.feds.views import FedsView, MoleView
from domain.match import Match, MatchEngine, event_union
from domain.rng import Rng
from tests.domain.feds_helpers import BLUE, GREEN, RED, crims, given, mole, spot
from tests.domain.playthrough import play

DECODE_VIEW = msgspec.json.Decoder(FedsView).decode
DECODE_EVENT = msgspec.json.Decoder(event_union(GAME)).decode

E = TypeVar("E", bound=FedsEvent)


def _redacted(event: E, seat: int | None) -> E:
    """``GAME.redact``, checked to hand back an event of the same type."""
    seen = GAME.redact(event, seat)
    assert isinstance(seen, type(event))
    return seen


def _mole_seen(state: FedsState, seat: int | None) -> MoleView:
    """The mole at the first location, as ``seat`` sees it (there must be one)."""
    seen = GAME.view(state, seat).locations[0].mole
    assert seen is not None
    return seen


def _states(options: dict[str, Any], seats: int, seed: int) -> tuple[list[FedsState], list[Any]]:
    states: list[FedsState] = []

    def keep(match: Match, event: Any) -> None:
        if match.state is not None:
            states.append(match.state)

    _, events = play(GAME, options, seats, seed, on_event=keep)
    return states[::3], events


def _shuffle_hidden(state: FedsState, owner: int, viewer: int | None, rng: Rng) -> FedsState:
    """The same table, with ``owner``'s cards that ``viewer`` cannot see dealt differently."""
    spots = list(state.locations)
    hidden: list[Agent] = list(state.hands[owner])
    moles: list[tuple[int, Mole]] = [
        (i, s.mole)
        for i, s in enumerate(spots)
        if s.mole is not None
        and s.mole.owner == owner
        and not s.mole.face_up
        and viewer not in s.mole.seen_by
    ]
    hidden += [m.agent for _, m in moles]
    choice = state.chosen[owner]
    if choice is not None:
        hidden.append(choice.agent)
    dealt = rng.shuffled(hidden)
    hands = list(state.hands)
    hands[owner] = [dealt.pop() for _ in state.hands[owner]]
    for i, m in moles:
        spots[i] = replace(spots[i], mole=replace(m, agent=dealt.pop()))
    chosen = list(state.chosen)
    if choice is not None:
        chosen[owner] = Choice(dealt.pop(), choice.location)
    officer = state.officer
    if officer is not None:
        officer = replace(officer, deck=rng.shuffled(officer.deck))
    # Face-down utility tokens trade values.
    down: list[tuple[int, UtilityToken]] = [
        (i, s.utility_token)
        for i, s in enumerate(spots)
        if s.utility_token is not None and not s.utility_token.face_up
    ]
    values = rng.shuffled([t.value for _, t in down])
    for i, t in down:
        spots[i] = replace(spots[i], utility_token=replace(t, value=values.pop()))
    return replace(state, locations=spots, hands=hands, chosen=chosen, officer=officer)


@pytest.mark.parametrize(
    ("options", "seats"),
    [
        ({"city": "detroit"}, 3),
        ({"city": "new-orleans"}, 2),
        ({"city": "chicago", "sirens": True}, 4),
        ({"city": "detroit", "sirens": True}, 2),
    ],
)
def test_a_view_is_the_same_whatever_the_cards_the_seat_cannot_see(
    options: dict[str, Any], seats: int
) -> None:
    rng = Rng(b"deal")
    differing = 0
    for seed in range(3):
        states, _ = _states(options, seats, seed)
        for state in states:
            for viewer in [*range(seats), None]:
                changed = state
                for owner in range(seats):
                    if owner != viewer:
                        changed = _shuffle_hidden(changed, owner, viewer, rng)
                differing += changed != state
                assert GAME.view(changed, viewer) == GAME.view(state, viewer)
                encoded = msgspec.json.encode(GAME.view(state, viewer))
                assert DECODE_VIEW(encoded) == GAME.view(state, viewer)
    assert differing > 100  # the hidden cards really were dealt differently


def test_a_seat_sees_its_own_hand_and_step_one_card_but_no_one_elses() -> None:
    state = given(
        seats=3,
        phase="deploy",
        hands=[["plain-3"], ["plain-4", "plain-5"], ["plain-6"]],
        chosen={BLUE: ("patrol", "club"), RED: ("redeploy", "docks")},
    )
    blue = GAME.view(state, BLUE)
    assert blue.players[BLUE].hand == ["plain-3"]
    assert blue.players[BLUE].chosen_agent == "patrol"
    assert blue.players[RED].hand is None
    assert blue.players[RED].hand_size == 2
    assert blue.players[RED].chosen_location == "docks"
    assert blue.players[RED].chosen_agent is None
    spectator = GAME.view(state, None)
    assert all(p.hand is None and p.chosen_agent is None for p in spectator.players)


def test_face_down_moles_show_only_their_owner_and_who_peeked() -> None:
    state = given(seats=3, club=spot(crims(pink=1), mole=mole(RED, "plain-6", seen_by=[GREEN])))
    assert _mole_seen(state, RED).agent == "plain-6"
    assert _mole_seen(state, GREEN).agent == "plain-6"
    assert _mole_seen(state, BLUE).agent is None
    assert _mole_seen(state, None).agent is None
    assert _mole_seen(state, BLUE).owner == RED


def test_face_down_utility_tokens_are_hidden_from_everyone_until_won() -> None:
    state = given(seats=3, club=spot(token=4, token_face_up=False), docks=spot(token=2))
    for seat in (BLUE, RED, GREEN, None):
        view = GAME.view(state, seat)
        assert view.locations[0].utility_token == UtilityTokenFace(None, False)
        assert view.locations[1].utility_token == UtilityTokenFace(2, True)


def test_the_setup_event_hides_the_officer_deck_and_face_down_tokens_from_everyone() -> None:
    (event,) = GAME.setup(FedsOptions(city="new-orleans"), 2, Rng(b"x"))
    assert isinstance(event, GameSetUp)
    assert event.officer_deck is not None
    for seat in (0, 1, None):
        seen = _redacted(event, seat)
        assert seen.officer_deck is None
        assert seen.officer_deck_size == 7
        assert seen.criminals == event.criminals
        for shown, real in zip(seen.utility_tokens, event.utility_tokens, strict=True):
            assert shown is not None
            assert real is not None
            assert shown.value == (real.value if real.face_up else None)


def test_choices_and_face_down_deploys_are_redacted_for_other_seats_and_spectators() -> None:
    chosen = AgentChosen(seat=RED, location="docks", agent="plain-6")
    placed = MolePlaced(location="docks", owner=RED, face_up=False, agent="plain-6")
    officer = MolePlaced(location="club", owner=None, face_up=True, agent="plain-4")
    peek = MolePeeked(seat=GREEN, location="docks", owner=RED, agent="plain-6")
    assert GAME.redact(chosen, RED) == chosen
    assert GAME.redact(placed, RED) == placed
    assert GAME.redact(peek, GREEN) == peek
    for seat in (BLUE, None):
        assert _redacted(chosen, seat).agent is None
        assert _redacted(placed, seat).agent is None
        assert _redacted(peek, seat).agent is None
        assert GAME.redact(officer, seat) == officer


def test_redacted_streams_carry_no_hidden_card_and_stay_valid_json() -> None:
    _, events = _states({"city": "detroit"}, 3, 11)
    for seat in (0, 1, 2, None):
        for event in events:
            seen = MatchEngine(GAME).redact(event, seat)
            assert DECODE_EVENT(msgspec.json.encode(seen)) == seen
            if isinstance(seen, AgentChosen | MolePeeked) and seen.seat != seat:
                assert seen.agent is None
            if isinstance(seen, MolePlaced) and not seen.face_up and seen.owner != seat:
                assert seen.agent is None
            if isinstance(seen, GameSetUp):
                assert seen.officer_deck is None
