"""The rules data published by ``GET /v1/rules/bonnie_clyde`` (all of it from `cards`)."""

from __future__ import annotations

import msgspec

from domain.bonnie_clyde import cards
from domain.bonnie_clyde.cards import Card
from domain.bonnie_clyde.commands import COMMAND_TYPES
from domain.bonnie_clyde.options import BonnieClydeOptions


class LocationRule(msgspec.Struct, frozen=True):
    location: int
    name: str


class DeckEntry(msgspec.Struct, frozen=True):
    card: Card
    count: int


class HandSizeRule(msgspec.Struct, frozen=True):
    seats: int
    cards: int


class CommandRule(msgspec.Struct, frozen=True):
    type: str
    description: str


class BonnieClydeRules(msgspec.Struct, frozen=True):
    name: str
    title: str
    summary: str
    min_seats: int
    max_seats: int
    locations: list[LocationRule]
    car_start: int
    deck: list[DeckEntry]
    deck_size: int
    hand_sizes: list[HandSizeRule]
    deck_cards_under_locations: int
    meld_minimum: int
    layoff_minimum: int
    ted_hinton_draw: int
    points_per_evidence: int
    points_per_sideways_evidence: int
    points_per_fugitive: int
    target_min: int
    target_max: int
    options: BonnieClydeOptions
    commands: list[CommandRule]


SUMMARY = (
    "Mystery Rummy: draw, meld and lay off Evidence of the ten locations, steer the Crime "
    "Spree car, and capture Bonnie and Clyde hidden under the board. Hands are played until, "
    "after a hand, one player alone has the highest total at or above the target."
)


def _command_rules() -> list[CommandRule]:
    """Each command's tag and docstring, read off the command types so they never drift."""
    out = []
    for command in COMMAND_TYPES:
        tag = command.__struct_config__.tag
        assert isinstance(tag, str)
        out.append(CommandRule(type=tag, description=" ".join((command.__doc__ or "").split())))
    return out


def rules() -> BonnieClydeRules:
    deck = [
        DeckEntry(card=cards.EVIDENCE[loc], count=cards.EVIDENCE_PER_LOCATION)
        for loc in cards.LOCATIONS
    ]
    deck += [
        DeckEntry(card=cards.TED_HINTON, count=cards.TED_HINTON_COUNT),
        DeckEntry(card=cards.BONNIE, count=1),
        DeckEntry(card=cards.CLYDE, count=1),
    ]
    return BonnieClydeRules(
        name=cards.GAME_NAME,
        title=cards.GAME_TITLE,
        summary=SUMMARY,
        min_seats=cards.MIN_SEATS,
        max_seats=cards.MAX_SEATS,
        locations=[LocationRule(loc, cards.location_name(loc)) for loc in cards.LOCATIONS],
        car_start=cards.CAR_START,
        deck=deck,
        deck_size=cards.DECK_SIZE,
        hand_sizes=[HandSizeRule(seats, size) for seats, size in cards.HAND_SIZES.items()],
        deck_cards_under_locations=cards.DECK_CARDS_UNDER_LOCATIONS,
        meld_minimum=cards.MELD_MINIMUM,
        layoff_minimum=cards.LAYOFF_MINIMUM,
        ted_hinton_draw=cards.TED_HINTON_DRAW,
        points_per_evidence=cards.POINTS_PER_EVIDENCE,
        points_per_sideways_evidence=cards.POINTS_PER_SIDEWAYS_EVIDENCE,
        points_per_fugitive=cards.POINTS_PER_FUGITIVE,
        target_min=cards.TARGET_MIN,
        target_max=cards.TARGET_MAX,
        options=BonnieClydeOptions(),
        commands=_command_rules(),
    )
