"""FBI events: what happened, in the past tense.

Everything in FBI is open information except the undealt deck order (``DeckShuffled``,
redacted for everyone during play) and the agents a seat selected (``AgentsSelected``): they
become events only once every seat has revealed, and even then only their owner sees them;
an agent becomes public when its owner plays it (``CharacterArrested``, ``AgentPassed``).
"""

from __future__ import annotations

import msgspec

from domain.fbi.cards import Agent, Card, Colour, Variant


class GameStarted(msgspec.Struct, frozen=True, tag="fbi.game_started", tag_field="type"):
    seats: int
    variant: Variant


class PurpleCardsDealt(msgspec.Struct, frozen=True, tag="fbi.purple_cards_dealt", tag_field="type"):
    """``slammers[seat]`` holds that seat's purple +k and matching -k, face up."""

    slammers: list[list[Card]]


class DeckShuffled(msgspec.Struct, frozen=True, tag="fbi.deck_shuffled", tag_field="type"):
    """The character deck's order, top first; ``card_ids`` is None for everyone during play."""

    size: int
    card_ids: list[int] | None = None


class TurnStarted(msgspec.Struct, frozen=True, tag="fbi.turn_started", tag_field="type"):
    """A game turn began; the handcuffs (start of the release round) are with this seat."""

    turn: int
    handcuffs_holder: int


class CardsPlaced(msgspec.Struct, frozen=True, tag="fbi.cards_placed", tag_field="type"):
    """The top cards of the deck were placed face up, in this order (later ones on top)."""

    turn: int
    cards: list[Card]


class CardReleased(msgspec.Struct, frozen=True, tag="fbi.card_released", tag_field="type"):
    """A seat released this card from its slammer; it is out of the game."""

    seat: int
    card: Card


class NothingReleased(msgspec.Struct, frozen=True, tag="fbi.nothing_released", tag_field="type"):
    """A seat released no card; ``automatic`` when its slammer was empty (HOUSE-RULES §1.3)."""

    seat: int
    automatic: bool = False


class ArrestOrderDetermined(
    msgspec.Struct, frozen=True, tag="fbi.arrest_order_determined", tag_field="type"
):
    """Seats in arrest order (slammer card 1 first) and each seat's released value."""

    order: list[int]
    released_values: list[int]


class AgentsSelected(msgspec.Struct, frozen=True, tag="fbi.agents_selected", tag_field="type"):
    """A seat selected its two field agents (after every sealed choice was revealed).

    The agents are kept in hand (HOUSE-RULES §1.6): ``first`` and ``second`` are None for
    every other seat and for spectators, who learn only that the seat chose; the stored
    event and the finished game's replay hold both."""

    seat: int
    first: Agent | None = None
    second: Agent | None = None


class CharacterArrested(
    msgspec.Struct, frozen=True, tag="fbi.character_arrested", tag_field="type"
):
    seat: int
    agent: Colour
    card: Card


class AgentPassed(msgspec.Struct, frozen=True, tag="fbi.agent_passed", tag_field="type"):
    """The agent's colour had no character left on the table: no arrest."""

    seat: int
    agent: Colour


class BonusAward(msgspec.Struct, frozen=True):
    """The bonus card of ``colour``; ``seat`` is None when nobody earned it."""

    colour: Colour
    value: int
    seat: int | None


class GameEnded(msgspec.Struct, frozen=True, tag="fbi.game_ended", tag_field="type"):
    bonuses: list[BonusAward]
    scores: list[int]
    winners: list[int]


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
