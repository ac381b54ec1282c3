"""FBI rules data: every number of its rules and house rules (docs/house-rules.md#fbi) lives
here, named.

The printed character distribution is unknown; the house rules decide it
(``CHARACTER_VALUES``, docs/house-rules.md#fbi-character-deck).
Card ids are stable: character cards 0..58 in the order listed below, purple cards after them.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

from domain.engine import doc

GAME_NAME: Final = "fbi"
GAME_TITLE: Final = "FBI"
MIN_SEATS: Final = 2
MAX_SEATS: Final = 5

Colour = Literal["red", "yellow", "blue", "green", "black"]
CardColour = Literal["red", "yellow", "blue", "green", "black", "purple"]
Agent = Literal["red", "yellow", "blue", "green", "black", "2x"]
Variant = Literal["base", "stacked"]

COLOURS: Final[tuple[Colour, ...]] = ("red", "yellow", "blue", "green", "black")

# The six field agents every player holds; "2x" doubles the other selected agent.
DOUBLE_AGENT: Final = "2x"
AGENTS: Final[tuple[Agent, ...]] = (*COLOURS, "2x")
AGENTS_SELECTED_PER_TURN: Final = 2

# The bonus card of each colour and its value (who wins it: docs/house-rules.md#fbi-bonus-cards).
BONUS_VALUES: Final[dict[Colour, int]] = {
    "red": 5,
    "yellow": 4,
    "blue": 3,
    "green": 2,
    "black": 1,
}

# Decided: the 59 character cards, per colour (docs/house-rules.md#fbi-character-deck).
_FULL_COLOUR: Final = (5, 4, 3, 3, 2, 2, 1, 1, -1, -2, -3, -4)
CHARACTER_VALUES: Final[dict[Colour, tuple[int, ...]]] = {
    "red": _FULL_COLOUR,
    "yellow": _FULL_COLOUR,
    "blue": _FULL_COLOUR,
    "green": _FULL_COLOUR,
    "black": (5, 4, 3, 3, 2, 2, 1, 1, -1, -2, -3),
}

# Each turn places this many cards per seat (min(2N, cards left)).
CARDS_PLACED_PER_SEAT: Final = 2


class Card(msgspec.Struct, frozen=True):
    """One physical card: villains have positive values, innocent bystanders negative."""

    id: Annotated[int, doc("Stable card id: characters 0 to 58, the purple cards after them.")]
    colour: Annotated[CardColour, doc("The card's colour (purple: the slammer cards).")]
    value: Annotated[
        int,
        doc(
            "Points when in a slammer at the end: characters -4 to +5; purple cards +k and "
            "-k, k from 1 to the number of seats."
        ),
    ]


def _character_deck() -> tuple[Card, ...]:
    cards: list[Card] = []
    for colour in COLOURS:
        for value in CHARACTER_VALUES[colour]:
            cards.append(Card(id=len(cards), colour=colour, value=value))
    return tuple(cards)


CHARACTER_DECK: Final[tuple[Card, ...]] = _character_deck()
CHARACTER_COUNT: Final = len(CHARACTER_DECK)


def _purple_cards() -> tuple[Card, ...]:
    # +k and -k for k = 1..MAX_SEATS; a game uses +1..+N and -1..-N.
    cards: list[Card] = []
    for k in range(1, MAX_SEATS + 1):
        for value in (k, -k):
            cards.append(Card(id=CHARACTER_COUNT + len(cards), colour="purple", value=value))
    return tuple(cards)


PURPLE_CARDS: Final[tuple[Card, ...]] = _purple_cards()

ALL_CARDS: Final[tuple[Card, ...]] = CHARACTER_DECK + PURPLE_CARDS


def card(card_id: int) -> Card:
    """The card with this id (ids index ``ALL_CARDS``)."""
    return ALL_CARDS[card_id]


def purple_pair(k: int) -> tuple[Card, Card]:
    """The purple +k card and its matching -k card."""
    plus = next(c for c in PURPLE_CARDS if c.value == k)
    minus = next(c for c in PURPLE_CARDS if c.value == -k)
    return plus, minus
