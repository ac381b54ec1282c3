"""Commands of Bonnie and Clyde: one per decision a player makes on their turn."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.bonnie_clyde.cards import Card
from domain.engine import doc


class DrawFromCaseFile(msgspec.Struct, frozen=True, tag="bc.draw_from_case_file", tag_field="type"):
    """Start the turn by drawing the top card of the Case File."""


class DrawFromFiles(msgspec.Struct, frozen=True, tag="bc.draw_from_files", tag_field="type"):
    """Start the turn by taking the (visible) top card of the FBI Files."""


class TedHintonDrawTwo(msgspec.Struct, frozen=True, tag="bc.ted_hinton_draw_two", tag_field="type"):
    """Play your Ted Hinton of the turn (at most one): draw two cards from the Case File,
    or what is left; drawing its last card ends the hand after this turn."""


class TedHintonSearchFiles(
    msgspec.Struct, frozen=True, tag="bc.ted_hinton_search_files", tag_field="type"
):
    """Play your Ted Hinton of the turn: look through the FBI Files, then take one card
    (bc.take_from_files), unseen by the others."""


class TedHintonLook(msgspec.Struct, frozen=True, tag="bc.ted_hinton_look", tag_field="type"):
    """Play your Ted Hinton of the turn: look at the card under a location, then take it
    or leave it (Bonnie and Clyde must be left). Not with the Ted Hinton as your last
    card: leaving the card would leave your hand empty before the discard."""

    location: Annotated[int, doc("The location to look under (1 to 10).")]


class TakeFromFiles(msgspec.Struct, frozen=True, tag="bc.take_from_files", tag_field="type"):
    """While searching the FBI Files: take one card of this kind (the topmost such card)."""

    card: Annotated[Card, doc("The kind of card to take (the topmost such card is taken).")]


class TakeHiddenCard(msgspec.Struct, frozen=True, tag="bc.take_hidden_card", tag_field="type"):
    """Take the card you are looking at under a location into your hand (not Bonnie or
    Clyde, which are captured only at the car's location)."""


class LeaveHiddenCard(msgspec.Struct, frozen=True, tag="bc.leave_hidden_card", tag_field="type"):
    """Leave the card just looked at where it is."""


class Meld(msgspec.Struct, frozen=True, tag="bc.meld", tag_field="type"):
    """Meld 3 or more Evidence cards of one location in front of you (sideways if the car
    is there); then look at the card under that location, and the car moves up 1."""

    location: Annotated[int, doc("The location whose Evidence you meld (1 to 10).")]
    count: Annotated[int, doc("How many of its Evidence cards from your hand (3 or more).")]


class LayOff(msgspec.Struct, frozen=True, tag="bc.lay_off", tag_field="type"):
    """Lay off 1 or more Evidence cards of a location melded in front of any player (cards
    laid off together are one layoff); then look under that location and move the car."""

    location: Annotated[int, doc("A location already melded by someone (1 to 10).")]
    count: Annotated[int, doc("How many of its Evidence cards from your hand (1 or more).")]


class MoveCar(msgspec.Struct, frozen=True, tag="bc.move_car", tag_field="type"):
    """After a layoff: move the Crime Spree car one location up (towards 10) or down."""

    direction: Annotated[
        Literal["up", "down"], doc("up (towards location 10) or down (towards 1).")
    ]


class Discard(msgspec.Struct, frozen=True, tag="bc.discard", tag_field="type"):
    """Discard one card on the FBI Files; this ends the turn."""

    card: Annotated[Card, doc("A card of your hand.")]


BonnieClydeCommand = (
    DrawFromCaseFile
    | DrawFromFiles
    | TedHintonDrawTwo
    | TedHintonSearchFiles
    | TedHintonLook
    | TakeFromFiles
    | TakeHiddenCard
    | LeaveHiddenCard
    | Meld
    | LayOff
    | MoveCar
    | Discard
)

COMMAND_TYPES: tuple[type[msgspec.Struct], ...] = (
    DrawFromCaseFile,
    DrawFromFiles,
    TedHintonDrawTwo,
    TedHintonSearchFiles,
    TedHintonLook,
    TakeFromFiles,
    TakeHiddenCard,
    LeaveHiddenCard,
    Meld,
    LayOff,
    MoveCar,
    Discard,
)
