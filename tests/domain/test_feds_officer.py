"""The Feds with 2 players: the Officer and the police car."""

from __future__ import annotations

import msgspec

from domain.feds import GAME
from domain.feds.commands import ArrestColour, RedeployAgent
from domain.feds.events import (
    BadgePassed,
    CriminalsArrested,
    MoleFlipped,
    MolePlaced,
    PoliceCarMoved,
    UtilityTokenWon,
)
from domain.feds.rules import pending
from domain.feds.scoring import standing
from tests.domain.feds_helpers import (
    BLUE,
    OFFICER,
    RED,
    at,
    crims,
    field,
    given,
    mole,
    of_type,
    officer_of,
    run,
    spot,
    when,
)


def test_the_officer_deploys_after_both_players_moving_the_car_down_by_its_card() -> None:
    state = given(
        seats=2,
        phase="deploy",
        badge=RED,
        officer_deck=["plain-3", "plain-4"],
        chosen={BLUE: ("plain-5", "club"), RED: ("plain-6", "docks")},
    )
    state, events = run(state)
    kinds = [type(e) for e in events]
    assert kinds[:4] == [MolePlaced, MolePlaced, PoliceCarMoved, MolePlaced]
    assert [e.owner for e in of_type(events, MolePlaced)] == [RED, BLUE, OFFICER]
    assert of_type(events, PoliceCarMoved) == [
        PoliceCarMoved(agent="plain-3", from_location="club", to_location="warehouse")
    ]
    assert events[3] == MolePlaced(location="warehouse", owner=None, face_up=True, agent="plain-3")
    assert officer_of(state).car == 3
    assert officer_of(state).deck == ["plain-4"]
    assert of_type(events, BadgePassed) == [BadgePassed(seat=BLUE, round=2)]


def test_the_officers_mole_is_face_up_for_everyone() -> None:
    state = given(seats=2, phase="deploy", officer_deck=["plain-5"])
    state, _ = run(state)
    assert at(state, "docks").mole == mole(OFFICER, "plain-5")  # Club + 5 wraps to the Docks
    for seat in (BLUE, RED, None):
        seen = GAME.view(state, seat).locations[1].mole
        assert seen is not None
        assert seen.agent == "plain-5"
        assert seen.face_up


def test_the_police_car_wraps_from_the_warehouse_back_to_the_club() -> None:
    state = given(seats=2, phase="deploy", car="warehouse", officer_deck=["patrol"])
    state, events = run(state)
    assert of_type(events, PoliceCarMoved) == [
        PoliceCarMoved(agent="patrol", from_location="warehouse", to_location="docks")
    ]
    assert at(state, "docks").mole == mole(OFFICER, "patrol")


def test_the_officer_pushes_a_mole_even_at_a_closed_location_activating_it_for_its_owner() -> None:
    seven = field(*[(RED, a) for a in ("plain-3", "plain-4", "plain-5", "plain-6", "patrol")])
    seven += field((BLUE, "plain-3"), (BLUE, "plain-4"))
    state = given(
        seats=2,
        phase="deploy",
        officer_deck=["plain-6"],
        motel=spot(crims(pink=1), field=seven, closed=True, mole=mole(BLUE, "redeploy")),
    )
    state, events = run(state)
    assert of_type(events, MoleFlipped) == [
        MoleFlipped(location="motel", owner=BLUE, agent="redeploy", cause="officer", power_for=BLUE)
    ]
    assert at(state, "motel").mole == mole(OFFICER, "plain-6")
    assert [p.seat for p in pending(state)] == [BLUE]
    state, _ = when(state, BLUE, RedeployAgent(agent="plain-3", to_location="club"))
    assert at(state, "club").field == field((BLUE, "plain-3"))


def test_the_officer_never_uses_a_power() -> None:
    state = given(
        seats=2,
        phase="deploy",
        badge=BLUE,
        club=spot(crims(pink=1), mole=mole(OFFICER, "infiltrate")),
        docks=spot(mole=mole(RED, "plain-3")),
        officer_deck=["plain-4"],
        chosen={BLUE: ("plain-4", "club")},
    )
    state, events = run(state)
    flipped = of_type(events, MoleFlipped)[0]
    assert flipped.owner is None
    assert flipped.power_for is None
    assert not state.activations
    assert at(state, "docks").mole == mole(RED, "plain-3")  # nobody infiltrated it


def test_at_the_bust_the_officer_takes_orange_lime_blue_pink_then_gray() -> None:
    state = given(
        seats=2,
        phase="bust",
        club=spot(
            crims(pink=1, blue=1, lime=1, orange=1, gray=1),
            field=field((OFFICER, "plain-6"), (BLUE, "plain-3")),
            token=4,
        ),
    )
    state, events = run(state)
    assert of_type(events, UtilityTokenWon) == [
        UtilityTokenWon(owner=None, location="club", value=4)
    ]
    assert of_type(events, CriminalsArrested) == [
        CriminalsArrested(owner=None, location="club", criminals=crims(orange=1), cause="bust")
    ]
    state, events = when(state, BLUE, ArrestColour(colour="lime"))
    assert of_type(events, CriminalsArrested)[1].criminals == crims(blue=1)
    state, events = when(state, BLUE, ArrestColour(colour="gray"))
    assert of_type(events, CriminalsArrested)[1].criminals == crims(pink=1)
    assert officer_of(state).jail == crims(orange=1, blue=1, pink=1)
    assert state.jails[BLUE] == crims(lime=1, gray=1)
    assert state.phase == "over"


def test_the_officer_is_not_scored() -> None:
    state = given(seats=2, jails=[crims(pink=1), crims(blue=1)])
    officer = msgspec.structs.replace(officer_of(state), jail=crims(orange=6), utility_tokens=[4])
    state = msgspec.structs.replace(state, officer=officer, phase="over")
    result = standing(state)
    assert result.scores == [1, 2]
    assert result.winners == [RED]
    assert result.places == [2, 1]


def test_a_utility_token_the_officer_wins_leaves_the_game() -> None:
    state = given(
        seats=2,
        phase="bust",
        jails=[crims(pink=1), crims(blue=1)],
        club=spot(crims(orange=1), field=field((OFFICER, "plain-6"), (BLUE, "plain-3")), token=4),
    )
    state, events = run(state)
    assert of_type(events, UtilityTokenWon) == [
        UtilityTokenWon(owner=None, location="club", value=4)
    ]
    assert state.phase == "over"
    assert at(state, "club").utility_token is None
    assert state.utility_tokens == [[], []]  # no player holds it
    assert standing(state).scores == [1, 2]  # it counts for nobody
