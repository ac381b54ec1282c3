"""The rules data published by ``GET /v1/rules/feds`` (all numbers come from `cards`)."""

from __future__ import annotations

import msgspec

from domain.feds.cards import (
    AGENT_CARDS,
    CITY_CARDS,
    CLOSING_FIELD_SIZE,
    CRIMINALS,
    LOCATIONS,
    MAX_SEATS,
    MIN_SEATS,
    OFFICER_COLOUR_ORDER,
    ROUNDS,
    SCORE_TABLE,
    SEATS_WITH_OFFICER,
    SIREN_SHARES,
    SIREN_TOKENS,
    UTILITY_TOKENS,
    AgentCard,
    CityCard,
    Colour,
    Criminals,
    Location,
)
from domain.feds.commands import COMMAND_DESCRIPTIONS
from domain.feds.options import FedsOptions


class ScoreTable(msgspec.Struct, frozen=True):
    """Points for 1, 2, 3, … criminals of a colour (first entry: one criminal)."""

    pink: list[int]
    blue: list[int]
    lime: list[int]
    orange: list[int]


class CommandInfo(msgspec.Struct, frozen=True):
    type: str
    description: str


class FedsRules(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    title: str
    min_seats: int
    max_seats: int
    seats_with_officer: int
    rounds: int
    locations: list[Location]
    closing_field_size: int
    criminals: Criminals
    agent_cards: list[AgentCard]
    score_table: ScoreTable
    utility_tokens: list[int]
    siren_tokens: list[int]
    siren_shares: list[int]
    officer_colour_order: list[Colour]
    city_cards: list[CityCard]
    options: FedsOptions
    commands: list[CommandInfo]
    summary: str


SUMMARY = (
    "The Feds (Steve Finn) with the project's house rules (HOUSE-RULES §2; the city cards are "
    "house city cards, not the printed ones). 7 rounds. Step 1, sealed: every player chooses "
    "an agent card and an open location. Step 2, from the badge holder clockwise: the card "
    "becomes the location's face-down mole, pushing the previous mole face up to the end of "
    "the field; a special agent pushed into a field activates once (optional). With 2 "
    "players the Officer deploys last, moving the police car down by its card's strength. "
    "Sirens (variant or new-orleans): a field reaching its siren's number has a mini-bust. "
    "Step 3: a field of 7+ agents closes its location; below 7 it re-opens. Step 4: the "
    "badge passes clockwise. Then each location is busted top to bottom: strongest first "
    "(ties to the card closest to the location), each player takes all criminals of one "
    "colour, cycling until none remain. Score: the score table (grays wild) plus utility "
    "tokens; ties: highest utility token, then most criminals."
)


def rulesheet(name: str, title: str) -> FedsRules:
    return FedsRules(
        name=name,
        title=title,
        min_seats=MIN_SEATS,
        max_seats=MAX_SEATS,
        seats_with_officer=SEATS_WITH_OFFICER,
        rounds=ROUNDS,
        locations=list(LOCATIONS),
        closing_field_size=CLOSING_FIELD_SIZE,
        criminals=CRIMINALS,
        agent_cards=list(AGENT_CARDS),
        score_table=ScoreTable(
            pink=list(SCORE_TABLE["pink"]),
            blue=list(SCORE_TABLE["blue"]),
            lime=list(SCORE_TABLE["lime"]),
            orange=list(SCORE_TABLE["orange"]),
        ),
        utility_tokens=list(UTILITY_TOKENS),
        siren_tokens=list(SIREN_TOKENS),
        siren_shares=list(SIREN_SHARES),
        officer_colour_order=list(OFFICER_COLOUR_ORDER),
        city_cards=list(CITY_CARDS.values()),
        options=FedsOptions(),
        commands=[CommandInfo(tag, text) for tag, text in COMMAND_DESCRIPTIONS.items()],
        summary=SUMMARY,
    )
