"""Bonnie and Clyde rules, one fixed deal per rule (docs/house-rules.md#bonnie_clyde)."""

from __future__ import annotations

import msgspec
import pytest
from msgspec.structs import replace

from domain.bonnie_clyde import GAME
from domain.bonnie_clyde.cards import BONNIE, CLYDE, DECK_SIZE, HAND_SIZES, LOCATION_NAMES
from domain.bonnie_clyde.commands import (
    Discard,
    DrawFromCaseFile,
    DrawFromFiles,
    LayOff,
    LeaveHiddenCard,
    Meld,
    MoveCar,
    TakeFromFiles,
    TakeHiddenCard,
    TedHintonDrawTwo,
    TedHintonLook,
    TedHintonSearchFiles,
)
from domain.bonnie_clyde.events import (
    CardDiscarded,
    CardDrawn,
    CardTakenFromFiles,
    CarMoved,
    FugitiveCaptured,
    GameEnded,
    HandDealt,
    HandScored,
    HiddenCardLeft,
    HiddenCardSeen,
    HiddenCardTaken,
    LaidOff,
    MeldPlayed,
    TedHintonFiled,
    TedHintonPlayed,
)
from domain.bonnie_clyde.scoring import table_points
from domain.bonnie_clyde.state import BonnieClydeState, PlayedSet, phase
from domain.errors import GameOver, IllegalMove, InvalidOptions, NotYourTurn, WrongPhase
from domain.match import MatchEngine, SeatSpec
from domain.rng import Rng
from tests.domain.bonnie_clyde_helpers import (
    TED,
    act,
    card_count,
    ev,
    melds,
    playing,
    table,
)

# ---- setup and dealing ------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_deal_gives_each_seat_its_hand_size_and_hides_ten_cards_under_the_locations(
    seats: int,
) -> None:
    events = GAME.setup(GAME.options_type(), seats, Rng(b"deal", "setup"))
    state = None
    for event in events:
        state = GAME.evolve(state, event)
    assert state is not None
    assert [len(h) for h in state.hands] == [HAND_SIZES[seats]] * seats
    assert all(card is not None for card in state.locations)
    assert BONNIE in state.locations
    assert CLYDE in state.locations
    assert len(state.files) == 1
    assert state.car == 1
    assert card_count(state) == DECK_SIZE == 77
    assert state.turn_seat == (state.dealer + 1) % seats
    assert phase(state) == "draw"


def test_the_first_dealer_is_random_and_recorded_in_the_deal() -> None:
    dealers = set()
    for n in range(40):
        dealt = GAME.setup(GAME.options_type(), 4, Rng(n.to_bytes(4, "big"), "setup"))[1]
        assert isinstance(dealt, HandDealt)
        assert dealt.first_seat == (dealt.dealer + 1) % 4
        dealers.add(dealt.dealer)
    assert dealers == {0, 1, 2, 3}


def test_the_dealer_moves_one_seat_clockwise_each_hand_and_the_next_seat_starts() -> None:
    state = table([[ev(1)], [ev(2), ev(2)], [ev(3), ev(3)]], dealer=1)
    assert state.turn_seat == 2
    state = playing(state, seat=2, hands=[[ev(1)], [ev(2), ev(2)], [ev(3)]])
    state, events = act(state, 2, Discard(ev(3)))  # seat 2 goes out
    dealt = events[-1]
    assert isinstance(dealt, HandDealt)
    assert (dealt.hand_number, dealt.dealer, dealt.first_seat) == (2, 2, 0)
    assert (state.hand_number, state.dealer, state.turn_seat) == (2, 2, 0)
    state = playing(state, seat=0, hands=[[ev(1)], *state.hands[1:]])
    state, events = act(state, 0, Discard(ev(1)))
    dealt = events[-1]
    assert isinstance(dealt, HandDealt)
    assert (dealt.hand_number, dealt.dealer, dealt.first_seat) == (3, 0, 1)


def test_a_new_hand_reshuffles_everything_and_returns_the_car_to_kaufman() -> None:
    state = table([[ev(1)], [ev(2), ev(2)]])
    state = playing(state, seat=0, car=7, tables=[melds((5, 3)), []])
    state, _ = act(state, 0, Discard(ev(1)))
    assert state.hand_number == 2
    assert state.car == 1
    assert state.tables == [[], []]
    assert card_count(state) == 77
    assert [len(h) for h in state.hands] == [10, 10]


@pytest.mark.parametrize("target", [9, 501, -1])
def test_a_target_outside_10_to_500_is_refused(target: int) -> None:
    with pytest.raises(InvalidOptions):
        MatchEngine(GAME).create("g", {"target": target}, [SeatSpec("human")] * 2, b"s" * 32)


def test_unknown_options_and_wrong_seat_counts_are_refused() -> None:
    with pytest.raises(InvalidOptions):
        MatchEngine(GAME).create("g", {"goal": 50}, [SeatSpec("human")] * 2, b"s" * 32)
    with pytest.raises(InvalidOptions):
        MatchEngine(GAME).create("g", {}, [SeatSpec("human")] * 5, b"s" * 32)
    with pytest.raises(InvalidOptions):
        MatchEngine(GAME).create("g", {}, [SeatSpec("human")] * 1, b"s" * 32)


# ---- drawing ----------------------------------------------------------------------------


def test_drawing_from_the_case_file_takes_its_top_card() -> None:
    state = table([[ev(1)], [ev(2)]], next_draws=[ev(6), ev(7)])
    assert GAME.legal(state, 0) == [DrawFromCaseFile(), DrawFromFiles()]
    state, events = act(state, 0, DrawFromCaseFile())
    assert events == [CardDrawn(seat=0, source="case_file", card=ev(6))]
    assert sorted(state.hands[0]) == [ev(1), ev(6)]
    assert state.case_file[-1] == ev(7)
    assert phase(state) == "play"


def test_drawing_from_the_fbi_files_takes_the_visible_top_card() -> None:
    state = table([[ev(1)], [ev(2)]], files=[ev(4), ev(9)])
    state, events = act(state, 0, DrawFromFiles())
    assert events == [CardDrawn(seat=0, source="files", card=ev(9))]
    assert state.files == [ev(4)]
    assert ev(9) in state.hands[0]


def test_the_discard_ends_the_turn_and_the_next_seat_draws() -> None:
    state = playing(table([[ev(1), ev(5)], [ev(2)]]), seat=0)
    state, events = act(state, 0, Discard(ev(5)))
    assert events == [CardDiscarded(seat=0, card=ev(5))]
    assert state.files[-1] == ev(5)
    assert (state.turn_seat, phase(state)) == (1, "draw")


# ---- Ted Hinton -------------------------------------------------------------------------


def test_ted_hinton_draw_two_draws_two_cards_then_goes_on_the_fbi_files() -> None:
    state = playing(table([[TED, ev(1)], [ev(2)]], next_draws=[ev(6), ev(7), ev(8)]), seat=0)
    state, events = act(state, 0, TedHintonDrawTwo())
    assert events == [
        TedHintonPlayed(seat=0, action="draw_two"),
        CardDrawn(seat=0, source="case_file", card=ev(6)),
        CardDrawn(seat=0, source="case_file", card=ev(7)),
        TedHintonFiled(seat=0),
    ]
    assert sorted(state.hands[0]) == [ev(1), ev(6), ev(7)]
    assert state.files[-1] == TED
    assert state.case_file[-1] == ev(8)


def test_ted_hinton_draw_two_with_one_card_left_draws_it_and_the_hand_ends_after_the_turn() -> None:
    state = table([[TED, ev(1), ev(4)], [ev(2)]], next_draws=[ev(6)], case_file_size=1)
    state = playing(state, seat=0)
    state, events = act(state, 0, TedHintonDrawTwo())
    assert [e for e in events if isinstance(e, CardDrawn)] == [
        CardDrawn(seat=0, source="case_file", card=ev(6))
    ]
    assert state.case_file == []
    assert phase(state) == "play"  # the turn goes on
    state, events = act(state, 0, Discard(ev(4)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert scored.ending == "case_file_ran_out"


def test_ted_hinton_search_lets_its_player_take_any_card_from_the_fbi_files() -> None:
    state = table([[TED, ev(1)], [ev(2)]], files=[ev(5), ev(8), ev(3)])
    state = playing(state, seat=0)
    state, events = act(state, 0, TedHintonSearchFiles())
    assert phase(state) == "search_files"
    assert GAME.legal(state, 0) == [
        TakeFromFiles(ev(3)),
        TakeFromFiles(ev(5)),
        TakeFromFiles(ev(8)),
    ]
    assert GAME.view(state, 0).files_cards == [ev(5), ev(8), ev(3)]
    state, events = act(state, 0, TakeFromFiles(ev(5)))
    assert events == [CardTakenFromFiles(seat=0, card=ev(5)), TedHintonFiled(seat=0)]
    assert state.files == [ev(8), ev(3), TED]
    assert sorted(state.hands[0]) == [ev(1), ev(5)]
    assert phase(state) == "play"


def test_a_search_takes_the_topmost_copy_of_the_named_card() -> None:
    state = table([[TED, ev(1)], [ev(2)]], files=[ev(5), ev(8), ev(5), ev(3)])
    state = playing(state, seat=0)
    state, _ = act(state, 0, TedHintonSearchFiles())
    state, _ = act(state, 0, TakeFromFiles(ev(5)))
    assert state.files == [ev(5), ev(8), ev(3), TED]


def test_ted_hinton_look_may_take_the_card_under_a_location() -> None:
    state = playing(table([[TED, ev(1)], [ev(2)]], under={6: ev(9)}), seat=0)
    state, events = act(state, 0, TedHintonLook(6))
    assert events == [
        TedHintonPlayed(seat=0, action="look", location=6),
        HiddenCardSeen(seat=0, location=6, card=ev(9)),
    ]
    assert GAME.legal(state, 0) == [TakeHiddenCard(), LeaveHiddenCard()]
    state, events = act(state, 0, TakeHiddenCard())
    assert events == [HiddenCardTaken(seat=0, location=6, card=ev(9)), TedHintonFiled(seat=0)]
    assert state.locations[5] is None
    assert sorted(state.hands[0]) == [ev(1), ev(9)]
    assert state.files[-1] == TED
    assert state.car == 1  # a Ted Hinton never moves the car


def test_ted_hinton_look_may_leave_the_card_where_it_is() -> None:
    state = playing(table([[TED, ev(1)], [ev(2)]], under={6: ev(9)}), seat=0)
    state, _ = act(state, 0, TedHintonLook(6))
    state, events = act(state, 0, LeaveHiddenCard())
    assert events == [HiddenCardLeft(seat=0, location=6), TedHintonFiled(seat=0)]
    assert state.locations[5] == ev(9)
    assert state.hands[0] == [ev(1)]


def test_ted_hinton_must_leave_bonnie_even_at_the_cars_location() -> None:
    state = playing(table([[TED, ev(1)], [ev(2)]], under={1: BONNIE}), seat=0)
    assert state.car == 1
    state, _ = act(state, 0, TedHintonLook(1))
    assert GAME.legal(state, 0) == [LeaveHiddenCard()]
    with pytest.raises(IllegalMove):
        act(state, 0, TakeHiddenCard())
    state, _ = act(state, 0, LeaveHiddenCard())
    assert state.locations[0] == BONNIE
    assert state.fugitives == [[], []]


def test_ted_hinton_cannot_look_under_an_empty_location() -> None:
    state = playing(table([[TED, ev(1)], [ev(2)]], under={6: None}), seat=0)
    assert TedHintonLook(6) not in GAME.legal(state, 0)
    with pytest.raises(IllegalMove):
        act(state, 0, TedHintonLook(6))


def test_only_one_ted_hinton_may_be_played_per_turn() -> None:
    state = table([[TED, TED, ev(1)], [ev(2)]], next_draws=[ev(6), ev(7), ev(8)])
    state, _ = act(playing(state, seat=0), 0, TedHintonDrawTwo())
    assert TED in state.hands[0]
    moves = GAME.legal(state, 0)
    assert not any(
        isinstance(m, TedHintonDrawTwo | TedHintonSearchFiles | TedHintonLook) for m in moves
    )
    with pytest.raises(IllegalMove):
        act(state, 0, TedHintonDrawTwo())
    state, _ = act(state, 0, Discard(ev(1)))
    state, _ = act(state, 1, DrawFromCaseFile())
    state, _ = act(state, 1, Discard(ev(2)))
    state, _ = act(state, 0, DrawFromCaseFile())
    assert TedHintonDrawTwo() in GAME.legal(state, 0)  # a new turn, a new Ted Hinton


# ---- the hand may never be emptied before the discard ------------------------------------


def test_a_meld_that_would_empty_the_hand_is_illegal() -> None:
    state = playing(table([[ev(4), ev(4), ev(4)], [ev(2)]]), seat=0)
    assert not any(isinstance(m, Meld) for m in GAME.legal(state, 0))
    with pytest.raises(IllegalMove):
        act(state, 0, Meld(4, 3))


def test_a_layoff_of_the_last_card_is_illegal() -> None:
    state = playing(table([[ev(4)], [ev(2)]]), seat=0, tables=[[], melds((4, 3))])
    assert GAME.legal(state, 0) == [Discard(ev(4))]
    with pytest.raises(IllegalMove):
        act(state, 0, LayOff(4, 1))


def _ted_hinton_left_alone() -> BonnieClydeState:
    """Seat 0 draws a Ted Hinton, then melds its three Evidence: the Ted Hinton is the
    only card left, after the draw and before the discard."""
    state = table(
        [[ev(4), ev(4), ev(4)], [ev(2)]],
        under={3: ev(5), 4: ev(7)},
        next_draws=[TED, ev(8), ev(9)],
        files=[ev(6), ev(1)],
    )
    state, _ = act(state, 0, DrawFromCaseFile())
    state, _ = act(state, 0, Meld(4, 3))
    state, _ = act(state, 0, LeaveHiddenCard())
    assert (state.hands[0], phase(state)) == ([TED], "play")
    return state


def test_a_ted_hinton_as_the_last_card_may_draw_two_or_search_but_not_look() -> None:
    state = _ted_hinton_left_alone()
    assert GAME.legal(state, 0) == [TedHintonDrawTwo(), TedHintonSearchFiles(), Discard(TED)]
    for location in (3, 4):  # cards lie there, but a look may leave the hand empty
        with pytest.raises(IllegalMove):
            act(state, 0, TedHintonLook(location))


def test_a_ted_hinton_as_the_last_card_draws_two_and_the_turn_goes_on() -> None:
    state = _ted_hinton_left_alone()
    state, events = act(state, 0, TedHintonDrawTwo())
    assert events == [
        TedHintonPlayed(seat=0, action="draw_two"),
        CardDrawn(seat=0, source="case_file", card=ev(8)),
        CardDrawn(seat=0, source="case_file", card=ev(9)),
        TedHintonFiled(seat=0),
    ]
    assert sorted(state.hands[0]) == [ev(8), ev(9)]
    assert phase(state) == "play"
    state, events = act(state, 0, Discard(ev(8)))
    assert events == [CardDiscarded(seat=0, card=ev(8))]  # not out: one card is left
    assert state.turn_seat == 1


def test_a_ted_hinton_as_the_last_card_searches_the_fbi_files_for_the_discard() -> None:
    state = _ted_hinton_left_alone()
    state, _ = act(state, 0, TedHintonSearchFiles())
    assert state.hands[0] == []  # only while the search is under way
    assert GAME.legal(state, 0) == [TakeFromFiles(ev(1)), TakeFromFiles(ev(6))]
    state, events = act(state, 0, TakeFromFiles(ev(6)))
    assert events == [CardTakenFromFiles(seat=0, card=ev(6)), TedHintonFiled(seat=0)]
    assert GAME.legal(state, 0) == [Discard(ev(6))]
    state, events = act(state, 0, Discard(ev(6)))  # the discard goes out
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert (scored.ending, scored.ended_by_seat) == ("went_out", 0)


def test_a_ted_hinton_as_the_last_card_may_still_be_discarded_to_go_out() -> None:
    state = _ted_hinton_left_alone()
    state, events = act(state, 0, Discard(TED))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert (scored.ending, scored.ended_by_seat) == ("went_out", 0)


def test_a_ted_hinton_beside_another_card_may_still_look() -> None:
    state = playing(table([[TED, ev(1)], [ev(2)]], under={3: ev(5)}), seat=0)
    assert TedHintonLook(3) in GAME.legal(state, 0)


def test_a_meld_may_keep_just_one_card_for_the_discard() -> None:
    state = playing(table([[ev(4)] * 4, [ev(2)]]), seat=0)
    assert [m for m in GAME.legal(state, 0) if isinstance(m, Meld)] == [Meld(4, 3)]


# ---- melds and layoffs ------------------------------------------------------------------


def test_a_meld_needs_three_evidence_cards_of_one_location() -> None:
    state = playing(
        table([[ev(4), ev(4), ev(5), ev(5), ev(5), ev(1)], [ev(2)]], under={5: ev(9)}), seat=0
    )
    moves = GAME.legal(state, 0)
    assert Meld(5, 3) in moves
    assert not any(isinstance(m, Meld) and m.location == 4 for m in moves)
    with pytest.raises(IllegalMove):
        act(state, 0, Meld(4, 2))
    with pytest.raises(IllegalMove):
        act(state, 0, Meld(4, 3))  # only two in hand
    with pytest.raises(IllegalMove):
        act(state, 0, Meld(11, 3))


def test_a_meld_away_from_the_car_is_upright_and_the_car_moves_up_one() -> None:
    state = playing(table([[ev(5)] * 3 + [ev(1)], [ev(2)]], under={5: None}), seat=0, car=2)
    state, events = act(state, 0, Meld(5, 3))
    assert events == [
        MeldPlayed(seat=0, location=5, count=3, sideways=False),
        CarMoved(seat=0, from_location=2, to_location=3),
    ]
    assert state.tables[0] == [PlayedSet("meld", 5, 3, False)]
    assert phase(state) == "play"


def test_a_layoff_needs_a_meld_of_that_location_in_front_of_any_player() -> None:
    state = playing(table([[ev(3), ev(3), ev(1)], [ev(2)]]), seat=0)
    assert not any(isinstance(m, LayOff) for m in GAME.legal(state, 0))
    with pytest.raises(IllegalMove):
        act(state, 0, LayOff(3, 1))
    # a layoff in front of someone is not a meld to lay off on
    state = replace(state, tables=[[], [PlayedSet("layoff", 3, 1, False)]])
    with pytest.raises(IllegalMove):
        act(state, 0, LayOff(3, 1))
    state = replace(state, tables=[[], melds((3, 3))])
    assert [m for m in GAME.legal(state, 0) if isinstance(m, LayOff)] == [
        LayOff(3, 1),
        LayOff(3, 2),
    ]


def test_laying_off_two_cards_together_is_one_layoff_with_one_look_and_one_car_move() -> None:
    state = table([[ev(3), ev(3), ev(1)], [ev(2)]], under={3: None})
    state = playing(state, seat=0, tables=[[], melds((3, 3))], car=1)
    state, events = act(state, 0, LayOff(3, 2))
    assert events == [
        LaidOff(seat=0, location=3, count=2, sideways=False),
        CarMoved(seat=0, from_location=1, to_location=2),
    ]
    assert state.tables[0] == [PlayedSet("layoff", 3, 2, False)]


def test_laying_off_one_at_a_time_is_two_layoffs_each_moving_the_car() -> None:
    state = table([[ev(3), ev(3), ev(1)], [ev(2)]], under={3: None})
    state = playing(state, seat=0, tables=[[], melds((3, 3))], car=1)
    state, _ = act(state, 0, LayOff(3, 1))
    assert state.car == 2
    state, _ = act(state, 0, LayOff(3, 1))
    assert state.tables[0] == [PlayedSet("layoff", 3, 1, False)] * 2
    assert phase(state) == "move_car"
    state, _ = act(state, 0, MoveCar("up"))
    assert state.car == 3


def test_a_layoff_moves_the_car_down_by_the_players_choice() -> None:
    state = table([[ev(3), ev(1)], [ev(2)]], under={3: None})
    state = playing(state, seat=0, tables=[[], melds((3, 3))], car=6)
    state, events = act(state, 0, LayOff(3, 1))
    assert events == [LaidOff(seat=0, location=3, count=1, sideways=False)]
    assert phase(state) == "move_car"
    assert GAME.legal(state, 0) == [MoveCar("up"), MoveCar("down")]
    with pytest.raises(WrongPhase):
        act(state, 0, Discard(ev(1)))
    state, events = act(state, 0, MoveCar("down"))
    assert events == [CarMoved(seat=0, from_location=6, to_location=5)]
    assert state.car == 5
    assert phase(state) == "play"


def test_a_meld_at_the_cars_location_finding_bonnie_is_sideways_and_captures_her() -> None:
    hand = [ev(4), ev(4), ev(4), ev(7)]
    state = playing(table([hand, [ev(2)]], under={4: BONNIE}), seat=0, car=4)
    state, events = act(state, 0, Meld(4, 3))
    assert events == [
        MeldPlayed(seat=0, location=4, count=3, sideways=True),
        FugitiveCaptured(seat=0, location=4, card=BONNIE),
        CarMoved(seat=0, from_location=4, to_location=5),
    ]
    assert state.fugitives[0] == [BONNIE]
    assert state.locations[3] is None
    assert state.tables[0] == [PlayedSet("meld", 4, 3, True)]
    assert table_points(state, 0) == 3 * 4 + 10
    assert phase(state) == "play"


def test_a_layoff_at_the_cars_location_finding_clyde_captures_him() -> None:
    state = table([[ev(8), ev(1)], [ev(2)]], under={8: CLYDE})
    state = playing(state, seat=0, tables=[[], melds((8, 3))], car=8)
    state, events = act(state, 0, LayOff(8, 1))
    assert events[:2] == [
        LaidOff(seat=0, location=8, count=1, sideways=True),
        FugitiveCaptured(seat=0, location=8, card=CLYDE),
    ]
    assert phase(state) == "move_car"


def test_a_meld_away_from_the_car_must_leave_bonnie_and_the_car_then_moves() -> None:
    hand = [ev(4), ev(4), ev(4), ev(7)]
    state = playing(table([hand, [ev(2)]], under={4: BONNIE}), seat=0, car=2)
    state, events = act(state, 0, Meld(4, 3))
    assert events == [
        MeldPlayed(seat=0, location=4, count=3, sideways=False),
        HiddenCardSeen(seat=0, location=4, card=BONNIE),
    ]
    assert GAME.legal(state, 0) == [LeaveHiddenCard()]
    with pytest.raises(IllegalMove):
        act(state, 0, TakeHiddenCard())
    state, events = act(state, 0, LeaveHiddenCard())
    assert events == [
        HiddenCardLeft(seat=0, location=4),
        CarMoved(seat=0, from_location=2, to_location=3),
    ]
    assert state.locations[3] == BONNIE


def test_a_meld_may_take_an_ordinary_card_found_under_its_location() -> None:
    hand = [ev(4), ev(4), ev(4), ev(7)]
    state = playing(table([hand, [ev(2)]], under={4: ev(7)}), seat=0, car=4)
    state, events = act(state, 0, Meld(4, 3))
    assert events[-1] == HiddenCardSeen(seat=0, location=4, card=ev(7))
    assert state.car == 4  # the car moves once the look is over
    state, events = act(state, 0, TakeHiddenCard())
    assert events == [
        HiddenCardTaken(seat=0, location=4, card=ev(7)),
        CarMoved(seat=0, from_location=4, to_location=5),
    ]
    assert sorted(state.hands[0]) == [ev(7), ev(7)]


def test_a_layoff_looks_first_then_lets_the_player_move_the_car() -> None:
    state = table([[ev(3), ev(1)], [ev(2)]], under={3: ev(9)})
    state = playing(state, seat=0, tables=[[], melds((3, 3))], car=5)
    state, _ = act(state, 0, LayOff(3, 1))
    assert phase(state) == "look"
    state, _ = act(state, 0, LeaveHiddenCard())
    assert phase(state) == "move_car"
    state, _ = act(state, 0, MoveCar("up"))
    assert state.car == 6


# ---- the car never leaves the board -----------------------------------------------------


def test_a_meld_at_gibson_leaves_the_car_at_gibson() -> None:
    state = playing(table([[ev(6)] * 3 + [ev(1)], [ev(2)]], under={6: None}), seat=0, car=10)
    state, events = act(state, 0, Meld(6, 3))
    assert events[-1] == CarMoved(seat=0, from_location=10, to_location=10)
    assert state.car == 10


@pytest.mark.parametrize(("car", "moved_to"), [(1, 2), (10, 9)])
def test_a_layoff_at_an_edge_moves_the_car_the_only_way_it_can(car: int, moved_to: int) -> None:
    state = table([[ev(3), ev(1)], [ev(2)]], under={3: None})
    state = playing(state, seat=0, tables=[[], melds((3, 3))], car=car)
    state, events = act(state, 0, LayOff(3, 1))
    assert events[-1] == CarMoved(seat=0, from_location=car, to_location=moved_to)
    assert phase(state) == "play"


def test_the_car_may_not_be_moved_off_the_board() -> None:
    state = table([[ev(3), ev(1)], [ev(2)]], under={3: None})
    state = playing(state, seat=0, tables=[[], melds((3, 3))], car=1, pending_car="layoff")
    assert GAME.legal(state, 0) == [MoveCar("up")]
    with pytest.raises(IllegalMove):
        act(state, 0, MoveCar("down"))


# ---- the end of a hand ------------------------------------------------------------------


def test_going_out_with_the_car_on_grapevine_earns_9_bonus_points() -> None:
    assert LOCATION_NAMES[9 - 1] == "Grapevine TX"
    state = table([[ev(2)], [ev(5), ev(6)]])
    state = playing(state, seat=0, car=9, tables=[melds((1, 3)), melds((4, 4))])
    state, events = act(state, 0, Discard(ev(2)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert scored.ending == "went_out"
    assert (scored.ended_by_seat, scored.bonus, scored.car) == (0, 9, 9)
    assert scored.hand_scores == [3 * 2 + 9, 4 * 2]
    assert not scored.shut_out


def test_a_player_going_out_with_bonnie_and_clyde_shuts_everyone_else_out() -> None:
    state = table([[ev(2)], [ev(5)], [ev(6)]])
    state = playing(
        state,
        seat=0,
        car=3,
        tables=[melds((1, 3)), melds((4, 5)), [PlayedSet("meld", 7, 3, True)]],
        fugitives=[[BONNIE, CLYDE], [], []],
    )
    state, events = act(state, 0, Discard(ev(2)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert scored.shut_out
    assert scored.hand_scores == [6 + 20 + 3, 0, 0]


def test_one_fugitive_is_no_shut_out() -> None:
    state = table([[ev(2)], [ev(5)]])
    state = playing(state, seat=0, tables=[[], melds((4, 3))], fugitives=[[BONNIE], [CLYDE]])
    state, events = act(state, 0, Discard(ev(2)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert scored.hand_scores == [10 + 1, 6 + 10]


def test_the_case_file_running_out_ends_the_hand_with_no_bonus() -> None:
    state = table([[ev(2), ev(8)], [ev(5)]], next_draws=[ev(9)], case_file_size=1)
    state = replace(
        state,
        car=9,
        tables=[melds((1, 3)), melds((4, 3))],
        fugitives=[[BONNIE], [CLYDE]],
    )
    state, _ = act(state, 0, DrawFromCaseFile())
    assert state.case_file == []
    assert phase(state) == "play"  # the player finishes the turn
    state, events = act(state, 0, Discard(ev(9)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert (scored.ending, scored.ended_by_seat) == ("case_file_ran_out", 0)
    assert (scored.bonus, scored.shut_out) == (0, False)
    assert scored.hand_scores == [6 + 10, 6 + 10]


def test_drawing_the_last_case_file_card_with_bonnie_and_clyde_shuts_everyone_else_out() -> None:
    # Seat 0 ended the hand by drawing the Case File's last card (rulebook: "if you ended
    # the hand and you have both Bonnie and Clyde"); no car bonus, as it did not go out.
    state = table([[ev(2), ev(8)], [ev(5)], [ev(6)]], next_draws=[ev(9)], case_file_size=1)
    state = replace(
        state,
        car=9,
        tables=[melds((1, 3)), melds((4, 3)), [PlayedSet("meld", 7, 3, True)]],
        fugitives=[[BONNIE, CLYDE], [], []],
    )
    state, _ = act(state, 0, DrawFromCaseFile())
    state, events = act(state, 0, Discard(ev(9)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert (scored.ending, scored.ended_by_seat) == ("case_file_ran_out", 0)
    assert (scored.bonus, scored.shut_out) == (0, True)
    assert scored.hand_scores == [6 + 20, 0, 0]
    assert scored.totals == [26, 0, 0]


def test_bonnie_and_clyde_in_front_of_a_player_who_did_not_end_the_hand_shut_nobody_out() -> None:
    state = table([[ev(2), ev(8)], [ev(5)]], next_draws=[ev(9)], case_file_size=1)
    state = replace(state, tables=[melds((1, 3)), melds((4, 3))], fugitives=[[], [BONNIE, CLYDE]])
    state, _ = act(state, 0, DrawFromCaseFile())
    state, events = act(state, 0, Discard(ev(9)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert (scored.ending, scored.shut_out) == ("case_file_ran_out", False)
    assert scored.hand_scores == [6, 6 + 20]


def test_a_ted_hinton_draw_of_the_last_case_file_card_with_bonnie_and_clyde_shuts_out() -> None:
    state = table([[TED, ev(2), ev(8)], [ev(5)]], next_draws=[ev(9)], case_file_size=1)
    state = playing(state, seat=0, tables=[[], melds((4, 3))], fugitives=[[BONNIE, CLYDE], []])
    state, _ = act(state, 0, TedHintonDrawTwo())
    state, events = act(state, 0, Discard(ev(9)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert (scored.ending, scored.bonus, scored.shut_out) == ("case_file_ran_out", 0, True)
    assert scored.hand_scores == [20, 0]


def test_going_out_on_the_turn_the_case_file_ran_out_still_earns_the_bonus() -> None:
    state = table([[ev(2)], [ev(5)]], under={2: None}, next_draws=[ev(2)], case_file_size=1)
    state = replace(state, car=4, tables=[melds((2, 3)), []])
    state, _ = act(state, 0, DrawFromCaseFile())
    state, _ = act(state, 0, LayOff(2, 1))
    state, _ = act(state, 0, MoveCar("up"))
    state, events = act(state, 0, Discard(ev(2)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert (scored.ending, scored.bonus) == ("went_out", 5)


def test_going_out_as_the_case_file_ran_out_with_bonnie_and_clyde_keeps_the_bonus() -> None:
    state = table([[ev(2)], [ev(5)]], under={2: None}, next_draws=[ev(2)], case_file_size=1)
    state = replace(
        state, car=4, tables=[melds((2, 3)), melds((6, 3))], fugitives=[[BONNIE, CLYDE], []]
    )
    state, _ = act(state, 0, DrawFromCaseFile())
    state, _ = act(state, 0, LayOff(2, 1))
    state, _ = act(state, 0, MoveCar("up"))
    state, events = act(state, 0, Discard(ev(2)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert (scored.ending, scored.bonus, scored.shut_out) == ("went_out", 5, True)
    assert scored.hand_scores == [4 * 2 + 20 + 5, 0]


def test_hand_scoring_counts_2_per_card_4_per_sideways_card_10_per_fugitive_and_not_the_hand() -> (
    None
):
    state = table([[ev(2)], [ev(5), ev(5), ev(5), TED]])
    tables = [
        [PlayedSet("meld", 1, 3, False), PlayedSet("layoff", 1, 1, True)],
        [PlayedSet("meld", 6, 4, True), PlayedSet("layoff", 1, 2, False)],
    ]
    state = playing(state, seat=0, car=1, tables=tables, fugitives=[[], [CLYDE]])
    state, events = act(state, 0, Discard(ev(2)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert scored.hand_scores == [3 * 2 + 1 * 4 + 1, 4 * 4 + 2 * 2 + 10]
    assert scored.totals == scored.hand_scores


# ---- the end of the game ----------------------------------------------------------------


def test_the_game_ends_when_one_player_alone_reaches_the_target() -> None:
    state = table([[ev(2)], [ev(5)]])
    state = playing(state, seat=0, car=1, totals=[95, 99], tables=[melds((1, 3)), []])
    state, events = act(state, 0, Discard(ev(2)))
    assert events[-1] == GameEnded(winner=0, totals=[102, 99])
    assert GAME.pending(state) == []
    outcome = GAME.result(state)
    assert outcome is not None
    assert (outcome.scores, outcome.winners, outcome.places) == ([102, 99], [0], [1, 2])
    with pytest.raises(GameOver):
        act(state, 1, DrawFromCaseFile())


def test_a_tie_at_100_needs_another_hand() -> None:
    state = table([[ev(2)], [ev(5)]])
    state = playing(state, seat=0, car=4, totals=[90, 100], tables=[melds((1, 3)), []])
    state, events = act(state, 0, Discard(ev(2)))
    scored = events[1]
    assert isinstance(scored, HandScored)
    assert scored.totals == [100, 100]
    assert isinstance(events[2], HandDealt)
    assert not state.over
    assert GAME.result(state) is None
    assert state.hand_number == 2


def test_a_tie_below_the_leader_does_not_stop_the_game_ending() -> None:
    state = table([[ev(2)], [ev(5)], [ev(6)]])
    state = playing(state, seat=0, car=1, totals=[110, 100, 100], tables=[[], [], []])
    state, events = act(state, 0, Discard(ev(2)))
    assert events[-1] == GameEnded(winner=0, totals=[111, 100, 100])
    outcome = GAME.result(state)
    assert outcome is not None
    assert outcome.places == [1, 2, 2]


# ---- typed refusals ---------------------------------------------------------------------


def test_a_seat_acting_out_of_turn_gets_not_your_turn() -> None:
    state = table([[ev(1)], [ev(2)]])
    assert GAME.legal(state, 1) == []
    with pytest.raises(NotYourTurn):
        act(state, 1, DrawFromCaseFile())


def test_a_command_out_of_its_step_gets_wrong_phase() -> None:
    state = table([[ev(1), TED], [ev(2)]])
    with pytest.raises(WrongPhase):
        act(state, 0, Discard(ev(1)))
    with pytest.raises(WrongPhase):
        act(state, 0, TedHintonDrawTwo())
    with pytest.raises(WrongPhase):
        act(playing(state), 0, DrawFromCaseFile())
    with pytest.raises(WrongPhase):
        act(playing(state), 0, TakeHiddenCard())


def test_discarding_a_card_not_in_hand_is_illegal() -> None:
    with pytest.raises(IllegalMove):
        act(playing(table([[ev(1), ev(4)], [ev(2)]])), 0, Discard(ev(9)))


def test_refused_commands_change_nothing() -> None:
    state = playing(table([[ev(4), ev(4), ev(1)], [ev(2)]]))
    before = msgspec.msgpack.encode(state)
    with pytest.raises(IllegalMove):
        act(state, 0, Meld(4, 3))
    assert msgspec.msgpack.encode(state) == before


def test_evolve_never_changes_the_state_it_is_given() -> None:
    state = playing(table([[ev(4)] * 3 + [ev(1)], [ev(2)]], under={4: ev(7)}), car=4)
    before = msgspec.msgpack.encode(state)
    after, _ = act(state, 0, Meld(4, 3))
    after, _ = act(after, 0, TakeHiddenCard())
    after, _ = act(after, 0, Discard(ev(1)))
    assert msgspec.msgpack.encode(state) == before
    assert after != state


def test_the_rules_publish_the_house_rules_data() -> None:
    published = GAME.rulebook()
    data = msgspec.to_builtins(published)
    assert [loc["name"] for loc in data["locations"]] == list(LOCATION_NAMES)
    assert sum(entry["count"] for entry in data["deck"]) == 77
    assert data["options"] == {"target": 100}
    assert {h["seats"]: h["cards"] for h in data["hand_sizes"]} == {2: 10, 3: 9, 4: 8}
    tags = {c["type"] for c in data["commands"]}
    assert tags == {t.__struct_config__.tag for t in GAME.command_types}
