"""The pure fold of Bonnie and Clyde events into `BonnieClydeState`, one handler per event type.

Never mutates its input."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.bonnie_clyde.cards import EVIDENCE, LAST_LOCATION, TED_HINTON, Card
from domain.bonnie_clyde.events import (
    BonnieClydeEvent,
    CardDiscarded,
    CardDrawn,
    CardTakenFromFiles,
    CarMoved,
    FugitiveCaptured,
    GameEnded,
    GameStarted,
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
from domain.bonnie_clyde.state import BonnieClydeState, CarMoveDue, HandResult, PlayedSet
from domain.kit import Fold, unredacted


def evolve(state: BonnieClydeState | None, event: BonnieClydeEvent) -> BonnieClydeState:
    """The kit's fold of the handlers below, counting the events of the turn (step ids
    are built from the count, so every decision names a new step)."""
    new = _FOLD(state, event)
    if state is not None and new.turn == state.turn:
        new = replace(new, events_this_turn=state.events_this_turn + 1)
    return new


def _game_started(event: GameStarted) -> BonnieClydeState:
    return BonnieClydeState(seats=event.seats, target=event.target, totals=[0] * event.seats)


def _with_hand(state: BonnieClydeState, seat: int, hand: list[Card]) -> list[list[Card]]:
    hands = list(state.hands)
    hands[seat] = hand
    return hands


def _remove(cards: list[Card], card: Card, count: int = 1) -> list[Card]:
    out = list(cards)
    for _ in range(count):
        out.remove(card)
    return out


def _remove_topmost(pile: list[Card], card: Card) -> list[Card]:
    out = list(pile)
    index = len(out) - 1 - out[::-1].index(card)
    del out[index]
    return out


def _location_emptied(state: BonnieClydeState, location: int) -> dict[str, Any]:
    """A card left its location: the spot is empty and every memory of it goes too."""
    locations = list(state.locations)
    locations[location - 1] = None
    seen = []
    for memory in state.seen:
        if memory[location - 1] is not None:
            memory = list(memory)
            memory[location - 1] = None
        seen.append(memory)
    return {"locations": locations, "seen": seen}


def _hand_dealt(state: BonnieClydeState, event: HandDealt) -> BonnieClydeState:
    location_cards = unredacted(event.location_cards, "deal")
    case_file = unredacted(event.case_file, "deal")
    hands = [list(unredacted(hand, "deal")) for hand in event.hands]
    return replace(
        state,
        hand_number=event.hand_number,
        dealer=event.dealer,
        turn_seat=event.first_seat,
        turn=state.turn + 1,
        events_this_turn=0,
        drawn=False,
        ted_played=False,
        ted_in_play=False,
        searching=False,
        pending_look=None,
        pending_car=None,
        car=event.car,
        case_file=list(case_file),
        files=[event.files_top],
        locations=list(location_cards),
        hands=hands,
        tables=[[] for _ in range(state.seats)],
        fugitives=[[] for _ in range(state.seats)],
        seen=[[None] * LAST_LOCATION for _ in range(state.seats)],
    )


def _card_drawn(state: BonnieClydeState, event: CardDrawn) -> BonnieClydeState:
    card = unredacted(event.card, "draw")
    if event.source == "case_file":
        changes: dict[str, Any] = {"case_file": state.case_file[:-1]}
    else:
        changes = {"files": state.files[:-1]}
    hand = [*state.hands[event.seat], card]
    return replace(state, hands=_with_hand(state, event.seat, hand), drawn=True, **changes)


def _ted_hinton_played(state: BonnieClydeState, event: TedHintonPlayed) -> BonnieClydeState:
    hand = _remove(state.hands[event.seat], TED_HINTON)
    return replace(
        state,
        hands=_with_hand(state, event.seat, hand),
        ted_played=True,
        ted_in_play=True,
        searching=event.action == "search_files",
    )


def _ted_hinton_filed(state: BonnieClydeState, event: TedHintonFiled) -> BonnieClydeState:
    return replace(state, ted_in_play=False, files=[*state.files, TED_HINTON])


def _card_taken_from_files(state: BonnieClydeState, event: CardTakenFromFiles) -> BonnieClydeState:
    card = unredacted(event.card, "card taken from the files")
    hand = [*state.hands[event.seat], card]
    return replace(
        state,
        files=_remove_topmost(state.files, card),
        hands=_with_hand(state, event.seat, hand),
        searching=False,
    )


def _hidden_card_seen(state: BonnieClydeState, event: HiddenCardSeen) -> BonnieClydeState:
    seen = list(state.seen)
    memory = list(seen[event.seat])
    memory[event.location - 1] = unredacted(event.card, "look")
    seen[event.seat] = memory
    return replace(state, pending_look=event.location, seen=seen)


def _hidden_card_taken(state: BonnieClydeState, event: HiddenCardTaken) -> BonnieClydeState:
    hand = [*state.hands[event.seat], unredacted(event.card, "hidden card taken")]
    return replace(
        state,
        hands=_with_hand(state, event.seat, hand),
        pending_look=None,
        **_location_emptied(state, event.location),
    )


def _hidden_card_left(state: BonnieClydeState, event: HiddenCardLeft) -> BonnieClydeState:
    return replace(state, pending_look=None)


def _fugitive_captured(state: BonnieClydeState, event: FugitiveCaptured) -> BonnieClydeState:
    fugitives = list(state.fugitives)
    fugitives[event.seat] = [*fugitives[event.seat], event.card]
    return replace(state, fugitives=fugitives, **_location_emptied(state, event.location))


def _played(state: BonnieClydeState, event: MeldPlayed | LaidOff) -> BonnieClydeState:
    kind: CarMoveDue = "meld" if isinstance(event, MeldPlayed) else "layoff"
    hand = _remove(state.hands[event.seat], EVIDENCE[event.location], event.count)
    tables = list(state.tables)
    played = PlayedSet(kind, event.location, event.count, event.sideways)
    tables[event.seat] = [*tables[event.seat], played]
    return replace(
        state, hands=_with_hand(state, event.seat, hand), tables=tables, pending_car=kind
    )


def _car_moved(state: BonnieClydeState, event: CarMoved) -> BonnieClydeState:
    return replace(state, car=event.to_location, pending_car=None)


def _card_discarded(state: BonnieClydeState, event: CardDiscarded) -> BonnieClydeState:
    hand = _remove(state.hands[event.seat], event.card)
    new = replace(
        state, hands=_with_hand(state, event.seat, hand), files=[*state.files, event.card]
    )
    if not hand or not state.case_file:
        return new  # the hand is over: bc.hand_scored follows
    return replace(
        new,
        turn_seat=(event.seat + 1) % state.seats,
        turn=state.turn + 1,
        events_this_turn=0,
        drawn=False,
        ted_played=False,
    )


def _hand_scored(state: BonnieClydeState, event: HandScored) -> BonnieClydeState:
    result = HandResult(
        hand_number=event.hand_number,
        ending=event.ending,
        ended_by_seat=event.ended_by_seat,
        car=event.car,
        bonus=event.bonus,
        shut_out=event.shut_out,
        hand_scores=list(event.hand_scores),
        totals=list(event.totals),
    )
    return replace(state, totals=list(event.totals), last_hand=result)


def _game_ended(state: BonnieClydeState, event: GameEnded) -> BonnieClydeState:
    return replace(state, over=True, winner=event.winner)


_FOLD = Fold[BonnieClydeState](
    "Bonnie and Clyde",
    (GameStarted, _game_started),
    {
        HandDealt: _hand_dealt,
        CardDrawn: _card_drawn,
        TedHintonPlayed: _ted_hinton_played,
        TedHintonFiled: _ted_hinton_filed,
        CardTakenFromFiles: _card_taken_from_files,
        HiddenCardSeen: _hidden_card_seen,
        HiddenCardTaken: _hidden_card_taken,
        HiddenCardLeft: _hidden_card_left,
        FugitiveCaptured: _fugitive_captured,
        MeldPlayed: _played,
        LaidOff: _played,
        CarMoved: _car_moved,
        CardDiscarded: _card_discarded,
        HandScored: _hand_scored,
        GameEnded: _game_ended,
    },
)
