"""The rules data FBI publishes through ``GET /v1/rules/fbi``."""

from __future__ import annotations

import inspect
from typing import get_args

import msgspec

from domain.fbi.cards import (
    AGENTS,
    AGENTS_SELECTED_PER_TURN,
    BONUS_VALUES,
    CARDS_PLACED_PER_SEAT,
    CHARACTER_DECK,
    COLOURS,
    GAME_TITLE,
    MAX_SEATS,
    MIN_SEATS,
    PURPLE_CARDS,
    Agent,
    Card,
    Colour,
    Variant,
)
from domain.fbi.commands import COMMAND_TYPES
from domain.fbi.options import FbiOptions

DESCRIPTION = (
    "Each turn the handcuffs pass clockwise and 2 characters per player are placed face up. "
    "From the handcuffs holder clockwise, each player may release one slammer card (or none): "
    "the highest released value arrests first, ties to the first seat from the holder. "
    "Then everyone secretly selects two field agents (2x doubles the other) and keeps them "
    "in hand: the agents are secret until played, the others learn only that a seat chose "
    "and how many agents it still holds. Arrests run in order, then in reverse order, each "
    "player openly playing one of its agents, which takes the highest character of its "
    "colour (stacked variant: the top of the colour's pile) — compulsory if that colour is "
    "on the table. After the turn that places the last deck card, each colour's bonus goes to the "
    "single highest positive colour sum; score = slammer cards + bonuses."
)


class BonusCard(msgspec.Struct, frozen=True):
    colour: Colour
    value: int


class CommandRule(msgspec.Struct, frozen=True):
    type: str
    description: str


class FbiRules(msgspec.Struct, frozen=True, tag="fbi", tag_field="game"):
    title: str
    description: str
    min_seats: int
    max_seats: int
    colours: list[Colour]
    agents: list[Agent]
    agents_selected_per_turn: int
    cards_placed_per_seat: int
    character_deck: list[Card]
    purple_cards: list[Card]
    bonus_cards: list[BonusCard]
    variants: list[Variant]
    options: FbiOptions
    commands: list[CommandRule]


def _command_rules() -> list[CommandRule]:
    rules: list[CommandRule] = []
    for command_type in COMMAND_TYPES:
        tag = command_type.__struct_config__.tag
        rules.append(CommandRule(type=str(tag), description=inspect.getdoc(command_type) or ""))
    return rules


RULES = FbiRules(
    title=GAME_TITLE,
    description=DESCRIPTION,
    min_seats=MIN_SEATS,
    max_seats=MAX_SEATS,
    colours=list(COLOURS),
    agents=list(AGENTS),
    agents_selected_per_turn=AGENTS_SELECTED_PER_TURN,
    cards_placed_per_seat=CARDS_PLACED_PER_SEAT,
    character_deck=list(CHARACTER_DECK),
    purple_cards=list(PURPLE_CARDS),
    bonus_cards=[BonusCard(colour=c, value=v) for c, v in BONUS_VALUES.items()],
    variants=list(get_args(Variant)),
    options=FbiOptions(),
    commands=_command_rules(),
)
