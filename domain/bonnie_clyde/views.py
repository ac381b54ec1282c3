"""What one seat, or a spectator (``seat=None``), may see: `view` and `redact`.

Hidden (§3): hands (owner only; others see counts); the FBI Files below the top card
(others see the pile size; the seat searching them with a Ted Hinton sees all of them
during the search); a card taken from the Files or from under a location (that seat
only); the cards under locations (a seat that looked remembers the card while it stays
there); the Case File order (nobody).
"""

from __future__ import annotations

import msgspec

from domain.bonnie_clyde.cards import GAME_NAME, LOCATIONS, Card, card_order, location_name
from domain.bonnie_clyde.events import (
    CardDrawn,
    CardTakenFromFiles,
    Event,
    HandDealt,
    HiddenCardSeen,
    HiddenCardTaken,
)
from domain.bonnie_clyde.state import CarMoveDue, HandResult, Phase, PlayedSet, State, phase


class LocationView(msgspec.Struct, frozen=True):
    """``seen_card``: the card this seat looked at here, while it is still here."""

    location: int
    name: str
    has_hidden_card: bool
    seen_card: Card | None


class TableView(msgspec.Struct, frozen=True):
    """What lies in front of one seat, and how many cards it holds."""

    seat: int
    hand_size: int
    sets: list[PlayedSet]
    fugitives: list[Card]


class BonnieClydeView(msgspec.Struct, frozen=True, tag=GAME_NAME, tag_field="game"):
    """One seat's (or a spectator's) view of the table.

    ``hand`` is the seat's own hand (None for spectators). ``files_cards`` lists the whole
    FBI Files, bottom to top, only to the seat searching them with a Ted Hinton.
    ``looking_at`` is the card this seat is deciding to take or leave.
    """

    seat: int | None
    seats: int
    target: int
    totals: list[int]
    hand_number: int
    dealer: int
    turn: int
    turn_seat: int
    phase: Phase
    car: int
    case_file_size: int
    files_top: Card | None
    files_size: int
    hand: list[Card] | None
    tables: list[TableView]
    locations: list[LocationView]
    ted_hinton_played_this_turn: bool
    ted_hinton_in_play: bool
    look_location: int | None
    pending_car_move: CarMoveDue | None
    files_cards: list[Card] | None = None
    looking_at: Card | None = None
    last_hand: HandResult | None = None
    winner: int | None = None


def view(state: State, seat: int | None) -> BonnieClydeView:
    me = seat if seat is not None and 0 <= seat < state.seats and state.hands else None
    acting = me is not None and me == state.turn_seat and not state.over
    memory: list[Card | None] = state.seen[me] if me is not None else [None] * len(LOCATIONS)
    locations = [
        LocationView(
            location=loc,
            name=location_name(loc),
            has_hidden_card=bool(state.locations) and state.locations[loc - 1] is not None,
            seen_card=memory[loc - 1] if state.locations else None,
        )
        for loc in LOCATIONS
    ]
    looking_at = None
    if acting and state.pending_look is not None:
        looking_at = state.locations[state.pending_look - 1]
    return BonnieClydeView(
        seat=seat,
        seats=state.seats,
        target=state.target,
        totals=list(state.totals),
        hand_number=state.hand_number,
        dealer=state.dealer,
        turn=state.turn,
        turn_seat=state.turn_seat,
        phase=phase(state),
        car=state.car,
        case_file_size=len(state.case_file),
        files_top=state.files[-1] if state.files else None,
        files_size=len(state.files),
        hand=sorted(state.hands[me], key=card_order) if me is not None else None,
        tables=[
            TableView(
                seat=s,
                hand_size=len(state.hands[s]),
                sets=list(state.tables[s]),
                fugitives=list(state.fugitives[s]),
            )
            for s in range(len(state.hands))
        ],
        locations=locations,
        ted_hinton_played_this_turn=state.ted_played,
        ted_hinton_in_play=state.ted_in_play,
        look_location=state.pending_look,
        pending_car_move=state.pending_car,
        files_cards=list(state.files) if acting and state.searching else None,
        looking_at=looking_at,
        last_hand=state.last_hand,
        winner=state.winner,
    )


def redact(event: Event, seat: int | None) -> Event:
    if isinstance(event, HandDealt):
        return msgspec.structs.replace(
            event,
            hands=[hand if s == seat else None for s, hand in enumerate(event.hands)],
            location_cards=None,
            case_file=None,
        )
    if isinstance(event, CardDrawn):
        if event.source == "case_file" and event.seat != seat:
            return msgspec.structs.replace(event, card=None)
        return event
    if isinstance(event, CardTakenFromFiles | HiddenCardSeen | HiddenCardTaken):
        return event if event.seat == seat else msgspec.structs.replace(event, card=None)
    return event
