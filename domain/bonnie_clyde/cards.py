"""Rules data of Bonnie and Clyde: the board, the deck, hand sizes, points.

Every number of its rules and house rules (docs/house-rules.md#bonnie_clyde) lives here as a
named constant; the rest of the package imports them and ``GET /v1/rules/bonnie_clyde``
publishes them.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.engine import doc

GAME_NAME = "bonnie_clyde"
GAME_TITLE = "Bonnie and Clyde"

MIN_SEATS = 2
MAX_SEATS = 4

# Board locations 1..10 (the Crime Spree car moves "up" towards 10). The rulebook fixes
# 1, 2, 9 and 10 and names Joplin; the rest are in historical order, decided
# (docs/house-rules.md#bonnie_clyde-board).
LOCATION_NAMES: tuple[str, ...] = (
    "Kaufman TX",
    "Sherman TX",
    "Joplin MO",
    "Wellington TX",
    "Platte City MO",
    "Dexfield Park IA",
    "Sowers TX",
    "Eastham TX",
    "Grapevine TX",
    "Gibson LA",
)
FIRST_LOCATION = 1
LAST_LOCATION = len(LOCATION_NAMES)
LOCATIONS: tuple[int, ...] = tuple(range(FIRST_LOCATION, LAST_LOCATION + 1))
CAR_START = FIRST_LOCATION

# The deck: 6 Evidence per location (60), 15 Ted Hinton, Bonnie, Clyde = 77 cards.
EVIDENCE_PER_LOCATION = 6
TED_HINTON_COUNT = 15
DECK_SIZE = EVIDENCE_PER_LOCATION * len(LOCATION_NAMES) + TED_HINTON_COUNT + 2

# Each hand, this many random deck cards join Bonnie and Clyde under the ten locations.
DECK_CARDS_UNDER_LOCATIONS = LAST_LOCATION - 2

HAND_SIZES: dict[int, int] = {2: 10, 3: 9, 4: 8}

MELD_MINIMUM = 3
LAYOFF_MINIMUM = 1
TED_HINTON_DRAW = 2

POINTS_PER_EVIDENCE = 2
POINTS_PER_SIDEWAYS_EVIDENCE = 4
POINTS_PER_FUGITIVE = 10

TARGET_DEFAULT = 100
TARGET_MIN = 10
TARGET_MAX = 500

CardKind = Literal["evidence", "ted_hinton", "bonnie", "clyde"]


class Card(msgspec.Struct, frozen=True, order=True):
    """One card. ``location`` (1..10) is set for Evidence only; cards of a kind are alike."""

    kind: Annotated[CardKind, doc("evidence (of one location), ted_hinton, bonnie or clyde.")]
    location: Annotated[
        int | None, doc("For evidence: the location it is evidence of (1 to 10); null otherwise.")
    ] = None


def card_order(card: Card) -> tuple[str, int]:
    """A total order on cards. (Struct ordering would compare ``None < None`` for two equal
    non-evidence cards that are distinct objects, as cards decoded from storage are.)"""
    return (card.kind, card.location or 0)


TED_HINTON = Card("ted_hinton")
BONNIE = Card("bonnie")
CLYDE = Card("clyde")
FUGITIVES: tuple[Card, Card] = (BONNIE, CLYDE)
EVIDENCE: dict[int, Card] = {loc: Card("evidence", loc) for loc in LOCATIONS}


def location_name(location: int) -> str:
    return LOCATION_NAMES[location - FIRST_LOCATION]


def deck_without_fugitives() -> list[Card]:
    """The 75 cards shuffled into the deck each hand (Bonnie and Clyde go under locations)."""
    cards = [EVIDENCE[loc] for loc in LOCATIONS for _ in range(EVIDENCE_PER_LOCATION)]
    cards += [TED_HINTON] * TED_HINTON_COUNT
    return cards


def full_deck() -> list[Card]:
    return [*deck_without_fugitives(), BONNIE, CLYDE]
