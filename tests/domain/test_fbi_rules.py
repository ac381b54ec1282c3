"""FBI rules, scenario by scenario (docs/house-rules.md#fbi), with fixed deals."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain import sealed
from domain.errors import GameOver, IllegalMove, InvalidOptions, NotYourTurn, WrongPhase
from domain.fbi import GAME
from domain.fbi.cards import Colour, card
from domain.fbi.commands import Release, ReleaseNone, SelectAgents, UseAgent
from domain.fbi.events import (
    AgentPassed,
    AgentsSelected,
    ArrestOrderDetermined,
    BonusAward,
    CardReleased,
    CardsPlaced,
    CharacterArrested,
    DeckShuffled,
    FbiEvent,
    GameEnded,
    GameStarted,
    NothingReleased,
    PurpleCardsDealt,
    TurnStarted,
)
from domain.fbi.options import FbiOptions
from domain.fbi.rules import card_to_arrest, with_automatic
from domain.fbi.state import FbiState, arrest_sequence
from domain.match import CommitSeal, MatchEngine, RevealSeal, SealForfeited, SeatSpec
from domain.rng import Rng
from tests.domain.fbi_helpers import Deal, act, build, cards, decide

# ---- helpers ---------------------------------------------------------------------------


def at_last_arrest(seats: int, agent: Colour = "red", **kwargs: Any) -> FbiState:
    """Seat 0 makes the turn's last arrest (index 2N-1) with one agent left."""
    # Seat 0 arrests first in round one, so it makes the last arrest of round two.
    order = [0, *range(1, seats)]
    return build(
        seats,
        phase="arrest",
        arrest_order=order,
        arrest_index=2 * seats - 1,
        agents=[[agent]] + [[] for _ in range(seats - 1)],
        **kwargs,
    )


def snapshot(state: FbiState) -> bytes:
    return msgspec.msgpack.encode(state)


def release_all_none(state: FbiState) -> FbiState:
    while state.phase == "release":
        seat = GAME.pending(state)[0].seat
        state, _ = act(state, seat, ReleaseNone())
    return state


def select(state: FbiState, choices: dict[int, tuple[str, str]]) -> FbiState:
    for seat in range(state.seats):
        first, second = choices[seat]
        state, _ = act(state, seat, SelectAgents(first=first, second=second))  # type: ignore[arg-type]
    return state


def end_game(slammers: list[list[int]]) -> tuple[FbiState, GameEnded]:
    state = at_last_arrest(len(slammers), slammers=slammers, deck=[], table=[])
    state, events = act(state, 0, UseAgent(colour="red"))
    assert isinstance(events[-1], GameEnded)
    return state, events[-1]


# ---- setup -----------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_each_seat_is_dealt_a_purple_villain_and_its_matching_innocent(seats: int) -> None:
    given_values = set(range(1, seats + 1))
    for seed in range(10):
        events = GAME.setup(FbiOptions(), seats, Rng(bytes([seed]), "setup"))
        dealt = next(e for e in events if isinstance(e, PurpleCardsDealt))
        ks = []
        for slammer in dealt.slammers:
            assert [c.colour for c in slammer] == ["purple", "purple"]
            assert slammer[0].value == -slammer[1].value > 0
            ks.append(slammer[0].value)
        assert set(ks) == given_values


def test_the_purple_deal_is_random() -> None:
    deals = set()
    for seed in range(20):
        events = GAME.setup(FbiOptions(), 4, Rng(bytes([seed]), "setup"))
        dealt = next(e for e in events if isinstance(e, PurpleCardsDealt))
        deals.add(tuple(s[0].value for s in dealt.slammers))
    assert len(deals) > 5


def test_the_handcuffs_start_with_the_holder_of_purple_plus_n() -> None:
    deal = Deal()
    slammers = [[deal.purple(k), deal.purple(-k)] for k in (2, 3, 1)]
    deck = deal.rest()
    opening: list[FbiEvent] = [
        GameStarted(seats=3, variant="base"),
        PurpleCardsDealt(slammers=[cards(s) for s in slammers]),
        DeckShuffled(size=len(deck), card_ids=deck),
    ]

    events = with_automatic(None, opening)

    assert events[3] == TurnStarted(turn=1, handcuffs_holder=1)
    assert events[4] == CardsPlaced(turn=1, cards=cards(deck[:6]))


def test_setup_places_two_cards_per_seat_from_the_top_of_the_shuffled_deck() -> None:
    events = GAME.setup(FbiOptions(), 4, Rng(b"seed", "setup"))
    shuffled = next(e for e in events if isinstance(e, DeckShuffled))
    placed = next(e for e in events if isinstance(e, CardsPlaced))
    assert shuffled.card_ids is not None
    assert sorted(shuffled.card_ids) == list(range(59))
    assert [c.id for c in placed.cards] == shuffled.card_ids[:8]


# ---- handcuffs, placement, end of game -----------------------------------------------------


def test_handcuffs_pass_to_the_next_seat_each_turn() -> None:
    state = at_last_arrest(4, handcuffs=3, turn=2)

    state, events = act(state, 0, UseAgent(colour="red"))

    assert TurnStarted(turn=3, handcuffs_holder=0) in events
    assert state.handcuffs == 0
    assert GAME.pending(state)[0].seat == 0


def test_each_turn_places_two_cards_per_seat_from_the_top_of_the_deck() -> None:
    deal = Deal()
    left_over = deal.char("blue", 3)
    state = at_last_arrest(4, deal=deal, table=[left_over])
    deck = list(state.deck)

    state, events = act(state, 0, UseAgent(colour="red"))

    assert CardsPlaced(turn=2, cards=cards(deck[:8])) in events
    assert state.table == [left_over, *deck[:8]]
    assert state.deck == deck[8:]


def test_the_last_placement_takes_only_the_cards_left() -> None:
    deal = Deal()
    deck = [deal.char("red", 5), deal.char("green", -1), deal.char("black", 2)]
    slammers = [[deal.purple(k)] for k in (1, 2, 3)]
    state = at_last_arrest(3, deal=deal, deck=deck, slammers=slammers)

    state, events = act(state, 0, UseAgent(colour="red"))

    assert CardsPlaced(turn=2, cards=cards(deck)) in events
    assert state.deck == []
    assert state.phase == "release"


def test_with_every_slammer_empty_the_turn_goes_straight_to_agent_selection() -> None:
    state = at_last_arrest(3)

    state, events = act(state, 0, UseAgent(colour="red"))

    assert [e for e in events if isinstance(e, NothingReleased)] == [
        NothingReleased(seat=s, automatic=True) for s in (1, 2, 0)
    ]
    assert events[-1] == ArrestOrderDetermined(order=[1, 2, 0], released_values=[0, 0, 0])
    assert state.phase == "agents"


def test_the_game_ends_after_the_turn_that_placed_the_last_card() -> None:
    deal = Deal()
    ignored = deal.char("red", 5)
    state = at_last_arrest(3, deal=deal, deck=[], table=[ignored])

    state, events = act(state, 0, UseAgent(colour="red"))

    # The red agent had to take the red 5 — the arrest completes the turn, then the end.
    assert isinstance(events[0], CharacterArrested)
    assert not any(isinstance(e, TurnStarted | CardsPlaced) for e in events)
    assert isinstance(events[-1], GameEnded)
    assert state.phase == "over"
    assert GAME.pending(state) == []
    assert GAME.result(state) is not None


def test_the_game_goes_on_while_one_card_is_left_in_the_deck() -> None:
    deal = Deal()
    state = at_last_arrest(3, deal=deal, deck=[deal.char("yellow", 1)])

    state, events = act(state, 0, UseAgent(colour="red"))

    assert not any(isinstance(e, GameEnded) for e in events)
    assert state.turn == 2
    assert GAME.result(state) is None


def test_table_cards_left_at_the_end_are_ignored() -> None:
    deal = Deal()
    left = [deal.char("blue", 5), deal.char("yellow", 4)]
    state = at_last_arrest(
        2, deal=deal, deck=[], table=left, slammers=[[deal.purple(2)], [deal.purple(1)]]
    )

    state, _ = act(state, 0, UseAgent(colour="red"))

    outcome = GAME.result(state)
    assert outcome is not None
    assert outcome.scores == [2, 1]


# ---- release ---------------------------------------------------------------------------


def test_a_released_card_leaves_the_game() -> None:
    deal = Deal()
    innocent = deal.char("red", -3)
    state = build(3, deal=deal, slammers=[[deal.purple(2), innocent], [deal.purple(1)], [1]])
    before = snapshot(state)

    after, events = act(state, 0, Release(card_id=innocent))

    assert events == [CardReleased(seat=0, card=card(innocent))]
    assert after.slammers[0] == [deal.purple(2)]
    assert after.released == [innocent]
    assert innocent not in after.table
    assert innocent not in after.deck
    assert snapshot(state) == before  # evolve left the given state alone


def test_release_goes_clockwise_from_the_handcuffs_holder() -> None:
    deal = Deal()
    slammers = [[deal.purple(k)] for k in (1, 2, 3, 4)]
    state = build(4, deal=deal, handcuffs=2, slammers=slammers)
    seen = []
    while state.phase == "release":
        seat = GAME.pending(state)[0].seat
        seen.append(seat)
        state, _ = act(state, seat, ReleaseNone())
    assert seen == [2, 3, 0, 1]


def test_a_player_with_an_empty_slammer_is_skipped_without_a_move() -> None:
    deal = Deal()
    state = build(3, deal=deal, slammers=[[deal.purple(1)], [], [deal.purple(2)]])
    assert GAME.legal(state, 1) == []

    state, events = act(state, 0, ReleaseNone())

    assert events == [NothingReleased(seat=0), NothingReleased(seat=1, automatic=True)]
    assert GAME.pending(state)[0].seat == 2


def test_a_handcuffs_holder_with_an_empty_slammer_is_skipped_as_the_turn_starts() -> None:
    deal = Deal()
    slammers = [[deal.purple(1)], [], [deal.purple(2)]]
    state = at_last_arrest(3, deal=deal, handcuffs=0, slammers=slammers)

    state, events = act(state, 0, UseAgent(colour="red"))

    assert events[-1] == NothingReleased(seat=1, automatic=True)
    assert GAME.pending(state)[0].seat == 2


def test_legal_releases_are_none_or_any_slammer_card() -> None:
    deal = Deal()
    slammer = [deal.purple(1), deal.purple(-1), deal.char("green", 3)]
    state = build(2, deal=deal, slammers=[slammer, [deal.purple(2)]])
    assert GAME.legal(state, 0) == [ReleaseNone(), *(Release(card_id=i) for i in slammer)]
    assert GAME.legal(state, 1) == []


# ---- arrest order ----------------------------------------------------------------------


def rulebook_example() -> tuple[FbiState, list[Any]]:
    """Ann (0, handcuffs) releases -4, Bert none, Chris +1, Donna none."""
    deal = Deal()
    ann, bert, chris, donna = 0, 1, 2, 3
    slammers = [[deal.purple(k), deal.purple(-k)] for k in (4, 2, 1, 3)]
    state = build(4, deal=deal, handcuffs=ann, slammers=slammers, table=[0, 12, 24, 36, 48])
    events: list[Any] = []
    for seat, command in [
        (ann, Release(card_id=deal.purple(-4))),
        (bert, ReleaseNone()),
        (chris, Release(card_id=deal.purple(1))),
        (donna, ReleaseNone()),
    ]:
        state, new = act(state, seat, command)
        events += new
    return state, events


def test_rulebook_example_arrest_order_is_chris_bert_donna_ann() -> None:
    state, events = rulebook_example()

    assert events[-1] == ArrestOrderDetermined(order=[2, 1, 3, 0], released_values=[-4, 0, 1, 0])
    assert state.phase == "agents"


def test_arrest_order_breaks_ties_from_the_handcuffs_holder() -> None:
    deal = Deal()
    red2, yellow2 = deal.char("red", 2), deal.char("yellow", 2)
    slammers = [[red2], [deal.purple(1)], [deal.purple(2)], [yellow2]]
    state = build(4, deal=deal, handcuffs=2, slammers=slammers)
    for seat, command in [
        (2, ReleaseNone()),
        (3, Release(card_id=yellow2)),
        (0, Release(card_id=red2)),
        (1, ReleaseNone()),
    ]:
        state, _ = act(state, seat, command)
    # Seats 3 and 0 both released 2: seat 3 comes first clockwise from the holder (2);
    # seats 2 and 1 both count 0, and the holder itself counts first.
    assert state.arrest_order == [3, 0, 2, 1]


def test_agent_selection_is_one_sealed_step_for_every_seat() -> None:
    state, _ = rulebook_example()
    pending = GAME.pending(state)
    assert [p.seat for p in pending] == [0, 1, 2, 3]
    assert all(p.sealed for p in pending)
    assert {p.step for p in pending} == {"t1.agents"}


def test_round_two_runs_in_reverse_arrest_order() -> None:
    state, _ = rulebook_example()
    state = select(state, dict.fromkeys(range(4), ("red", "yellow")))
    assert arrest_sequence(state) == [2, 1, 3, 0, 0, 3, 1, 2]
    seen = []
    while state.phase == "arrest":
        seat = GAME.pending(state)[0].seat
        seen.append(seat)
        state, _ = act(state, seat, GAME.legal(state, seat)[0])
    assert seen == [2, 1, 3, 0, 0, 3, 1, 2]


# ---- agent selection ---------------------------------------------------------------------


def agents_phase(table_colours: list[tuple[str, int]]) -> FbiState:
    deal = Deal()
    table = [deal.char(colour, value) for colour, value in table_colours]
    return build(2, deal=deal, phase="agents", table=table, arrest_order=[0, 1])


def test_agents_of_a_colour_absent_from_the_table_are_refused() -> None:
    state = agents_phase([("red", 1), ("blue", 2)])
    with pytest.raises(IllegalMove):
        decide(state, 0, SelectAgents(first="red", second="green"))


def test_the_double_agent_with_a_single_card_of_its_colour_is_allowed() -> None:
    state = agents_phase([("red", 1)])

    state, events = act(state, 0, SelectAgents(first="2x", second="red"))

    assert events == [AgentsSelected(seat=0, first="red", second="2x")]
    assert state.agents[0] == ["red", "red"]


@pytest.mark.parametrize("agent", ["red", "2x"])
def test_the_same_agent_card_twice_is_refused(agent: str) -> None:
    state = agents_phase([("red", 1), ("blue", 2)])
    with pytest.raises(IllegalMove):
        decide(state, 0, SelectAgents(first=agent, second=agent))  # type: ignore[arg-type]


def test_legal_agent_pairs_are_every_valid_pair_exactly_once() -> None:
    state = agents_phase([("black", -1), ("red", 4), ("blue", 2), ("red", 3)])
    moves = GAME.legal(state, 0)
    assert all(isinstance(m, SelectAgents) for m in moves)
    pairs = [(m.first, m.second) for m in moves if isinstance(m, SelectAgents)]
    assert pairs == [
        ("red", "blue"),
        ("red", "black"),
        ("red", "2x"),
        ("blue", "black"),
        ("blue", "2x"),
        ("black", "2x"),
    ]
    for first, second in pairs:  # either order is accepted
        assert decide(state, 0, SelectAgents(first=second, second=first))


def test_arrests_start_once_every_seat_has_selected() -> None:
    state = agents_phase([("red", 1), ("blue", 2)])
    state, _ = act(state, 0, SelectAgents(first="red", second="blue"))
    assert state.phase == "agents"
    assert [p.seat for p in GAME.pending(state)] == [1]
    state, _ = act(state, 1, SelectAgents(first="blue", second="2x"))
    assert state.phase == "arrest"
    assert state.agents == [["red", "blue"], ["blue", "blue"]]


# ---- arrests -----------------------------------------------------------------------------


def arresting(table: list[int], agents: list[str], variant: str = "base") -> FbiState:
    return build(
        2,
        variant=variant,  # type: ignore[arg-type]
        phase="arrest",
        table=table,
        arrest_order=[0, 1],
        agents=[agents, ["black", "black"]],  # type: ignore[list-item]
        deck=[],
    )


def test_an_agent_must_arrest_an_innocent_when_its_colour_holds_only_innocents() -> None:
    deal = Deal()
    innocent, villain = deal.char("red", -3), deal.char("yellow", 5)
    state = arresting([innocent, villain], ["red", "yellow"])

    state, events = act(state, 0, UseAgent(colour="red"))

    assert events == [CharacterArrested(seat=0, agent="red", card=card(innocent))]
    assert state.slammers[0] == [innocent]
    assert state.table == [villain]
    assert state.agents[0] == ["yellow"]


def test_an_agent_whose_colour_is_gone_passes() -> None:
    deal = Deal()
    red = deal.char("red", 2)
    state = arresting([red], ["blue", "red"])
    assert UseAgent(colour="blue") in GAME.legal(state, 0)

    state, events = act(state, 0, UseAgent(colour="blue"))

    assert events == [AgentPassed(seat=0, agent="blue")]
    assert state.table == [red]
    assert state.slammers[0] == []
    assert state.agents[0] == ["red"]


def test_legal_arrests_list_one_move_per_distinct_remaining_agent() -> None:
    assert GAME.legal(arresting([], ["red", "blue"]), 0) == [
        UseAgent(colour="red"),
        UseAgent(colour="blue"),
    ]
    assert GAME.legal(arresting([], ["green", "green"]), 0) == [UseAgent(colour="green")]


def red_column() -> tuple[Deal, list[int]]:
    deal = Deal()
    return deal, [deal.char("red", 2), deal.char("red", 5), deal.char("red", -1)]


def test_the_base_game_takes_the_highest_card_of_the_colour() -> None:
    _, table = red_column()
    _, events = act(arresting(table, ["red", "red"]), 0, UseAgent(colour="red"))
    assert events == [CharacterArrested(seat=0, agent="red", card=card(table[1]))]


def test_the_stacked_variant_takes_the_top_of_the_colour_pile() -> None:
    _, table = red_column()
    state = arresting(table, ["red", "red"], variant="stacked")

    state, events = act(state, 0, UseAgent(colour="red"))

    assert events == [CharacterArrested(seat=0, agent="red", card=card(table[2]))]
    assert card_to_arrest(state, "red") == table[1]


def test_stacked_piles_build_on_cards_left_from_earlier_turns() -> None:
    deal = Deal()
    old_red = deal.char("red", 5)
    new_red, blue, green = deal.char("red", 1), deal.char("blue", 3), deal.char("green", 2)
    yellow = deal.char("yellow", 3)
    slammers = [[deal.purple(1)], [deal.purple(2)]]
    state = at_last_arrest(
        2,
        agent="black",
        deal=deal,
        variant="stacked",
        table=[old_red],
        deck=[new_red, blue, green, yellow, *deal.rest()],
        slammers=slammers,
    )
    state, _ = act(state, 0, UseAgent(colour="black"))  # turn 1 ends, red 5 stays
    assert state.table == [old_red, new_red, blue, green, yellow]
    state = release_all_none(state)
    state = select(state, {0: ("red", "2x"), 1: ("blue", "green")})
    first = GAME.pending(state)[0].seat
    assert first == 1  # the handcuffs passed to seat 1, which counts first on a tie

    state, _ = act(state, 1, UseAgent(colour="blue"))
    state, events = act(state, 0, UseAgent(colour="red"))
    assert events[0] == CharacterArrested(seat=0, agent="red", card=card(new_red))
    state, _ = act(state, 0, UseAgent(colour="red"))
    assert state.slammers[0][-2:] == [new_red, old_red]


def test_the_base_game_takes_the_highest_card_even_if_placed_in_an_earlier_turn() -> None:
    deal = Deal()
    old_red, new_red = deal.char("red", 5), deal.char("red", 1)
    state = arresting([old_red, new_red], ["red", "red"])
    _, events = act(state, 0, UseAgent(colour="red"))
    assert events == [CharacterArrested(seat=0, agent="red", card=card(old_red))]


# ---- bonuses and final score --------------------------------------------------------------


def bonus_of(ended: GameEnded, colour: str) -> BonusAward:
    return next(b for b in ended.bonuses if b.colour == colour)


def test_the_bonus_goes_to_the_single_highest_positive_colour_sum() -> None:
    deal = Deal()
    _, ended = end_game(
        [
            [deal.char("red", 5), deal.char("red", -1)],  # red 4
            [deal.char("red", 3)],  # red 3
            [],
        ]
    )
    assert bonus_of(ended, "red") == BonusAward(colour="red", value=5, seat=0)


def test_a_tie_at_the_top_gives_the_bonus_to_nobody() -> None:
    deal = Deal()
    _, ended = end_game(
        [
            [deal.char("yellow", 4)],
            [deal.char("yellow", 3), deal.char("yellow", 1)],
            [deal.char("yellow", 2)],
        ]
    )
    assert bonus_of(ended, "yellow").seat is None


def test_no_bonus_when_the_highest_colour_sum_is_not_positive() -> None:
    deal = Deal()
    _, ended = end_game(
        [
            [deal.char("blue", -1)],
            [deal.char("blue", 2), deal.char("blue", -2)],
            [],
        ]
    )
    assert bonus_of(ended, "blue").seat is None
    assert all(b.seat is None for b in ended.bonuses)


def test_purple_cards_count_for_the_score_but_for_no_bonus() -> None:
    deal = Deal()
    _, ended = end_game([[deal.char("green", 1)], [deal.purple(3)], [deal.purple(-3)]])
    assert bonus_of(ended, "green").seat == 0
    assert ended.scores == [1 + 2, 3, -3]


def test_the_final_score_is_every_slammer_card_plus_bonuses() -> None:
    deal = Deal()
    state, ended = end_game(
        [
            [deal.purple(2), deal.char("red", 5), deal.char("black", -3), deal.char("black", 1)],
            [deal.purple(1), deal.purple(-1), deal.char("black", 2), deal.char("blue", -4)],
        ]
    )
    # Seat 0: 2 + 5 - 3 + 1 = 5, red bonus 5 -> 10. Seat 1: 0 + 2 - 4 = -2, black (2 > -2) 1.
    assert ended.scores == [10, -1]
    assert ended.winners == [0]
    outcome = GAME.result(state)
    assert outcome is not None
    assert (outcome.scores, outcome.winners, outcome.places) == ([10, -1], [0], [1, 2])


def test_equal_scores_share_the_win_and_the_place() -> None:
    deal = Deal()
    state, ended = end_game(
        [
            [deal.char("yellow", 5)],
            [deal.char("blue", 3), deal.char("blue", 3)],
            [deal.purple(2)],
        ]
    )
    # Seat 0: 5 + yellow bonus 4 = 9; seat 1: 6 + blue bonus 3 = 9; seat 2: 2.
    assert ended.scores == [9, 9, 2]
    assert ended.winners == [0, 1]
    outcome = GAME.result(state)
    assert outcome is not None
    assert outcome.winners == [0, 1]
    assert outcome.places == [1, 1, 3]


# ---- refused commands --------------------------------------------------------------------


def test_a_seat_out_of_turn_is_refused() -> None:
    state, _ = rulebook_example()
    state = select(state, dict.fromkeys(range(4), ("red", "yellow")))
    with pytest.raises(NotYourTurn):
        decide(state, 0, UseAgent(colour="red"))
    with pytest.raises(NotYourTurn):
        decide(state, 7, UseAgent(colour="red"))


def test_a_command_of_another_phase_is_refused() -> None:
    state, _ = rulebook_example()
    with pytest.raises(WrongPhase):
        decide(state, 0, ReleaseNone())
    with pytest.raises(WrongPhase):
        decide(state, 0, UseAgent(colour="red"))


def test_releasing_a_card_outside_the_slammer_is_refused() -> None:
    deal = Deal()
    state = build(2, deal=deal, slammers=[[deal.purple(1)], [deal.purple(2)]])
    with pytest.raises(IllegalMove):
        decide(state, 0, Release(card_id=deal.purple(2)))


def test_using_an_agent_not_held_is_refused() -> None:
    with pytest.raises(IllegalMove):
        decide(arresting([], ["red", "blue"]), 0, UseAgent(colour="green"))


def test_no_command_is_accepted_once_the_game_is_over() -> None:
    state, _ = end_game([[], [], []])
    with pytest.raises(GameOver):
        decide(state, 0, ReleaseNone())


@pytest.mark.parametrize(
    ("options", "seats"),
    [({"variant": "deluxe"}, 3), ({"colour": "red"}, 3), ({}, 1), ({}, 6)],
)
def test_invalid_options_and_seat_counts_are_refused(options: dict[str, Any], seats: int) -> None:
    with pytest.raises(InvalidOptions):
        MatchEngine(GAME).create("g1", options, [SeatSpec("human")] * seats, b"s" * 32)


def test_rules_publish_the_house_rules_data() -> None:
    published = msgspec.to_builtins(GAME.rulebook())
    assert len(published["character_deck"]) == 59
    assert published["options"] == {"variant": "base"}
    assert {b["colour"]: b["value"] for b in published["bonus_cards"]} == {
        "red": 5,
        "yellow": 4,
        "blue": 3,
        "green": 2,
        "black": 1,
    }
    assert [c["type"] for c in published["commands"]] == [
        "fbi.release",
        "fbi.release_none",
        "fbi.select_agents",
        "fbi.use_agent",
    ]


def test_an_illegal_sealed_agent_choice_is_forfeited_for_a_legal_one() -> None:
    rules = MatchEngine(GAME)
    seed = b"f" * 32
    match = rules.replay(rules.create("g1", {}, [SeatSpec("human")] * 3, seed))
    while match.state.phase == "release":
        seat = GAME.pending(match.state)[0].seat
        for event in rules.move(match, seat, ReleaseNone(), seed):
            match = rules.fold(match, event)
    moves: dict[int, dict[str, Any]] = {
        seat: msgspec.to_builtins(GAME.legal(match.state, seat)[0]) for seat in (1, 2)
    }
    moves[0] = {"type": "fbi.select_agents", "first": "2x", "second": "2x"}
    salt = sealed.new_salt()
    for seat in range(3):
        commitment = sealed.commitment("g1", "t1.agents", seat, moves[seat], salt)
        for event in rules.perform(match, CommitSeal(seat, commitment, "t1.agents"), seed):
            match = rules.fold(match, event)
    events: list[Any] = []
    for seat in range(3):
        events = rules.perform(match, RevealSeal(seat, moves[seat], salt), seed)
        for event in events:
            match = rules.fold(match, event)

    forfeited = [e for e in events if isinstance(e, SealForfeited)]
    assert [e.seat for e in forfeited] == [0]
    selected = [e for e in events if isinstance(e, AgentsSelected)]
    assert [e.seat for e in selected] == [0, 1, 2]
    first, second = selected[0].first, selected[0].second
    assert first is not None  # the stored event holds both
    assert second is not None
    assert SelectAgents(first=first, second=second) in GAME.legal(
        build(3, phase="agents", table=match.state.table), 0
    )
    assert match.state.phase == "arrest"
