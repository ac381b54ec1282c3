"""Events of Bonnie and Clyde.

Fields that carry hidden cards are ``... | None``: `views.redact` blanks them for every
seat that may not know the card (see the docstring of each event).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.bonnie_clyde.cards import Card

TedHintonAction = Literal["draw_two", "search_files", "look"]
HandEnding = Literal["went_out", "case_file_ran_out"]


class GameStarted(msgspec.Struct, frozen=True, tag="bc.game_started", tag_field="type"):
    seats: int
    target: int


class HandDealt(msgspec.Struct, frozen=True, tag="bc.hand_dealt", tag_field="type"):
    """A fresh shuffle and deal (HOUSE-RULES §3 "Each hand").

    ``hands[s]`` is shown to seat ``s`` only; ``location_cards`` (the cards under
    locations 1..10, in order) and ``case_file`` (bottom to top) are hidden from everyone
    during play. The counts and ``files_top`` are public.
    """

    hand_number: int
    dealer: int
    first_seat: int
    car: int
    files_top: Card
    hand_sizes: list[int]
    case_file_size: int
    hands: list[list[Card] | None]
    location_cards: list[Card] | None = None
    case_file: list[Card] | None = None


class CardDrawn(msgspec.Struct, frozen=True, tag="bc.card_drawn", tag_field="type"):
    """A card drawn into ``seat``'s hand. From the Case File only that seat sees ``card``;
    from the FBI Files it was the visible top card, so everyone does."""

    seat: int
    source: Literal["case_file", "files"]
    card: Card | None = None


class TedHintonPlayed(msgspec.Struct, frozen=True, tag="bc.ted_hinton_played", tag_field="type"):
    """Public: the Ted Hinton leaves the hand and its action begins."""

    seat: int
    action: TedHintonAction
    location: int | None = None


class TedHintonFiled(msgspec.Struct, frozen=True, tag="bc.ted_hinton_filed", tag_field="type"):
    """Public: the Ted Hinton, its action done, goes on top of the FBI Files."""

    seat: int


class CardTakenFromFiles(
    msgspec.Struct, frozen=True, tag="bc.card_taken_from_files", tag_field="type"
):
    """A Ted Hinton search took ``card`` from the FBI Files; only ``seat`` sees which."""

    seat: int
    card: Card | None = None


class HiddenCardSeen(msgspec.Struct, frozen=True, tag="bc.hidden_card_seen", tag_field="type"):
    """``seat`` looked at the card under ``location``; only that seat sees ``card``."""

    seat: int
    location: int
    card: Card | None = None


class HiddenCardTaken(msgspec.Struct, frozen=True, tag="bc.hidden_card_taken", tag_field="type"):
    """The looked-at card went into ``seat``'s hand; others know a card was taken, not which."""

    seat: int
    location: int
    card: Card | None = None


class HiddenCardLeft(msgspec.Struct, frozen=True, tag="bc.hidden_card_left", tag_field="type"):
    seat: int
    location: int


class FugitiveCaptured(msgspec.Struct, frozen=True, tag="bc.fugitive_captured", tag_field="type"):
    """Public: Bonnie or Clyde found at the car's location, played face up before ``seat``."""

    seat: int
    location: int
    card: Card


class MeldPlayed(msgspec.Struct, frozen=True, tag="bc.meld_played", tag_field="type"):
    seat: int
    location: int
    count: int
    sideways: bool


class LaidOff(msgspec.Struct, frozen=True, tag="bc.laid_off", tag_field="type"):
    seat: int
    location: int
    count: int
    sideways: bool


class CarMoved(msgspec.Struct, frozen=True, tag="bc.car_moved", tag_field="type"):
    """The car's move after a meld or layoff; ``to_location == from_location`` when a meld
    at the last location leaves it in place."""

    seat: int
    from_location: int
    to_location: int


class CardDiscarded(msgspec.Struct, frozen=True, tag="bc.card_discarded", tag_field="type"):
    seat: int
    card: Card


class HandScored(msgspec.Struct, frozen=True, tag="bc.hand_scored", tag_field="type"):
    """End of a hand. ``ended_by_seat`` went out, or drew the Case File's last card."""

    hand_number: int
    ending: HandEnding
    ended_by_seat: int
    car: int
    bonus: int
    shut_out: bool
    hand_scores: list[int]
    totals: list[int]


class GameEnded(msgspec.Struct, frozen=True, tag="bc.game_ended", tag_field="type"):
    winner: int
    totals: list[int]


Event = (
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
