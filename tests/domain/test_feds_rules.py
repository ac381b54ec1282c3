"""The Feds: rounds, deploys, closing, the bust, scoring and refusals, on fixed tables."""

from __future__ import annotations

import msgspec
import pytest

from domain.errors import GameOver, IllegalMove, InvalidOptions, NotYourTurn, WrongPhase
from domain.feds import GAME
from domain.feds.arrests import arrest_order
from domain.feds.cards import CRIMINALS, Criminals
from domain.feds.commands import ArrestColour, ChooseAgent, DeclinePower, RedeployAgent
from domain.feds.events import (
    AgentChosen,
    ArrestsBegan,
    BadgePassed,
    GameEnded,
    GameSetUp,
    LocationBusted,
    LocationClosed,
    LocationReopened,
    MoleFlipped,
    MolePlaced,
    UtilityTokenWon,
)
from domain.feds.options import FedsOptions
from domain.feds.rules import legal, pending
from domain.feds.scoring import jail_points, standing
from domain.feds.state import Activation
from domain.match import MatchEngine, SeatSpec
from domain.rng import Rng
from tests.domain.feds_helpers import (
    BLUE,
    GREEN,
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

# ---- setup -------------------------------------------------------------------------------


def _first_event(options: FedsOptions, seats: int, rng: Rng) -> GameSetUp:
    event = GAME.setup(options, seats, rng)[0]
    assert isinstance(event, GameSetUp)
    return event


def test_setup_draws_eight_criminals_per_location_and_records_the_badge_holder() -> None:
    (event,) = GAME.setup(FedsOptions(), 3, Rng(b"seed", "setup"))
    assert isinstance(event, GameSetUp)
    assert [c.total() for c in event.criminals] == [8, 8, 8, 8]
    total = Criminals()
    for c in event.criminals:
        total = total.plus(c)
    assert total == CRIMINALS
    assert 0 <= event.badge < 3
    assert event.officer_deck is None
    assert all(t is not None and t.face_up for t in event.utility_tokens)
    assert sorted(t.value for t in event.utility_tokens if t and t.value) == [1, 2, 3, 4]
    assert event.siren_tokens == [None] * 4


def test_the_badge_starting_seat_comes_from_the_rng() -> None:
    badges = {_first_event(FedsOptions(), 4, Rng(bytes([i]), "setup")).badge for i in range(40)}
    assert badges == {0, 1, 2, 3}


def test_two_players_get_a_shuffled_officer_deck_and_the_car_on_the_club() -> None:
    (event,) = GAME.setup(FedsOptions(city="detroit"), 2, Rng(b"seed", "setup"))
    assert isinstance(event, GameSetUp)
    assert event.officer_deck is not None
    assert sorted(event.officer_deck) == sorted(
        ["infiltrate", "redeploy", "patrol", "plain-3", "plain-4", "plain-5", "plain-6"]
    )
    state = GAME.evolve(None, event)
    assert state.officer is not None
    assert state.officer.car == 0
    assert event.utility_tokens == [None] * 4


@pytest.mark.parametrize(
    ("options", "seats"),
    [
        ({"city": "new-orleans", "sirens": True}, 3),
        ({"city": "paris"}, 3),
        ({"colour": "blue"}, 3),
        ({}, 1),
        ({}, 5),
    ],
)
def test_bad_options_or_seat_counts_are_refused(options: dict[str, object], seats: int) -> None:
    with pytest.raises(InvalidOptions):
        MatchEngine(GAME).create("g", options, [SeatSpec("human")] * seats, b"s" * 32)


# ---- step 1 and step 2 -------------------------------------------------------------------


def test_step_one_is_one_sealed_step_for_every_seat() -> None:
    state = given(seats=3)
    assert [(p.seat, p.step, p.sealed) for p in pending(state)] == [
        (0, "r1.agents", True),
        (1, "r1.agents", True),
        (2, "r1.agents", True),
    ]


def test_choices_are_deployed_from_the_badge_holder_clockwise_pushing_moles_into_the_field() -> (
    None
):
    state = given(
        seats=3,
        badge=RED,
        phase="deploy",
        chosen={BLUE: ("plain-3", "club"), RED: ("plain-4", "club"), GREEN: ("plain-5", "club")},
    )
    state, events = run(state)
    placed = [(e.owner, e.agent) for e in of_type(events, MolePlaced)]
    assert placed == [(RED, "plain-4"), (GREEN, "plain-5"), (BLUE, "plain-3")]
    assert at(state, "club").field == field((RED, "plain-4"), (GREEN, "plain-5"))
    assert at(state, "club").mole == mole(BLUE, "plain-3")
    assert of_type(events, BadgePassed) == [BadgePassed(seat=GREEN, round=2)]
    assert state.phase == "choose"


def test_the_last_choice_of_step_one_triggers_the_deploys() -> None:
    state = given(seats=2, city="detroit", chosen={0: ("plain-3", "docks")})
    state = msgspec.structs.replace(state, hands=[["plain-4"], ["plain-5", "plain-6"]])
    state, events = when(state, 1, ChooseAgent(agent="plain-6", location="motel"))
    assert events[0] == AgentChosen(seat=1, location="motel", agent="plain-6")
    assert state.hands[1] == ["plain-5"]
    assert {(e.owner, e.location) for e in of_type(events, MolePlaced)} >= {
        (0, "docks"),
        (1, "motel"),
    }


def test_the_game_lasts_seven_rounds_and_then_the_bust_begins() -> None:
    state = given(seats=3, phase="deploy", round=7)
    state, events = run(state)
    assert not of_type(events, BadgePassed)
    assert of_type(events, ArrestsBegan)
    assert state.phase == "over"  # nothing to arrest anywhere
    assert isinstance(events[-1], GameEnded)


# ---- step 3: closing ---------------------------------------------------------------------


def test_a_field_of_seven_agents_closes_its_location_for_step_one() -> None:
    six = field(*[(RED, a) for a in ("plain-3", "plain-4", "plain-5", "plain-6", "patrol")])
    six.append(field((GREEN, "plain-6"))[0])
    state = given(
        seats=3,
        phase="deploy",
        club=spot(crims(pink=2), field=six, mole=mole(GREEN, "plain-5")),
        chosen={BLUE: ("plain-3", "club")},
    )
    state, events = run(state)
    assert of_type(events, LocationClosed) == [LocationClosed(location="club")]
    assert at(state, "club").closed
    for move in legal(state, BLUE):
        assert isinstance(move, ChooseAgent)
        assert move.location != "club"
    with pytest.raises(IllegalMove):
        when(state, BLUE, ChooseAgent(agent="plain-4", location="club"))


def test_a_closed_location_reopens_when_its_field_drops_below_seven() -> None:
    seven = field(
        *[(RED, a) for a in ("plain-3", "plain-4", "plain-5", "plain-6", "patrol")],
        (BLUE, "plain-3"),
        (GREEN, "plain-6"),
    )
    state = given(
        seats=3,
        phase="deploy",
        club=spot(crims(pink=1), field=seven, closed=True),
        docks=spot(field=field((BLUE, "redeploy"))),
        activations=[Activation(seat=BLUE, owner=BLUE, agent="redeploy", location=1)],
    )
    state, events = when(state, BLUE, RedeployAgent(agent="plain-3", to_location="motel"))
    assert of_type(events, LocationReopened) == [LocationReopened(location="club")]
    assert not at(state, "club").closed
    assert at(state, "motel").field == field((BLUE, "plain-3"))


# ---- the bust ----------------------------------------------------------------------------


def test_arrest_order_breaks_ties_for_the_card_closest_to_the_location() -> None:
    # The rulebook's example: Blue 7, Green and Red 3 each, Red's card lies closer.
    cards = field((BLUE, "plain-4"), (RED, "plain-3"), (GREEN, "plain-3"), (BLUE, "plain-3"))
    assert arrest_order(cards) == [(BLUE, 7), (RED, 3), (GREEN, 3)]


def test_the_rulebook_bust_example_arrests_blue_red_green_then_blue_again() -> None:
    cards = field((BLUE, "plain-4"), (RED, "plain-3"), (GREEN, "plain-3"), (BLUE, "plain-3"))
    state = given(
        seats=3,
        city="detroit",
        phase="bust",
        club=spot(crims(lime=2, blue=2, gray=1, pink=3), field=cards),
    )
    state, events = run(state)
    assert of_type(events, LocationBusted) == [
        LocationBusted(location="club", order=[BLUE, RED, GREEN], strengths=[7, 3, 3])
    ]
    state, _ = when(state, BLUE, ArrestColour(colour="lime"))
    with pytest.raises(NotYourTurn):
        when(state, BLUE, ArrestColour(colour="blue"))
    state, _ = when(state, RED, ArrestColour(colour="blue"))
    state, _ = when(state, GREEN, ArrestColour(colour="gray"))
    state, events = when(state, BLUE, ArrestColour(colour="pink"))
    assert state.jails == [crims(lime=2, pink=3), crims(blue=2), crims(gray=1)]
    assert state.phase == "over"
    assert isinstance(events[-1], GameEnded)


def test_at_the_bust_the_mole_flips_into_the_field_without_activating_its_power() -> None:
    state = given(
        seats=3,
        phase="bust",
        club=spot(crims(pink=1), field=field((RED, "plain-3")), mole=mole(BLUE, "infiltrate")),
        docks=spot(mole=mole(GREEN, "plain-4")),
    )
    state, events = run(state)
    flipped = of_type(events, MoleFlipped)[0]
    assert flipped == MoleFlipped(
        location="club", owner=BLUE, agent="infiltrate", cause="bust", power_for=None
    )
    assert not state.activations
    assert pending(state)[0].seat == RED  # Red 3 beats Blue's flipped 1


def test_players_without_a_card_at_a_location_arrest_nothing_there() -> None:
    state = given(
        seats=3,
        phase="bust",
        club=spot(crims(pink=2, blue=1), field=field((GREEN, "plain-3"))),
        docks=spot(crims(lime=3)),
    )
    state, _ = run(state)
    assert [p.seat for p in pending(state)] == [GREEN]
    state, _ = when(state, GREEN, ArrestColour(colour="pink"))
    state, _ = when(state, GREEN, ArrestColour(colour="blue"))
    assert state.phase == "over"
    assert state.jails[GREEN] == crims(pink=2, blue=1)
    assert at(state, "docks").criminals == crims(lime=3)  # nobody there: they stay free


def test_the_strongest_player_takes_the_utility_token_at_the_bust() -> None:
    state = given(
        seats=3,
        phase="bust",
        club=spot(crims(pink=1), field=field((RED, "plain-3"), (GREEN, "plain-6")), token=3),
    )
    state, events = run(state)
    assert of_type(events, UtilityTokenWon) == [
        UtilityTokenWon(owner=GREEN, location="club", value=3)
    ]
    assert state.utility_tokens == [[], [], [3]]


# ---- scoring -----------------------------------------------------------------------------


def test_the_rulebook_scoring_example_is_worth_26() -> None:
    # 4 pink 6 + 1 lime 3 + 2 orange and 1 gray 14 + a utility token worth 3.
    state = given(seats=3, jails=[crims(pink=4, lime=1, orange=2, gray=1), crims(), crims()])
    state = msgspec.structs.replace(state, utility_tokens=[[3], [], []], phase="over")
    assert standing(state).scores == [26, 0, 0]


@pytest.mark.parametrize(
    ("jail", "points"),
    [
        (crims(orange=2, gray=1), 14),  # gray as orange: 3 orange
        (crims(lime=5, gray=2), 28),  # both grays as lime: 7 lime (28) beats 17 + 2 orange (9)
        (crims(pink=1, lime=3, gray=2), 19),  # two lone oranges (+9) beat two more lime (+8)
        (crims(gray=2), 9),  # two orange, not orange + lime (7)
        (crims(blue=2, lime=2, gray=1), 14),  # a lone orange (4) beats a third blue or lime
        (crims(pink=9, gray=2), 36),
    ],
)
def test_grays_are_assigned_to_the_colour_that_maximises_the_score(
    jail: Criminals, points: int
) -> None:
    assert jail_points(jail) == points


def _over(scores_jails: list[Criminals], tokens: list[list[int]]) -> list[int]:
    state = given(seats=len(scores_jails), jails=scores_jails)
    state = msgspec.structs.replace(state, utility_tokens=tokens, phase="over")
    return standing(state).places


def test_a_score_tie_goes_to_the_highest_utility_token() -> None:
    # Both score 10: Blue 6 + token 4, Red 6 + tokens 1 + 3.
    places = _over([crims(pink=4), crims(pink=4)], [[4], [1, 3]])
    assert places == [1, 2]


def test_then_to_the_most_criminals() -> None:
    # Both score 4 with no token: 4 pink (4 criminals) against 1 orange (1 criminal).
    places = _over([crims(orange=1), crims(pink=3)], [[], []])
    assert places == [2, 1]


def test_then_the_tied_players_share_the_place() -> None:
    places = _over([crims(lime=1), crims(lime=1), crims(blue=1)], [[2], [2], []])
    assert places == [1, 1, 3]
    state = given(seats=3, jails=[crims(lime=1), crims(lime=1), crims(blue=1)])
    state = msgspec.structs.replace(state, utility_tokens=[[2], [2], []], phase="over")
    assert standing(state).winners == [0, 1]


# ---- refusals ----------------------------------------------------------------------------


def test_a_seat_that_is_not_awaited_gets_not_your_turn() -> None:
    state = given(seats=3, phase="bust", club=spot(crims(pink=1), field=field((RED, "plain-3"))))
    state, _ = run(state)
    with pytest.raises(NotYourTurn):
        when(state, BLUE, ArrestColour(colour="pink"))


def test_a_command_for_another_step_gets_wrong_phase() -> None:
    state = given(seats=3)
    with pytest.raises(WrongPhase):
        when(state, BLUE, ArrestColour(colour="pink"))
    with pytest.raises(WrongPhase):
        when(state, BLUE, DeclinePower())


def test_a_card_not_in_hand_is_an_illegal_move() -> None:
    state = given(seats=3, hands=[["plain-3"], ["plain-3"], ["plain-3"]])
    with pytest.raises(IllegalMove):
        when(state, BLUE, ChooseAgent(agent="plain-6", location="club"))


def test_arresting_a_colour_that_is_not_there_is_an_illegal_move() -> None:
    state = given(seats=3, phase="bust", club=spot(crims(pink=1), field=field((RED, "plain-3"))))
    state, _ = run(state)
    with pytest.raises(IllegalMove):
        when(state, RED, ArrestColour(colour="orange"))


def test_a_finished_game_refuses_every_command() -> None:
    state = given(seats=3, phase="over")
    with pytest.raises(GameOver):
        when(state, BLUE, ChooseAgent(agent="plain-3", location="club"))
    assert pending(state) == []
    assert GAME.result(state) is not None


def test_the_rules_data_is_published_and_json_encodable() -> None:
    data = msgspec.json.decode(msgspec.json.encode(GAME.rulebook()))
    assert data["score_table"]["orange"][:3] == [4, 9, 14]
    assert [c["agent"] for c in data["agent_cards"]][:3] == ["infiltrate", "redeploy", "patrol"]
    assert data["options"] == {"city": "chicago", "sirens": False}
    assert {c["city"] for c in data["city_cards"]} == {"chicago", "detroit", "new-orleans"}
    assert len(data["commands"]) == len(GAME.command_types)
