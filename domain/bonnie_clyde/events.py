"""Events of Bonnie and Clyde.

Fields that carry hidden cards are ``... | None``: `views.redact` blanks them for every
seat that may not know the card (see the docstring of each event).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.bonnie_clyde.cards import Card
from domain.engine import doc

TedHintonAction = Literal["draw_two", "search_files", "look"]
HandEnding = Literal["went_out", "case_file_ran_out"]


class GameStarted(msgspec.Struct, frozen=True, tag="bc.game_started", tag_field="type"):
    """A Bonnie and Clyde game began."""

    seats: Annotated[int, doc("How many seats play (2 to 4).")]
    target: Annotated[int, doc("The total that ends the game (see the options).")]


# docs/house-rules.md#bonnie_clyde-first-dealer.
class HandDealt(msgspec.Struct, frozen=True, tag="bc.hand_dealt", tag_field="type"):
    """A fresh shuffle and deal (house rule `first-dealer`, in GET /v1/rules/bonnie_clyde).

    ``hands[s]`` is shown to seat ``s`` only; ``location_cards`` (the cards under
    locations 1..10, in order) and ``case_file`` (bottom to top) are hidden from everyone
    during play. The counts and ``files_top`` are public.
    """

    hand_number: Annotated[int, doc("The hand, from 1.")]
    dealer: Annotated[int, doc("The seat that dealt this hand.")]
    first_seat: Annotated[int, doc("The seat that plays first.")]
    car: Annotated[int, doc("The Crime Spree car's location at the start of the hand (1 to 10).")]
    files_top: Annotated[Card, doc("The FBI Files' first face-up card.")]
    hand_sizes: Annotated[list[int], doc("How many cards each seat was dealt, by seat.")]
    case_file_size: Annotated[int, doc("Cards left in the Case File (the face-down draw pile).")]
    hands: Annotated[
        list[list[Card] | None], doc("Each seat's hand: the seat's own only, null for the others.")
    ]
    location_cards: Annotated[
        list[Card] | None,
        doc("The cards under locations 1 to 10 (nobody sees them; the replay does)."),
    ] = None
    case_file: Annotated[
        list[Card] | None, doc("The Case File's order (nobody sees it; the replay does).")
    ] = None


class CardDrawn(msgspec.Struct, frozen=True, tag="bc.card_drawn", tag_field="type"):
    """A card drawn into ``seat``'s hand. From the Case File only that seat sees ``card``;
    from the FBI Files it was the visible top card, so everyone does."""

    seat: Annotated[int, doc("The seat (0-based).")]
    source: Annotated[
        Literal["case_file", "files"],
        doc("case_file (the face-down pile) or files (the FBI Files' top card)."),
    ]
    card: Annotated[
        Card | None,
        doc("The card (everyone for the Files; the drawing seat only for the Case File)."),
    ] = None


class TedHintonPlayed(msgspec.Struct, frozen=True, tag="bc.ted_hinton_played", tag_field="type"):
    """Public: the Ted Hinton leaves the hand and its action begins."""

    seat: Annotated[int, doc("The seat (0-based).")]
    action: Annotated[
        TedHintonAction, doc("draw_two, search_files or look (at the card under a location).")
    ]
    location: Annotated[int | None, doc("For look: the location (1 to 10); null otherwise.")] = None


class TedHintonFiled(msgspec.Struct, frozen=True, tag="bc.ted_hinton_filed", tag_field="type"):
    """Public: the Ted Hinton, its action done, goes on top of the FBI Files."""

    seat: Annotated[int, doc("The seat (0-based).")]


class CardTakenFromFiles(
    msgspec.Struct, frozen=True, tag="bc.card_taken_from_files", tag_field="type"
):
    """A Ted Hinton search took ``card`` from the FBI Files; only ``seat`` sees which."""

    seat: Annotated[int, doc("The seat (0-based).")]
    card: Annotated[Card | None, doc("The card taken (the taking seat only).")] = None


class HiddenCardSeen(msgspec.Struct, frozen=True, tag="bc.hidden_card_seen", tag_field="type"):
    """``seat`` looked at the card under ``location``; only that seat sees ``card``."""

    seat: Annotated[int, doc("The seat (0-based).")]
    location: Annotated[
        int,
        doc(
            "A board location, 1 to 10 (the car moves up towards 10); its name is in the rules "
            "data."
        ),
    ]
    card: Annotated[Card | None, doc("The card under it (the looking seat only).")] = None


class HiddenCardTaken(msgspec.Struct, frozen=True, tag="bc.hidden_card_taken", tag_field="type"):
    """The looked-at card went into ``seat``'s hand; others know a card was taken, not which."""

    seat: Annotated[int, doc("The seat (0-based).")]
    location: Annotated[
        int,
        doc(
            "A board location, 1 to 10 (the car moves up towards 10); its name is in the rules "
            "data."
        ),
    ]
    card: Annotated[Card | None, doc("The card taken (the taking seat only).")] = None


class HiddenCardLeft(msgspec.Struct, frozen=True, tag="bc.hidden_card_left", tag_field="type"):
    """The seat left the card it looked at under the location."""

    seat: Annotated[int, doc("The seat (0-based).")]
    location: Annotated[
        int,
        doc(
            "A board location, 1 to 10 (the car moves up towards 10); its name is in the rules "
            "data."
        ),
    ]


class FugitiveCaptured(msgspec.Struct, frozen=True, tag="bc.fugitive_captured", tag_field="type"):
    """Public: Bonnie or Clyde found at the car's location, played face up before ``seat``."""

    seat: Annotated[int, doc("The seat (0-based).")]
    location: Annotated[
        int,
        doc(
            "A board location, 1 to 10 (the car moves up towards 10); its name is in the rules "
            "data."
        ),
    ]
    card: Annotated[Card, doc("Bonnie or Clyde.")]


class MeldPlayed(msgspec.Struct, frozen=True, tag="bc.meld_played", tag_field="type"):
    """A seat melded Evidence cards of one location in front of it."""

    seat: Annotated[int, doc("The seat (0-based).")]
    location: Annotated[int, doc("The location the Evidence is of (1 to 10).")]
    count: Annotated[int, doc("How many Evidence cards (3 or more).")]
    sideways: Annotated[
        bool, doc("True when the car was at that location: each card scores 4, not 2.")
    ]


class LaidOff(msgspec.Struct, frozen=True, tag="bc.laid_off", tag_field="type"):
    """A seat laid off Evidence cards on a location already melded by any player."""

    seat: Annotated[int, doc("The seat (0-based).")]
    location: Annotated[int, doc("The location the Evidence is of (1 to 10).")]
    count: Annotated[int, doc("How many Evidence cards (1 or more).")]
    sideways: Annotated[
        bool, doc("True when the car was at that location: each card scores 4, not 2.")
    ]


class CarMoved(msgspec.Struct, frozen=True, tag="bc.car_moved", tag_field="type"):
    """The car's move after a meld or layoff; ``to_location == from_location`` when a meld
    at the last location leaves it in place."""

    seat: Annotated[int, doc("The seat (0-based).")]
    from_location: Annotated[int, doc("Where the car was (1 to 10).")]
    to_location: Annotated[int, doc("Where it is now (1 to 10).")]


class CardDiscarded(msgspec.Struct, frozen=True, tag="bc.card_discarded", tag_field="type"):
    """A seat discarded a card on the FBI Files, ending its turn."""

    seat: Annotated[int, doc("The seat (0-based).")]
    card: Annotated[Card, doc("The discarded card (now the Files' top card).")]


# A hand's scoring, as `bc.hand_scored` records it and the view's last hand shows it.
HandNumber = Annotated[int, doc("The hand, from 1.")]
Ending = Annotated[HandEnding, doc("went_out (a seat played its last card) or case_file_ran_out.")]
EndedBySeat = Annotated[int, doc("The seat that ended the hand.")]
CarAtEnd = Annotated[int, doc("The car's location at the end (1 to 10).")]
CarBonus = Annotated[
    int, doc("The car's position, to the seat that went out; 0 when nobody went out.")
]
ShutOut = Annotated[
    bool,
    doc("True when the seat that ended the hand had both Bonnie and Clyde: the others score 0."),
]
HandScores = Annotated[list[int], doc("Each seat's points this hand, by seat.")]
Totals = Annotated[list[int], doc("Each seat's running total after this hand, by seat.")]


class HandScored(msgspec.Struct, frozen=True, tag="bc.hand_scored", tag_field="type"):
    """End of a hand. ``ended_by_seat`` went out, or drew the Case File's last card."""

    hand_number: HandNumber
    ending: Ending
    ended_by_seat: EndedBySeat
    car: CarAtEnd
    bonus: CarBonus
    shut_out: ShutOut
    hand_scores: HandScores
    totals: Totals


class GameEnded(msgspec.Struct, frozen=True, tag="bc.game_ended", tag_field="type"):
    """A seat alone has the highest total at or above the target: it wins."""

    winner: Annotated[int, doc("The winning seat.")]
    totals: Annotated[list[int], doc("Each seat's final total, by seat.")]


BonnieClydeEvent = (
    GameStarted
    | HandDealt
    | CardDrawn
    | TedHintonPlayed
    | TedHintonFiled
    | CardTakenFromFiles
    | HiddenCardSeen
    | HiddenCardTaken
    | HiddenCardLeft
    | FugitiveCaptured
    | MeldPlayed
    | LaidOff
    | CarMoved
    | CardDiscarded
    | HandScored
    | GameEnded
)

EVENT_TYPES: tuple[type[msgspec.Struct], ...] = (
    GameStarted,
    HandDealt,
    CardDrawn,
    TedHintonPlayed,
    TedHintonFiled,
    CardTakenFromFiles,
    HiddenCardSeen,
    HiddenCardTaken,
    HiddenCardLeft,
    FugitiveCaptured,
    MeldPlayed,
    LaidOff,
    CarMoved,
    CardDiscarded,
    HandScored,
    GameEnded,
)
