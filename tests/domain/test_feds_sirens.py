"""The Feds: sirens (the rulebook's New Orleans variant, and the new-orleans house card)."""

from __future__ import annotations

import pytest

from domain.errors import IllegalMove
from domain.feds.cards import Criminals
from domain.feds.commands import ArrestCriminals
from domain.feds.events import (
    BadgePassed,
    CriminalsArrested,
    GameSetUp,
    SirenShare,
    SirenSounded,
)
from domain.feds.options import FedsOptions
from domain.feds.rules import legal, pending
from domain.feds.state import FedsState, FieldAgent
from domain.rng import Rng
from tests.domain.feds_helpers import (
    BLUE,
    GREEN,
    OFFICER,
    RED,
    at,
    crims,
    field,
    given,
    mole,
    of_type,
    run,
    spot,
    when,
)

# Green 6 is strongest; Red and Blue have 3 each, Red's card lies closer: Red is second.
CONTESTED = field((RED, "plain-3"), (BLUE, "plain-3"), (GREEN, "plain-6"))


def _variant(criminals: Criminals, siren: int = 3) -> FedsState:
    return given(
        seats=3,
        sirens=True,
        phase="deploy",
        club=spot(criminals, field=CONTESTED, siren=siren),
    )


def test_a_mini_bust_gives_the_strongest_two_different_criminals_and_the_second_one() -> None:
    state, events = run(_variant(crims(pink=2, blue=1, lime=1)))
    assert of_type(events, SirenSounded) == [
        SirenSounded(
            location="club",
            siren=3,
            shares=[SirenShare(GREEN, 2), SirenShare(RED, 1)],
        )
    ]
    assert at(state, "club").siren is None  # the siren is removed
    assert [(p.seat, p.step) for p in pending(state)] == [(GREEN, "r1.siren.0")]
    assert ArrestCriminals(colours=["pink", "lime"]) in legal(state, GREEN)
    with pytest.raises(IllegalMove):
        when(state, GREEN, ArrestCriminals(colours=["pink", "pink"]))
    with pytest.raises(IllegalMove):
        when(state, GREEN, ArrestCriminals(colours=["pink"]))  # two colours are there
    with pytest.raises(IllegalMove):
        when(state, GREEN, ArrestCriminals(colours=["pink", "orange"]))
    state, _ = when(state, GREEN, ArrestCriminals(colours=["pink", "lime"]))
    assert legal(state, RED) == [
        ArrestCriminals(colours=["pink"]),
        ArrestCriminals(colours=["blue"]),
    ]
    state, events = when(state, RED, ArrestCriminals(colours=["blue"]))
    assert state.jails == [crims(), crims(blue=1), crims(pink=1, lime=1)]
    assert at(state, "club").criminals == crims(pink=1)
    assert of_type(events, BadgePassed)  # the round goes on


def test_the_strongest_takes_fewer_when_fewer_colours_remain() -> None:
    state, _ = run(_variant(crims(pink=3)))
    assert legal(state, GREEN) == [ArrestCriminals(colours=["pink"])]
    state, _ = when(state, GREEN, ArrestCriminals(colours=["pink"]))
    state, _ = when(state, RED, ArrestCriminals(colours=["pink"]))
    assert at(state, "club").criminals == crims(pink=1)


def test_a_mini_bust_ends_when_the_location_runs_out_of_criminals() -> None:
    state, _ = run(_variant(crims(pink=1, orange=1)))
    state, events = when(state, GREEN, ArrestCriminals(colours=["pink", "orange"]))
    assert not of_type(events, CriminalsArrested)[1:]
    assert state.phase == "choose"
    assert state.jails[RED] == crims()


def test_no_mini_bust_below_the_siren_number() -> None:
    state, events = run(_variant(crims(pink=2), siren=4))
    assert not of_type(events, SirenSounded)
    assert at(state, "club").siren == 4


def test_the_siren_is_checked_after_every_deploy_of_step_two() -> None:
    # Blue's deploy pushes Red's mole: the field reaches 3 only during step 2.
    state = given(
        seats=3,
        sirens=True,
        phase="deploy",
        club=spot(
            crims(lime=2),
            field=field((GREEN, "plain-6"), (RED, "plain-3")),
            mole=mole(RED, "plain-4"),
            siren=3,
        ),
        chosen={BLUE: ("plain-5", "club")},
    )
    state, events = run(state)
    sounded = of_type(events, SirenSounded)
    assert sounded == [
        SirenSounded(location="club", siren=3, shares=[SirenShare(RED, 2), SirenShare(GREEN, 1)])
    ]
    assert events.index(sounded[0]) > 1  # after the deploy events


def test_the_officer_arrests_at_a_mini_bust_in_its_colour_order() -> None:
    state = given(
        seats=2,
        sirens=True,
        phase="deploy",
        officer_deck=["plain-4"],  # Club + 4: the car comes back to the Club
        club=spot(
            crims(pink=1, lime=1, orange=1),
            field=field((OFFICER, "plain-6"), (BLUE, "plain-3")),
            mole=mole(RED, "plain-3"),  # the Officer's deploy pushes it: 3 field agents
            siren=3,
        ),
    )
    state, events = run(state)
    assert of_type(events, CriminalsArrested) == [
        CriminalsArrested(
            owner=None, location="club", criminals=crims(orange=1, lime=1), cause="siren"
        )
    ]
    assert [p.seat for p in pending(state)] == [BLUE]
    assert legal(state, BLUE) == [ArrestCriminals(colours=["pink"])]


def _new_orleans(club_field: list[FieldAgent], criminals: Criminals) -> FedsState:
    return given(
        seats=3,
        city="new-orleans",
        phase="deploy",
        club=spot(criminals, field=club_field, siren=3),
    )


def test_a_new_orleans_mini_bust_gives_the_single_strongest_one_criminal() -> None:
    state, events = run(_new_orleans(CONTESTED, crims(pink=2, blue=1)))
    assert of_type(events, SirenSounded)[0].shares == [SirenShare(GREEN, 1)]
    assert legal(state, GREEN) == [
        ArrestCriminals(colours=["pink"]),
        ArrestCriminals(colours=["blue"]),
    ]
    state, _ = when(state, GREEN, ArrestCriminals(colours=["blue"]))
    assert state.jails[GREEN] == crims(blue=1)
    assert state.jails[RED] == crims()
    assert at(state, "club").siren is None


def test_a_new_orleans_mini_bust_with_a_tie_at_the_top_arrests_nobody() -> None:
    tied = field((RED, "plain-5"), (BLUE, "plain-5"), (GREEN, "plain-3"))
    state, events = run(_new_orleans(tied, crims(pink=2)))
    assert of_type(events, SirenSounded) == [SirenSounded(location="club", siren=3, shares=[])]
    assert at(state, "club").siren is None
    assert at(state, "club").criminals == crims(pink=2)
    assert state.phase == "choose"


def test_sirens_are_set_one_per_location_at_random() -> None:
    from domain.feds import GAME

    (event,) = GAME.setup(FedsOptions(sirens=True), 3, Rng(b"x"))
    assert isinstance(event, GameSetUp)
    assert sorted(s for s in event.siren_tokens if s is not None) == [3, 4, 5, 6]


# ---- Decided for every mini-bust (docs/house-rules.md#feds-mini-bust-who) -----------------


def test_a_mini_bust_counts_field_cards_only_never_the_face_down_mole() -> None:
    # Blue's face-down 6 at the Club would make Blue the strongest if it counted.
    state = given(
        seats=3,
        sirens=True,
        phase="deploy",
        club=spot(crims(pink=2, lime=1), field=CONTESTED, mole=mole(BLUE, "plain-6"), siren=3),
    )
    state, events = run(state)
    assert of_type(events, SirenSounded) == [
        SirenSounded(location="club", siren=3, shares=[SirenShare(GREEN, 2), SirenShare(RED, 1)])
    ]
    assert at(state, "club").mole == mole(BLUE, "plain-6")  # still face down, uncounted


def test_mini_busts_are_checked_top_to_bottom() -> None:
    motel_field = field((BLUE, "plain-6"), (RED, "plain-3"), (GREEN, "plain-3"))
    state = given(
        seats=3,
        sirens=True,
        phase="deploy",
        docks=spot(crims(pink=1), field=CONTESTED, siren=3),
        motel=spot(crims(lime=1), field=motel_field, siren=3),
    )
    state, events = run(state)
    assert [e.location for e in of_type(events, SirenSounded)] == ["docks"]
    assert [p.seat for p in pending(state)] == [GREEN]
    state, events = when(state, GREEN, ArrestCriminals(colours=["pink"]))
    assert [e.location for e in of_type(events, SirenSounded)] == ["motel"]
    assert [p.seat for p in pending(state)] == [BLUE]
    assert (at(state, "docks").siren, at(state, "motel").siren) == (None, None)
