"""What one seat, or a spectator (``seat=None``), may see: `view` and `redact`.

Hidden (§3): hands (owner only; others see counts); the FBI Files below the top card
(others see the pile size; the seat searching them with a Ted Hinton sees all of them
during the search); a card taken from the Files or from under a location (that seat
only); the cards under locations (a seat that looked remembers the card while it stays
there); the Case File order (nobody).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.bonnie_clyde.cards import GAME_NAME, LOCATIONS, Card, card_order, location_name
from domain.bonnie_clyde.events import (
    BonnieClydeEvent,
    CardDrawn,
    CardTakenFromFiles,
    HandDealt,
    HiddenCardSeen,
    HiddenCardTaken,
)
from domain.bonnie_clyde.state import (
    BonnieClydeState,
    CarMoveDue,
    HandResult,
    Phase,
    PlayedSet,
    phase,
)
from domain.engine import doc


class LocationView(msgspec.Struct, frozen=True):
    """``seen_card``: the card this seat looked at here, while it is still here."""

    location: Annotated[
        int,
        doc(
            "A board location, 1 to 10 (the car moves up towards 10); its name is in the rules "
            "data."
        ),
    ]
    name: Annotated[str, doc("The location's name.")]
    has_hidden_card: Annotated[bool, doc("True while a face-down card lies under it.")]
    seen_card: Annotated[
        Card | None,
        doc("The card this seat saw there (by looking), while it is still there; else null."),
    ]


class TableView(msgspec.Struct, frozen=True):
    """What lies in front of one seat, and how many cards it holds."""

    seat: Annotated[int, doc("The seat (0-based).")]
    hand_size: Annotated[int, doc("How many cards it holds.")]
    sets: Annotated[list[PlayedSet], doc("Its melds and layoffs, in the order played.")]
    fugitives: Annotated[list[Card], doc("Bonnie and Clyde cards it captured.")]


class BonnieClydeView(msgspec.Struct, frozen=True, tag=GAME_NAME, tag_field="game"):
    """One seat's (or a spectator's) view of the table.

    ``hand`` is the seat's own hand (None for spectators). ``files_cards`` lists the whole
    FBI Files, bottom to top, only to the seat searching them with a Ted Hinton.
    ``looking_at`` is the card this seat is deciding to take or leave.
    """

    seat: Annotated[int | None, doc("The viewing seat, null for a spectator.")]
    seats: Annotated[int, doc("How many seats play (2 to 4).")]
    target: Annotated[int, doc("The total that ends the game.")]
    totals: Annotated[list[int], doc("Each seat's total over the hands played, by seat.")]
    hand_number: Annotated[int, doc("The hand being played, from 1.")]
    dealer: Annotated[int, doc("The seat that dealt this hand.")]
    turn: Annotated[int, doc("The turn within the game, counting from 1.")]
    turn_seat: Annotated[int, doc("The seat whose turn it is.")]
    phase: Annotated[
        Phase,
        doc(
            "What the turn awaits: draw, play (meld, lay off, Ted Hinton, discard), look (take or"
            " leave a card looked at), move_car, search_files, or over."
        ),
    ]
    car: Annotated[int, doc("The Crime Spree car's location (1 to 10).")]
    case_file_size: Annotated[int, doc("Cards left in the Case File (the face-down draw pile).")]
    files_top: Annotated[Card | None, doc("The FBI Files' top card (face up), null when empty.")]
    files_size: Annotated[int, doc("Cards in the FBI Files (the discard pile).")]
    hand: Annotated[list[Card] | None, doc("The viewing seat's hand (null for spectators).")]
    tables: Annotated[list[TableView], doc("What lies in front of each seat, by seat.")]
    locations: Annotated[list[LocationView], doc("The ten locations, 1 to 10.")]
    ted_hinton_played_this_turn: Annotated[
        bool, doc("True once a Ted Hinton was played this turn (one per turn).")
    ]
    ted_hinton_in_play: Annotated[
        bool, doc("True while a played Ted Hinton's action is under way.")
    ]
    look_location: Annotated[
        int | None, doc("The location whose card the acting seat is looking at, else null.")
    ]
    pending_car_move: Annotated[
        CarMoveDue | None,
        doc(
            "After a meld or layoff, before the car moves: which one (a layoff lets the player "
            "choose up or down); null otherwise."
        ),
    ]
    files_cards: Annotated[
        list[Card] | None,
        doc(
            "The whole FBI Files, bottom to top: only to the seat searching them with a Ted "
            "Hinton; null otherwise."
        ),
    ] = None
    looking_at: Annotated[
        Card | None,
        doc(
            "The card under a location that this seat is deciding to take or leave (the acting "
            "seat only); null otherwise."
        ),
    ] = None
    last_hand: Annotated[
        HandResult | None,
        doc("How the previous hand ended and was scored; null in the first hand."),
    ] = None
    winner: Annotated[int | None, doc("The winning seat once the game is over, else null.")] = None


def view(state: BonnieClydeState, seat: int | None) -> BonnieClydeView:
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


def redact(event: BonnieClydeEvent, seat: int | None) -> BonnieClydeEvent:
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
