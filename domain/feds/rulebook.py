"""The rules data published by ``GET /v1/rules/feds`` (all numbers come from `cards`), and
the house rules the game plays by, in plain words for clients (docs/house-rules.md lists
them: docs/house-rules.md#feds)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.engine import CommandRule, HouseRule, doc, plain_text
from domain.feds.cards import (
    AGENT_CARDS,
    CITY_CARDS,
    CLOSING_FIELD_SIZE,
    CRIMINALS,
    GAME_NAME,
    GAME_TITLE,
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
    """Points for 1, 2, 3, … criminals of a colour (first entry: one criminal). Gray
    criminals have no row: each counts as the colour that scores most for its jail."""

    pink: Annotated[list[int], doc("Points for 1, 2, 3, … pink criminals.")]
    blue: Annotated[list[int], doc("Points for 1, 2, 3, … blue criminals.")]
    lime: Annotated[list[int], doc("Points for 1, 2, 3, … lime criminals.")]
    orange: Annotated[list[int], doc("Points for 1, 2, 3, … orange criminals.")]


# docs/house-rules.md#feds.
class FedsRules(msgspec.Struct, frozen=True, kw_only=True):
    """The Feds' rules data: the numbers its rules use (its house rules decide them)."""

    name: Annotated[str, doc("The game's name in the API: feds.")]
    title: Annotated[str, doc("The printed title.")]
    min_seats: Annotated[int, doc("Fewest seats: 2.")]
    max_seats: Annotated[int, doc("Most seats: 4.")]
    seats_with_officer: Annotated[
        int, doc("With this many seats the imaginary Officer and the police car play too.")
    ]
    rounds: Annotated[int, doc("Rounds before the final bust.")]
    locations: Annotated[
        list[Location], doc('The locations, top to bottom ("down" means towards the last).')
    ]
    closing_field_size: Annotated[
        int, doc("A field with this many agents or more closes its location at step 3.")
    ]
    criminals: Annotated[Criminals, doc("The criminals in the bag at setup, by colour.")]
    agent_cards: Annotated[
        list[AgentCard], doc("The seven agent cards every player (and the Officer) has.")
    ]
    score_table: Annotated[ScoreTable, doc("Points for criminals in a jail, by colour.")]
    utility_tokens: Annotated[
        list[int], doc("The utility tokens' values, in points, where a city card uses them.")
    ]
    siren_tokens: Annotated[
        list[int],
        doc("The siren tokens' numbers: a field reaching one sets off a mini-bust."),
    ]
    siren_shares: Annotated[
        list[int],
        doc("Criminals a mini-bust gives the strongest, the second strongest, … player."),
    ]
    officer_colour_order: Annotated[
        list[Colour], doc("The order in which the Officer takes colours when it arrests.")
    ]
    city_cards: Annotated[
        list[CityCard], doc("The house city cards: what the special agents do in each city.")
    ]
    options: Annotated[FedsOptions, doc("The creation options, with their defaults.")]
    commands: Annotated[list[CommandRule], doc("Every kind of move, with what it does.")]
    summary: Annotated[str, doc("How a game goes, in plain text.")]


SUMMARY = (
    "The Feds (Steve Finn) with the project's house rules (house_rules; the city cards are "
    "house city cards, not the printed ones). 7 rounds. Step 1, sealed: every player chooses "
    "an agent card and an open location. Step 2, from the badge holder clockwise: the card "
    "becomes the location's face-down mole, pushing the previous mole face up to the end of "
    "the field; a special agent pushed into a field activates once (optional). With 2 "
    "players the Officer deploys last, moving the police car down by its card's strength. "
    "Sirens (variant or new-orleans): after step 2, top to bottom, a field reaching its "
    "siren's number has a mini-bust (strength from field cards only, the Officer taking "
    "part like a player), then its siren is removed. "
    "Step 3: a field of 7+ agents closes its location; below 7 it re-opens. Step 4: the "
    "badge passes clockwise. Then each location is busted top to bottom: strongest first "
    "(ties to the card closest to the location), each player takes all criminals of one "
    "colour, cycling until none remain. Score: the score table (grays wild) plus utility "
    "tokens; ties: highest utility token, then most criminals."
)


#: The house rules (docs/house-rules.md#feds), served with the rules. The numbers
#: themselves are in the rules data beside them.
HOUSE_RULES: tuple[HouseRule, ...] = (
    HouseRule(
        "house-data",
        "Rules data",
        "The printed agent values, city cards, score table and token values are unknown. "
        "The location names (top to bottom: Club, Docks, Motel, Warehouse), the agent "
        "cards, the score table, the utility and siren token values and the city cards "
        "published here are the project's own; the city cards are house city cards, not "
        "the printed ones.",
    ),
    HouseRule(
        "gray-criminals",
        "Score",
        "Gray criminals are wild: at scoring, the server counts each gray as the colour "
        "that gives its player the highest score.",
    ),
    HouseRule(
        "bust-powers",
        "Bust",
        "No special agent's power activates during the bust: a mole flipped into its field "
        "there only adds its strength. The Officer's mole flips like any other.",
    ),
    HouseRule(
        "officer",
        "Two players",
        "The Officer never uses a power; its deploy may push a mole into the field even at "
        "a closed location, and that mole's power activates for its owner. At a bust, and "
        "at a mini-bust, the Officer takes colours in the order orange, lime, blue, pink, "
        "gray. The Officer is not scored.",
    ),
    HouseRule(
        "mini-bust-when",
        "Mini-bust",
        "Mini-busts (the sirens option and the new-orleans city card) run after step 2, "
        "after the Officer's deploy with two players. Locations are checked top to bottom: "
        "where a field holds at least its siren's number of agents, a mini-bust, then that "
        "siren is removed.",
    ),
    HouseRule(
        "mini-bust-who",
        "Mini-bust",
        "At every mini-bust the Officer takes part like a player, and strength counts the "
        "field cards only (never the face-down mole); ties are broken as at the bust, by "
        "the card closest to the location.",
    ),
    HouseRule(
        "mini-bust-shares",
        "Mini-bust",
        "Sirens option: the strongest takes exactly 2 criminals of different colours (fewer "
        "if fewer colours remain), then the second strongest 1; the mini-bust stops when "
        "its location runs out of criminals. new-orleans: a single strongest player takes "
        "1 criminal; a tie for the top strength means nobody arrests there, and the siren "
        "is removed either way.",
    ),
    HouseRule(
        "officer-utility-token",
        "Utility tokens",
        "A utility token the Officer wins is removed from the game: it scores for nobody. "
        "Face-down utility tokens (new-orleans) stay hidden from everyone until won at the "
        "bust; a token nobody wins stays hidden.",
    ),
    HouseRule(
        "redeploy-siren-swap",
        "Redeploy",
        "With sirens on (the sirens option, or the new-orleans city card, which brings its "
        "own), an activated Redeploy may instead swap the siren tokens of two locations "
        "that both still hold one.",
    ),
    HouseRule(
        "redeploy-targets",
        "Redeploy",
        "A Redeploy may move any of its user's face-up field agents, itself included, from "
        "any field to the end of another location's field, closed or not.",
    ),
    HouseRule(
        "infiltrate-targets",
        "Infiltrate",
        "A flipping Infiltrate (chicago, new-orleans) may target the mole at any other "
        "location: the user's own, another player's, or the Officer's. A peeking Infiltrate "
        "(detroit) targets another player's face-down mole its user has not seen yet; who "
        "peeked where is public.",
    ),
    HouseRule(
        "power-user",
        "Special agents",
        "Only an Infiltrate's flip on the new-orleans card hands the flipped agent's power "
        "to the flipper; a flip by a deploy or by the Officer activates it for the card's "
        "owner. The power is used as if its user owned the card: a Redeploy moves the "
        "user's field agents, a Patrol acts at the Patrol's location.",
    ),
    HouseRule(
        "activation-stack",
        "Special agents",
        "Activations form a stack: the newest is answered first, and nobody deploys "
        "meanwhile. Every action of a power is optional (decline).",
    ),
    HouseRule(
        "closing",
        "Closing",
        "Closing is decided only at step 3: a field may hold more than 7 agents during "
        "step 2, and a closed location only refuses step 1 choices. An Infiltrate that "
        "re-opens a location during step 2 takes effect at step 3. Step 3 also runs after "
        "round 7 (with no effect).",
    ),
)


RULEBOOK = FedsRules(
    name=GAME_NAME,
    title=GAME_TITLE,
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
    commands=[CommandRule(tag, plain_text(text)) for tag, text in COMMAND_DESCRIPTIONS.items()],
    summary=SUMMARY,
)
