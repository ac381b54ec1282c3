"""The Feds: the special agents of each house city card, declining them, and chains."""

from __future__ import annotations

import pytest

from domain.errors import IllegalMove, WrongPhase
from domain.feds import GAME
from domain.feds.cards import Agent, City
from domain.feds.commands import (
    ArrestCriminal,
    ChooseAgent,
    DeclinePower,
    DrawCriminal,
    FlipMole,
    MoveCriminal,
    PeekAtMole,
    RedeployAgent,
    SwapSirens,
)
from domain.feds.events import (
    AgentRedeployed,
    CriminalDrawn,
    CriminalMoved,
    CriminalsArrested,
    GameSetUp,
    MoleFlipped,
    MolePeeked,
    MolePlaced,
    PowerDeclined,
    PowerUsed,
)
from domain.feds.options import FedsOptions
from domain.feds.rules import legal, pending
from domain.feds.state import Activation, FedsState
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

CLUB, DOCKS, MOTEL, WAREHOUSE = 0, 1, 2, 3


def _activation(seat: int, agent: Agent, location: int) -> Activation:
    return Activation(seat=seat, owner=seat, agent=agent, location=location)


# ---- a deploy activates a special agent for its owner --------------------------------------


def test_a_special_agent_pushed_into_the_field_activates_for_its_owner_not_the_deployer() -> None:
    state = given(
        seats=3,
        phase="deploy",
        badge=GREEN,
        warehouse=spot(crims(pink=1), mole=mole(BLUE, "patrol")),
        chosen={GREEN: ("plain-4", "warehouse"), RED: ("plain-3", "club")},
    )
    state, events = run(state)
    assert of_type(events, MoleFlipped) == [
        MoleFlipped(
            location="warehouse", owner=BLUE, agent="patrol", cause="deploy", power_for=BLUE
        )
    ]
    assert [(p.seat, p.step) for p in pending(state)] == [(BLUE, "r1.power.0")]
    # Red has not deployed yet: the power is used in Green's turn, before Red's.
    assert state.chosen[RED] is not None


def test_declining_a_power_changes_nothing_and_the_next_player_deploys() -> None:
    state = given(
        seats=3,
        phase="deploy",
        badge=GREEN,
        warehouse=spot(crims(pink=1), mole=mole(BLUE, "patrol")),
        chosen={GREEN: ("plain-4", "warehouse"), RED: ("plain-3", "club")},
    )
    state, _ = run(state)
    before = state
    state, events = when(state, BLUE, DeclinePower())
    assert events[0] == PowerDeclined(
        seat=BLUE, owner=BLUE, agent="patrol", power="patrol", location="warehouse"
    )
    assert not of_type(events, CriminalMoved)
    assert at(state, "warehouse").criminals == at(before, "warehouse").criminals
    assert of_type(events, MolePlaced)[0].owner == RED


@pytest.mark.parametrize("city", ["chicago", "detroit", "new-orleans"])
def test_every_power_lists_declining_among_its_legal_moves(city: City) -> None:
    agents: list[Agent] = ["infiltrate", "redeploy", "patrol"]
    for agent in agents:
        state = given(
            seats=3,
            city=city,
            phase="deploy",
            club=spot(field=field((BLUE, agent))),
            activations=[_activation(BLUE, agent, CLUB)],
        )
        assert DeclinePower() in legal(state, BLUE)
        assert legal(state, RED) == []


# ---- chicago -----------------------------------------------------------------------------


def test_chicago_infiltrate_flips_the_mole_at_another_location_into_its_field() -> None:
    state = given(
        seats=3,
        phase="deploy",
        club=spot(field=field((BLUE, "infiltrate")), mole=mole(GREEN, "plain-6")),
        docks=spot(field=field((RED, "plain-3")), mole=mole(RED, "plain-5")),
        activations=[_activation(BLUE, "infiltrate", CLUB)],
    )
    assert FlipMole(location="club") not in legal(state, BLUE)
    with pytest.raises(IllegalMove):
        when(state, BLUE, FlipMole(location="club"))
    with pytest.raises(IllegalMove):
        when(state, BLUE, FlipMole(location="motel"))  # no mole there
    state, events = when(state, BLUE, FlipMole(location="docks"))
    assert events[:2] == [
        PowerUsed(seat=BLUE, owner=BLUE, agent="infiltrate", power="infiltrate", location="club"),
        MoleFlipped(
            location="docks", owner=RED, agent="plain-5", cause="infiltrate", power_for=None
        ),
    ]
    assert at(state, "docks").field == field((RED, "plain-3"), (RED, "plain-5"))
    assert at(state, "docks").mole is None


def test_activations_chain_newest_first_and_then_the_deploys_go_on() -> None:
    # Red deploys at the Club and pushes Blue's Infiltrate; Blue flips Green's Redeploy at
    # the Motel; Green redeploys; only then does Green deploy its own step-1 card.
    state = given(
        seats=3,
        phase="deploy",
        badge=RED,
        club=spot(mole=mole(BLUE, "infiltrate")),
        motel=spot(field=field((GREEN, "plain-4")), mole=mole(GREEN, "redeploy")),
        chosen={RED: ("plain-3", "club"), GREEN: ("plain-6", "docks")},
    )
    state, _ = run(state)
    assert [p.seat for p in pending(state)] == [BLUE]
    state, events = when(state, BLUE, FlipMole(location="motel"))
    assert events[1] == MoleFlipped(
        location="motel", owner=GREEN, agent="redeploy", cause="infiltrate", power_for=GREEN
    )
    assert [p.seat for p in pending(state)] == [GREEN]
    assert state.chosen[GREEN] is not None  # Green's own deploy waits for the chain
    state, events = when(state, GREEN, RedeployAgent(agent="plain-4", to_location="warehouse"))
    assert [type(e) for e in events[:3]] == [PowerUsed, AgentRedeployed, MolePlaced]
    assert events[2].owner == GREEN
    assert at(state, "warehouse").field == field((GREEN, "plain-4"))
    assert at(state, "motel").field == field((GREEN, "redeploy"))


@pytest.mark.parametrize("city", ["chicago", "detroit", "new-orleans"])
def test_redeploy_moves_one_of_your_field_agents_to_the_end_of_another_field(city: City) -> None:
    state = given(
        seats=3,
        city=city,
        sirens=False,
        phase="deploy",
        club=spot(field=field((BLUE, "plain-5"), (RED, "plain-6"), (BLUE, "redeploy"))),
        motel=spot(field=field((GREEN, "plain-3"), (RED, "plain-3"))),
        activations=[_activation(BLUE, "redeploy", CLUB)],
    )
    moves = legal(state, BLUE)
    assert RedeployAgent(agent="plain-5", to_location="motel") in moves
    assert RedeployAgent(agent="plain-5", to_location="club") not in moves
    assert not any(isinstance(m, RedeployAgent) and m.agent == "plain-6" for m in moves)
    with pytest.raises(IllegalMove):
        when(state, BLUE, RedeployAgent(agent="plain-6", to_location="motel"))  # Red's card
    with pytest.raises(IllegalMove):
        when(state, BLUE, RedeployAgent(agent="plain-5", to_location="club"))
    state, events = when(state, BLUE, RedeployAgent(agent="plain-5", to_location="motel"))
    assert events[1] == AgentRedeployed(
        owner=BLUE, agent="plain-5", from_location="club", to_location="motel"
    )
    assert at(state, "club").field == field((RED, "plain-6"), (BLUE, "redeploy"))
    assert at(state, "motel").field == field(
        (GREEN, "plain-3"), (RED, "plain-3"), (BLUE, "plain-5")
    )


def test_chicago_patrol_moves_one_criminal_to_an_adjacent_location() -> None:
    state = given(
        seats=3,
        phase="deploy",
        docks=spot(crims(pink=2, orange=1), field=field((RED, "patrol"))),
        activations=[_activation(RED, "patrol", DOCKS)],
    )
    moves = legal(state, RED)
    assert {(m.colour, m.to_location) for m in moves if isinstance(m, MoveCriminal)} == {
        ("pink", "club"),
        ("pink", "motel"),
        ("orange", "club"),
        ("orange", "motel"),
    }
    with pytest.raises(IllegalMove):
        when(state, RED, MoveCriminal(colour="pink", to_location="warehouse"))
    with pytest.raises(IllegalMove):
        when(state, RED, MoveCriminal(colour="lime", to_location="club"))
    with pytest.raises(IllegalMove):
        when(state, RED, ArrestCriminal(colour="pink"))  # that is Detroit's Patrol
    state, _ = when(state, RED, MoveCriminal(colour="orange", to_location="club"))
    assert at(state, "docks").criminals == crims(pink=2)
    assert at(state, "club").criminals == crims(orange=1)


def test_chicago_places_one_face_up_utility_token_per_location() -> None:
    (event,) = GAME.setup(FedsOptions(city="chicago"), 4, Rng(b"x"))
    assert isinstance(event, GameSetUp)
    assert all(t is not None and t.face_up for t in event.utility_tokens)


# ---- detroit -----------------------------------------------------------------------------


def _detroit_peek_table() -> FedsState:
    return given(
        seats=3,
        city="detroit",
        phase="deploy",
        club=spot(field=field((BLUE, "infiltrate"))),
        docks=spot(mole=mole(RED, "plain-6")),
        motel=spot(mole=mole(BLUE, "plain-5")),
        activations=[_activation(BLUE, "infiltrate", CLUB)],
    )


def test_detroit_infiltrate_looks_at_another_players_mole() -> None:
    state = _detroit_peek_table()
    assert legal(state, BLUE) == [PeekAtMole(location="docks"), DeclinePower()]
    with pytest.raises(IllegalMove):
        when(state, BLUE, PeekAtMole(location="motel"))  # Blue's own mole
    with pytest.raises(IllegalMove):
        when(state, BLUE, FlipMole(location="docks"))  # that is Chicago's Infiltrate
    state, events = when(state, BLUE, PeekAtMole(location="docks"))
    assert events[1] == MolePeeked(seat=BLUE, location="docks", owner=RED, agent="plain-6")
    assert at(state, "docks").mole == mole(RED, "plain-6", seen_by=[BLUE])  # still face down


def test_the_detroit_peek_is_seen_by_the_peeking_seat_only() -> None:
    state, events = when(_detroit_peek_table(), BLUE, PeekAtMole(location="docks"))
    peek = events[1]
    docks = 1
    blue_sees = GAME.view(state, BLUE).locations[docks].mole
    assert blue_sees is not None
    assert blue_sees.agent == "plain-6"
    red_sees = GAME.view(state, RED).locations[docks].mole
    assert red_sees is not None
    assert red_sees.agent == "plain-6"  # Red's own card
    for other in (GREEN, None):
        seen = GAME.view(state, other).locations[docks].mole
        assert seen is not None
        assert seen.agent is None
        assert seen.strength is None
        assert seen.seen_by == [BLUE]  # that Blue looked is public
        assert GAME.redact(peek, other) == MolePeeked(
            seat=BLUE, location="docks", owner=RED, agent=None
        )
    assert GAME.redact(peek, BLUE) == peek


def test_detroit_patrol_arrests_one_criminal_of_your_choice_from_its_location() -> None:
    state = given(
        seats=3,
        city="detroit",
        phase="deploy",
        motel=spot(crims(lime=2, gray=1), field=field((GREEN, "patrol"))),
        activations=[_activation(GREEN, "patrol", MOTEL)],
    )
    assert set(map(type, legal(state, GREEN))) == {ArrestCriminal, DeclinePower}
    state, events = when(state, GREEN, ArrestCriminal(colour="gray"))
    assert events[1] == CriminalsArrested(
        owner=GREEN, location="motel", criminals=crims(gray=1), cause="patrol"
    )
    assert state.jails[GREEN] == crims(gray=1)
    assert at(state, "motel").criminals == crims(lime=2)


def test_detroit_has_no_utility_tokens() -> None:
    (event,) = GAME.setup(FedsOptions(city="detroit"), 3, Rng(b"x"))
    assert isinstance(event, GameSetUp)
    assert event.utility_tokens == [None, None, None, None]


# ---- new-orleans -------------------------------------------------------------------------


def test_new_orleans_infiltrate_gives_the_flipped_power_to_the_flipper() -> None:
    state = given(
        seats=3,
        city="new-orleans",
        phase="deploy",
        club=spot(field=field((BLUE, "infiltrate"))),
        warehouse=spot(crims(pink=1), mole=mole(RED, "patrol")),
        bag=crims(orange=1),
        activations=[_activation(BLUE, "infiltrate", CLUB)],
    )
    state, events = when(state, BLUE, FlipMole(location="warehouse"))
    assert events[1] == MoleFlipped(
        location="warehouse", owner=RED, agent="patrol", cause="infiltrate", power_for=BLUE
    )
    assert [p.seat for p in pending(state)] == [BLUE]
    state, events = when(state, BLUE, DrawCriminal())
    assert events[0] == PowerUsed(
        seat=BLUE, owner=RED, agent="patrol", power="patrol", location="warehouse"
    )
    assert events[1] == CriminalDrawn(colour="orange", location="warehouse")


def test_new_orleans_patrol_draws_one_criminal_blind_from_the_bag() -> None:
    state = given(
        seats=3,
        city="new-orleans",
        phase="deploy",
        docks=spot(crims(pink=1), field=field((RED, "patrol"))),
        bag=crims(blue=3, lime=1),
        activations=[_activation(RED, "patrol", DOCKS)],
    )
    assert legal(state, RED) == [DrawCriminal(), DeclinePower()]
    drawn = set()
    for seed in range(24):
        after, events = when(state, RED, DrawCriminal(), seed=bytes([seed]))
        colour = events[1].colour
        drawn.add(colour)
        assert after.bag.of(colour) == state.bag.of(colour) - 1
        assert (
            at(after, "docks").criminals.of(colour) == at(state, "docks").criminals.of(colour) + 1
        )
    assert drawn == {"blue", "lime"}


def test_new_orleans_patrol_cannot_draw_from_an_empty_bag() -> None:
    state = given(
        seats=3,
        city="new-orleans",
        phase="deploy",
        docks=spot(crims(pink=1), field=field((RED, "patrol"))),
        activations=[_activation(RED, "patrol", DOCKS)],
    )
    assert legal(state, RED) == [DeclinePower()]
    with pytest.raises(IllegalMove):
        when(state, RED, DrawCriminal())


def test_new_orleans_sets_six_criminals_per_location_and_two_face_down_tokens() -> None:
    (event,) = GAME.setup(FedsOptions(city="new-orleans"), 3, Rng(b"x"))
    assert isinstance(event, GameSetUp)
    assert [c.total() for c in event.criminals] == [6, 6, 6, 6]
    assert event.sirens
    assert sorted(t is not None and t.face_up for t in event.utility_tokens) == [
        False,
        False,
        True,
        True,
    ]
    state = GAME.evolve(None, event)
    assert state.bag.total() == 8


def test_redeploy_may_swap_two_siren_tokens_instead_when_sirens_are_on() -> None:
    state = given(
        seats=3,
        city="new-orleans",
        phase="deploy",
        club=spot(field=field((BLUE, "redeploy")), siren=5),
        docks=spot(siren=3),
        motel=spot(),
        warehouse=spot(siren=6),
        activations=[_activation(BLUE, "redeploy", CLUB)],
    )
    swaps = [m for m in legal(state, BLUE) if isinstance(m, SwapSirens)]
    assert swaps == [
        SwapSirens(first="club", second="docks"),
        SwapSirens(first="club", second="warehouse"),
        SwapSirens(first="docks", second="warehouse"),
    ]
    with pytest.raises(IllegalMove):
        when(state, BLUE, SwapSirens(first="club", second="motel"))
    state, _ = when(state, BLUE, SwapSirens(first="docks", second="warehouse"))
    assert [s.siren for s in state.locations] == [5, 6, None, 3]


def test_without_sirens_redeploy_cannot_swap_sirens() -> None:
    state = given(
        seats=3,
        phase="deploy",
        club=spot(field=field((BLUE, "redeploy"))),
        activations=[_activation(BLUE, "redeploy", CLUB)],
    )
    assert not any(isinstance(m, SwapSirens) for m in legal(state, BLUE))
    with pytest.raises(IllegalMove):
        when(state, BLUE, SwapSirens(first="club", second="docks"))


def test_a_power_command_is_refused_while_step_one_is_open() -> None:
    state = given(seats=3)
    with pytest.raises(WrongPhase):
        when(state, BLUE, FlipMole(location="club"))
    with pytest.raises(WrongPhase):
        when(state, BLUE, DeclinePower())
    state, _ = when(state, BLUE, ChooseAgent(agent="plain-3", location="club"))
