"""What each seat may see of Bonnie and Clyde: views and redacted events
(docs/house-rules.md#bonnie_clyde)."""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from domain.bonnie_clyde import GAME
from domain.bonnie_clyde.cards import BONNIE, CLYDE, Card
from domain.bonnie_clyde.commands import (
    LeaveHiddenCard,
    Meld,
    TakeFromFiles,
    TedHintonLook,
    TedHintonSearchFiles,
)
from domain.bonnie_clyde.events import (
    CardDiscarded,
    CardDrawn,
    CardTakenFromFiles,
    FugitiveCaptured,
    HandDealt,
    HiddenCardLeft,
    HiddenCardSeen,
    HiddenCardTaken,
    MeldPlayed,
)
from domain.bonnie_clyde.state import BonnieClydeState
from domain.rng import Rng
from tests.domain.bonnie_clyde_helpers import TED, act, ev, playing, table
from tests.domain.playthrough import play


def test_a_seat_sees_its_own_hand_and_only_the_sizes_of_the_others() -> None:
    state = table([[ev(1), ev(2)], [ev(3), ev(4), TED]])
    mine = GAME.view(state, 0)
    assert mine.hand == [ev(1), ev(2)]
    assert [t.hand_size for t in mine.tables] == [2, 3]
    assert GAME.view(state, None).hand is None
    assert msgspec.json.encode(ev(3)).decode() not in msgspec.json.encode(mine).decode()


def test_a_view_is_tagged_with_the_game_and_encodes_as_json() -> None:
    data = msgspec.to_builtins(GAME.view(table([[ev(1)], [ev(2)]]), 0))
    assert data["game"] == "bonnie_clyde"
    msgspec.json.encode(data)


def test_tables_differing_only_in_another_seats_hand_look_the_same_to_this_seat() -> None:
    state = table([[ev(1), ev(2)], [ev(3), ev(4)]], next_draws=[ev(5), ev(6)])
    hands = [state.hands[0], [ev(5), ev(6)]]
    case_file = [*state.case_file[:-2], ev(4), ev(3)]
    other = replace(state, hands=hands, case_file=case_file)
    assert GAME.view(other, 0) == GAME.view(state, 0)
    assert GAME.view(other, None) == GAME.view(state, None)
    assert GAME.view(other, 1) != GAME.view(state, 1)


def test_the_case_file_order_and_the_cards_under_locations_are_hidden_from_everyone() -> None:
    state = table([[ev(1)], [ev(2)]])
    shuffled = replace(
        state,
        case_file=list(reversed(state.case_file)),
        locations=list(reversed(state.locations)),
    )
    for seat in (0, 1, None):
        assert GAME.view(shuffled, seat) == GAME.view(state, seat)


def test_the_fbi_files_show_only_their_top_card_and_size() -> None:
    state = table([[ev(1)], [ev(2)]], files=[ev(7), ev(8), ev(9)])
    other = replace(state, files=[ev(3), ev(3), ev(9)])
    for seat in (0, 1, None):
        assert GAME.view(other, seat) == GAME.view(state, seat)
    assert (GAME.view(state, 1).files_top, GAME.view(state, 1).files_size) == (ev(9), 3)


def test_only_the_searching_seat_sees_the_fbi_files_during_a_search() -> None:
    state = table([[TED, ev(1)], [ev(2)]], files=[ev(7), ev(8)])
    state, _ = act(playing(state), 0, TedHintonSearchFiles())
    assert GAME.view(state, 0).files_cards == [ev(7), ev(8)]
    assert GAME.view(state, 1).files_cards is None
    assert GAME.view(state, None).files_cards is None
    state, _ = act(state, 0, TakeFromFiles(ev(7)))
    assert GAME.view(state, 0).files_cards is None


def test_a_looked_at_card_is_shown_to_the_looker_alone_and_remembered_while_it_stays() -> None:
    state = table([[TED, ev(1)], [ev(2), ev(2), ev(2), ev(4)]], under={6: ev(9)})
    state, _ = act(playing(state), 0, TedHintonLook(6))
    assert GAME.view(state, 0).looking_at == ev(9)
    assert GAME.view(state, 1).looking_at is None
    state, _ = act(state, 0, LeaveHiddenCard())
    for seat, expected in ((0, ev(9)), (1, None), (None, None)):
        assert GAME.view(state, seat).locations[5].seen_card == expected
    assert all(loc.has_hidden_card for loc in GAME.view(state, 1).locations)
    # once someone takes it, nobody "remembers" a card that is gone
    state = replace(state, locations=[*state.locations[:5], None, *state.locations[6:]])
    state = GAME.evolve(state, HiddenCardTaken(seat=1, location=6, card=ev(9)))
    assert GAME.view(state, 0).locations[5] == GAME.view(state, 1).locations[5]
    assert GAME.view(state, 0).locations[5].seen_card is None


def test_a_deal_is_redacted_to_the_own_hand_and_the_public_counts() -> None:
    dealt = GAME.setup(GAME.options_type(), 3, Rng(b"redact", "setup"))[1]
    assert isinstance(dealt, HandDealt)
    for seat in (0, 1, 2):
        seen = GAME.redact(dealt, seat)
        assert isinstance(seen, HandDealt)
        assert seen.hands == [h if s == seat else None for s, h in enumerate(dealt.hands)]
        assert seen.location_cards is None
        assert seen.case_file is None
        assert (seen.hand_sizes, seen.case_file_size) == (dealt.hand_sizes, dealt.case_file_size)
        assert seen.files_top == dealt.files_top
    spectator = GAME.redact(dealt, None)
    assert isinstance(spectator, HandDealt)
    assert spectator.hands == [None, None, None]


def test_a_case_file_draw_is_known_to_the_drawer_alone_and_a_files_draw_to_everyone() -> None:
    blind = CardDrawn(seat=0, source="case_file", card=ev(4))
    assert GAME.redact(blind, 0) == blind
    assert GAME.redact(blind, 1) == CardDrawn(seat=0, source="case_file", card=None)
    unseen = GAME.redact(blind, None)
    assert isinstance(unseen, CardDrawn)
    assert unseen.card is None
    open_draw = CardDrawn(seat=0, source="files", card=ev(4))
    assert GAME.redact(open_draw, 1) == open_draw


def test_cards_taken_or_seen_in_secret_are_redacted_for_everyone_else() -> None:
    secret: list[CardTakenFromFiles | HiddenCardSeen | HiddenCardTaken] = [
        CardTakenFromFiles(seat=1, card=ev(3)),
        HiddenCardSeen(seat=1, location=2, card=BONNIE),
        HiddenCardTaken(seat=1, location=2, card=ev(3)),
    ]
    for event in secret:
        assert GAME.redact(event, 1) == event
        for seat in (0, 2, None):
            hidden = GAME.redact(event, seat)
            assert type(hidden) is type(event)
            assert isinstance(hidden, (CardTakenFromFiles, HiddenCardSeen, HiddenCardTaken))
            assert hidden.card is None
            assert hidden.seat == 1  # that it happened is public


def test_public_events_are_not_redacted() -> None:
    public: list[Any] = [
        MeldPlayed(seat=0, location=4, count=3, sideways=True),
        FugitiveCaptured(seat=0, location=4, card=CLYDE),
        HiddenCardLeft(seat=0, location=4),
        CardDiscarded(seat=0, card=ev(2)),
    ]
    for event in public:
        assert GAME.redact(event, None) == event


def _scrambled(state: BonnieClydeState, seat: int, rng: Rng) -> BonnieClydeState:
    """``state`` with every card ``seat`` may not know shuffled among the hidden places:
    the other hands, the Case File, the FBI Files below the top and the unseen location
    cards (the Files stay as they are while ``seat`` searches them)."""
    searching = state.searching and state.turn_seat == seat
    memory = state.seen[seat]
    hidden: list[Card] = []
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden += hand
    hidden += state.case_file
    if not searching:
        hidden += state.files[:-1]
    blind = [i for i, c in enumerate(state.locations) if c is not None and memory[i] is None]
    hidden += [c for i, c in enumerate(state.locations) if i in blind and c is not None]
    pool = rng.shuffled(hidden)
    hands = [
        list(hand) if other == seat else [pool.pop() for _ in hand]
        for other, hand in enumerate(state.hands)
    ]
    case_file = [pool.pop() for _ in state.case_file]
    files = list(state.files)
    if not searching:
        files[:-1] = [pool.pop() for _ in files[:-1]]
    locations = [pool.pop() if i in blind else c for i, c in enumerate(state.locations)]
    assert not pool
    return replace(state, hands=hands, case_file=case_file, files=files, locations=locations)


class _ScrambleCheck:
    """After each event: every seat's view is the same with its unknown cards scrambled."""

    def __init__(self, seats: int, rng: Rng) -> None:
        self.seats = seats
        self.rng = rng
        self.calls = 0

    def __call__(self, match: Any, event: Any) -> None:
        state = match.state
        if state is None or state.hand_number == 0 or state.over:
            return
        for seat in range(self.seats):
            scrambled = _scrambled(state, seat, self.rng)
            assert GAME.view(scrambled, seat) == GAME.view(state, seat)
        self.calls += 1


def test_no_view_in_a_random_game_depends_on_a_card_its_seat_may_not_know() -> None:
    checked = 0
    for seed in range(6):
        seats = 2 + seed % 3
        check = _ScrambleCheck(seats, Rng(seed.to_bytes(2, "big"), "scramble"))
        play(GAME, {"target": 10}, seats, seed, on_event=check)
        checked += check.calls
    assert checked > 500


def test_a_search_of_the_files_by_one_seat_reveals_nothing_to_the_others() -> None:
    state = table([[TED, ev(1)], [ev(2)]], files=[ev(7), ev(8)])
    state, events = act(playing(state), 0, TedHintonSearchFiles())
    state, events = act(state, 0, TakeFromFiles(ev(7)))
    taken = GAME.redact(events[0], 1)
    assert isinstance(taken, CardTakenFromFiles)
    assert taken.card is None
    assert GAME.view(state, 1).files_top == TED


def test_a_captured_fugitive_is_public() -> None:
    state = table([[ev(4)] * 3 + [ev(1)], [ev(2)]], under={4: BONNIE})
    state, events = act(playing(state, car=4), 0, Meld(4, 3))
    for seat in (1, None):
        assert GAME.view(state, seat).tables[0].fugitives == [BONNIE]
        assert [GAME.redact(e, seat) for e in events] == events


def test_views_and_legal_moves_work_on_states_decoded_from_storage() -> None:
    """Cards decoded from JSON are equal but distinct objects: ordering must not compare
    their empty locations (it did, and views crashed once a game came back from Redis)."""
    from domain.bonnie_clyde import GAME
    from domain.match import Match, MatchEngine, event_union
    from tests.domain.playthrough import play

    final, events = play(GAME, {"target": 10}, 2, seed=5)
    decoder = msgspec.json.Decoder(event_union(GAME))
    rules = MatchEngine(GAME)
    match: Match | None = None
    for event in events:
        match = rules.fold(match, decoder.decode(msgspec.json.encode(event)))
        if match.state is None:  # only the creation event so far
            continue
        for seat in (0, 1, None):
            rules.view(match, seat)
        for seat in (0, 1):
            rules.legal(match, seat)
    assert match is not None
    assert match.state == final.state
