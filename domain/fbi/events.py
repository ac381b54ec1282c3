"""FBI events: what happened, in the past tense.

Everything in FBI is open information except the undealt deck order (``DeckShuffled``,
redacted for everyone during play) and the agents a seat selected (``AgentsSelected``): they
become events only once every seat has revealed, and even then only their owner sees them;
an agent becomes public when its owner plays it (``CharacterArrested``, ``AgentPassed``).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.engine import PerSeat, Seat, SeatList, doc
from domain.fbi.cards import Agent, Card, Colour, Variant


class GameStarted(msgspec.Struct, frozen=True, tag="fbi.game_started", tag_field="type"):
    """An FBI game began."""

    seats: Annotated[int, doc("How many seats play (2 to 5).")]
    variant: Annotated[Variant, doc("base or stacked (see the options).")]


class PurpleCardsDealt(msgspec.Struct, frozen=True, tag="fbi.purple_cards_dealt", tag_field="type"):
    """Each seat's slammer starts with a purple +k card and its matching -k card, face up."""

    slammers: Annotated[
        list[list[Card]], doc("The cards dealt into each seat's slammer, indexed by seat.")
    ]


class DeckShuffled(msgspec.Struct, frozen=True, tag="fbi.deck_shuffled", tag_field="type"):
    """The character deck's order, top first; ``card_ids`` is None for everyone during play."""

    size: Annotated[int, doc("How many character cards the deck holds.")]
    card_ids: Annotated[
        list[int] | None,
        doc("The cards' ids, top first (null for everyone while the game runs)."),
    ] = None


class TurnStarted(msgspec.Struct, frozen=True, tag="fbi.turn_started", tag_field="type"):
    """A game turn began; the handcuffs (start of the release round) are with this seat."""

    turn: Annotated[int, doc("The game turn, from 1.")]
    handcuffs_holder: Annotated[int, doc("The seat holding the handcuffs: it releases first.")]


class CardsPlaced(msgspec.Struct, frozen=True, tag="fbi.cards_placed", tag_field="type"):
    """The top cards of the deck were placed face up, in this order (later ones on top)."""

    turn: Annotated[int, doc("The game turn, from 1.")]
    cards: Annotated[list[Card], doc("The placed cards, in placement order.")]


class CardReleased(msgspec.Struct, frozen=True, tag="fbi.card_released", tag_field="type"):
    """A seat released this card from its slammer; it is out of the game."""

    seat: Seat
    card: Annotated[Card, doc("The released card; its value is the seat's bid.")]


# docs/house-rules.md#fbi-release.
class NothingReleased(msgspec.Struct, frozen=True, tag="fbi.nothing_released", tag_field="type"):
    """A seat released no card; ``automatic`` when its slammer was empty (house rule
    `release`, in GET /v1/rules/fbi)."""

    seat: Seat
    automatic: Annotated[
        bool, doc("True when the slammer was empty, so the seat had nothing to release.")
    ] = False


class ArrestOrderDetermined(
    msgspec.Struct, frozen=True, tag="fbi.arrest_order_determined", tag_field="type"
):
    """Seats in arrest order (slammer card 1 first) and each seat's released value."""

    order: Annotated[
        list[int],
        doc(
            "Seats from first to last arrester: highest released value first, ties to the "
            "seat nearest the handcuffs holder in seat order (the holder itself first)."
        ),
    ]
    released_values: Annotated[
        PerSeat, doc("The value each seat released this turn (0 for nothing), by seat.")
    ]


# docs/house-rules.md#fbi-secret-agents.
class AgentsSelected(msgspec.Struct, frozen=True, tag="fbi.agents_selected", tag_field="type"):
    """A seat selected its two field agents (after every sealed choice was revealed).

    The agents are kept in hand (house rule `secret-agents`, in GET /v1/rules/fbi):
    ``first`` and ``second`` are None for every other seat and for spectators, who learn
    only that the seat chose; the stored event and the finished game's replay hold both."""

    seat: Seat
    first: Annotated[
        Agent | None, doc("Its first agent (the owner only, and the replay; else null).")
    ] = None
    second: Annotated[
        Agent | None, doc("Its second agent (the owner only, and the replay; else null).")
    ] = None


class CharacterArrested(
    msgspec.Struct, frozen=True, tag="fbi.character_arrested", tag_field="type"
):
    """A seat played an agent and arrested a character of its colour into its slammer."""

    seat: Seat
    agent: Annotated[Colour, doc("The agent played (a 2x counts as its doubled colour).")]
    card: Annotated[Card, doc("The arrested character, now in the seat's slammer.")]


class AgentPassed(msgspec.Struct, frozen=True, tag="fbi.agent_passed", tag_field="type"):
    """The agent's colour had no character left on the table: no arrest."""

    seat: Seat
    agent: Annotated[Colour, doc("The agent played.")]


class BonusAward(msgspec.Struct, frozen=True):
    """The bonus card of one colour at the end of the game."""

    colour: Annotated[Colour, doc("The bonus card's colour.")]
    value: Annotated[int, doc("Its points (red 5, yellow 4, blue 3, green 2, black 1).")]
    seat: Annotated[
        int | None,
        doc("Who earned it (the single highest sum of that colour above 0), null for nobody."),
    ]


class GameEnded(msgspec.Struct, frozen=True, tag="fbi.game_ended", tag_field="type"):
    """The deck ran out: the game is scored."""

    bonuses: Annotated[list[BonusAward], doc("The five bonus cards and who earned each.")]
    scores: Annotated[
        PerSeat, doc("Each seat's final score (slammer cards plus bonus cards), by seat.")
    ]
    winners: SeatList


FbiEvent = (
    GameStarted
    | PurpleCardsDealt
    | DeckShuffled
    | TurnStarted
    | CardsPlaced
    | CardReleased
    | NothingReleased
    | ArrestOrderDetermined
    | AgentsSelected
    | CharacterArrested
    | AgentPassed
    | GameEnded
)

EVENT_TYPES: tuple[type[msgspec.Struct], ...] = (
    GameStarted,
    PurpleCardsDealt,
    DeckShuffled,
    TurnStarted,
    CardsPlaced,
    CardReleased,
    NothingReleased,
    ArrestOrderDetermined,
    AgentsSelected,
    CharacterArrested,
    AgentPassed,
    GameEnded,
)
