"""The rules data FBI publishes through ``GET /v1/rules/fbi``, and the house rules it plays
by, in plain words for clients (docs/house-rules.md lists them: docs/house-rules.md#fbi)."""

from __future__ import annotations

from typing import Annotated, get_args

import msgspec

from domain.engine import CommandRule, HouseRule, command_rules, doc
from domain.fbi.cards import (
    AGENTS,
    AGENTS_SELECTED_PER_TURN,
    BONUS_VALUES,
    CARDS_PLACED_PER_SEAT,
    CHARACTER_COUNT,
    CHARACTER_DECK,
    COLOURS,
    GAME_NAME,
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


#: What the rulebook leaves open, decided once (docs/house-rules.md#fbi); served with the
#: rules.
HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule(
        "character-deck",
        "Character deck",
        f"The printed distribution of the {CHARACTER_COUNT} character cards is unknown; "
        "this server uses its own, listed in character_deck: red, yellow, blue and green "
        "+5 +4 +3 +3 +2 +2 +1 +1 -1 -2 -3 -4 each, black the same without the -4.",
    ),
    HouseRule(
        "two-players",
        "Players",
        "Two players use the normal rules.",
    ),
    HouseRule(
        "purple-cards",
        "Setup",
        "With N players the purple cards are +1 to +N and -1 to -N; each player gets a "
        "random +k and the matching -k, and the handcuffs start with the holder of +N.",
    ),
    HouseRule(
        "release",
        "Release",
        "From the handcuffs holder clockwise, each player releases one card of their "
        "slammer (purple or coloured, villain or innocent) or none; released cards leave "
        "the game. A player with an empty slammer releases none.",
    ),
    HouseRule(
        "arrest-order",
        "Arrest order",
        "The highest released value arrests first, and none counts 0. Ties go to the "
        "player who comes first clockwise from the handcuffs holder (the holder first).",
    ),
    HouseRule(
        "agent-choice",
        "Agent selection",
        "Each player picks exactly two different agents among red, yellow, blue, green, "
        "black and 2x, in a sealed step (commit, then reveal). Every chosen colour must "
        "have at least one character card on the table at that moment; 2x with a colour "
        "means that colour twice.",
    ),
    HouseRule(
        "secret-agents",
        "Agent selection",
        "The two chosen agents are kept in hand, secret: after the last reveal the other "
        "seats and spectators learn only that every seat chose and how many agents each "
        "still holds. An agent becomes public when its owner plays it on an arrest turn; "
        "the replay of a finished game shows everything.",
    ),
    HouseRule(
        "arrests",
        "Arrests",
        "Round one goes in arrest order, round two in reverse order. On each arrest turn "
        "the player chooses which remaining agent to use. If the table holds a card of its "
        "colour the player must take one: the highest value of that colour (stacked "
        "variant: the top card of that colour's pile); if not, the agent passes.",
    ),
    HouseRule(
        "end",
        "End of the game",
        "The game ends after the game turn in which the last deck card was placed; cards "
        "left on the table are ignored.",
    ),
    HouseRule(
        "bonus-cards",
        "Bonus cards",
        "For each colour, the values of that colour in each slammer are summed (purple "
        "cards have no colour). The bonus card goes to the single player with the highest "
        "sum, only if that sum is above 0; a tie at the top gives it to no one.",
    ),
    HouseRule(
        "score-ties",
        "Score",
        "Score: every card in the slammer (villains add, innocents subtract, purple "
        "included) plus bonus cards. Equal scores share the win.",
    ),
)


class BonusCard(msgspec.Struct, frozen=True):
    """The bonus card of one colour."""

    colour: Annotated[Colour, doc("Its colour.")]
    value: Annotated[int, doc("Its points.")]


class FbiRules(msgspec.Struct, frozen=True, tag="fbi", tag_field="game"):
    """FBI's rules data: the numbers its rules use (every game's rules data starts with
    name, title, summary, seats, options and commands)."""

    name: Annotated[str, doc("The game's name in the API: fbi.")]
    title: Annotated[str, doc("The printed title.")]
    summary: Annotated[str, doc("How a game goes, in plain text.")]
    min_seats: Annotated[int, doc("Fewest seats: 2.")]
    max_seats: Annotated[int, doc("Most seats: 5.")]
    options: Annotated[FbiOptions, doc("The creation options, with their defaults.")]
    commands: Annotated[list[CommandRule], doc("Every kind of move, with what it does.")]
    colours: Annotated[list[Colour], doc("The five character colours.")]
    agents: Annotated[list[Agent], doc("The six field agents every seat holds.")]
    agents_selected_per_turn: Annotated[int, doc("Agents each seat selects per turn.")]
    cards_placed_per_seat: Annotated[
        int, doc("Characters placed on the table per seat each turn (fewer when the deck ends).")
    ]
    character_deck: Annotated[list[Card], doc("The character cards, by id.")]
    purple_cards: Annotated[list[Card], doc("The purple slammer cards (+k and -k pairs).")]
    bonus_cards: Annotated[list[BonusCard], doc("The bonus card of each colour.")]
    variants: Annotated[list[Variant], doc("The variants the variant option takes.")]


RULEBOOK = FbiRules(
    name=GAME_NAME,
    title=GAME_TITLE,
    summary=DESCRIPTION,
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
    commands=command_rules(COMMAND_TYPES),
)
