"""Rules data of The Feds: every number of its rules and house rules
(docs/house-rules.md#feds) lives here, and nowhere else.

The printed agent values, city cards, score table and token values of The Feds are unknown;
the house rules decide them (docs/house-rules.md#feds-house-data). The city cards below are
the project's *house city cards*, not the printed ones.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.engine import doc

# ---- the board ---------------------------------------------------------------------------

Location = Literal["club", "docks", "motel", "warehouse"]
#: Top to bottom (alphabetical, as the rulebook asks). "Down" means towards the Warehouse.
LOCATIONS: tuple[Location, ...] = ("club", "docks", "motel", "warehouse")
LOCATION_INDEX: dict[Location, int] = {name: i for i, name in enumerate(LOCATIONS)}

ROUNDS = 7
#: A field with this many agents or more closes its location at step 3 (below it, re-opens).
CLOSING_FIELD_SIZE = 7
GAME_NAME = "feds"
GAME_TITLE = "The Feds"
MIN_SEATS = 2
MAX_SEATS = 4
#: With this many seats the imaginary Officer and the police car join the game.
SEATS_WITH_OFFICER = 2

# ---- criminals ---------------------------------------------------------------------------

Colour = Literal["pink", "blue", "lime", "orange", "gray"]
COLOURS: tuple[Colour, ...] = ("pink", "blue", "lime", "orange", "gray")
#: Gray criminals are wild at scoring: each one counts as one of these colours.
SCORED_COLOURS: tuple[Colour, ...] = ("pink", "blue", "lime", "orange")


class Criminals(msgspec.Struct, frozen=True, kw_only=True):
    """A count of criminals by colour: on a location, in a jail or in the bag."""

    pink: Annotated[int, doc("Pink criminals.")] = 0
    blue: Annotated[int, doc("Blue criminals.")] = 0
    lime: Annotated[int, doc("Lime criminals.")] = 0
    orange: Annotated[int, doc("Orange criminals.")] = 0
    gray: Annotated[int, doc("Gray criminals (wild at scoring).")] = 0

    def of(self, colour: Colour) -> int:
        count: int = getattr(self, colour)
        return count

    def total(self) -> int:
        return self.pink + self.blue + self.lime + self.orange + self.gray

    def present(self) -> list[Colour]:
        """The colours with at least one criminal, in the order of `COLOURS`."""
        return [c for c in COLOURS if getattr(self, c) > 0]

    def add(self, colour: Colour, count: int = 1) -> Criminals:
        return msgspec.structs.replace(self, **{colour: self.of(colour) + count})

    def plus(self, other: Criminals) -> Criminals:
        return Criminals(
            pink=self.pink + other.pink,
            blue=self.blue + other.blue,
            lime=self.lime + other.lime,
            orange=self.orange + other.orange,
            gray=self.gray + other.gray,
        )

    def minus(self, other: Criminals) -> Criminals:
        return Criminals(
            pink=self.pink - other.pink,
            blue=self.blue - other.blue,
            lime=self.lime - other.lime,
            orange=self.orange - other.orange,
            gray=self.gray - other.gray,
        )


def criminals_of(colours: list[Colour]) -> Criminals:
    """The count of a list of criminals (one entry per criminal)."""
    out = Criminals()
    for colour in colours:
        out = out.add(colour)
    return out


#: The bag at setup: 32 criminals.
CRIMINALS = Criminals(pink=9, blue=8, lime=7, orange=6, gray=2)
#: Criminals drawn onto each location at setup, unless the city card says otherwise.
CRIMINALS_PER_LOCATION = 8

#: Points for 1, 2, 3, … criminals of a colour (index 0 is one criminal), decided.
#: Fits the rulebook's example: 4 pink 6, 1 lime 3, 2 orange + 1 gray 14.
SCORE_TABLE: dict[Colour, tuple[int, ...]] = {
    "pink": (1, 2, 4, 6, 9, 12, 16, 20, 25, 30, 36),
    "blue": (2, 4, 6, 9, 12, 16, 20, 25, 30, 36, 43),
    "lime": (3, 6, 9, 13, 17, 22, 28, 34, 41, 48, 56),
    "orange": (4, 9, 14, 20, 27, 35, 44, 54, 65, 77, 90),
}

#: The Officer (2 players) arrests at a bust in this colour order, gray last.
OFFICER_COLOUR_ORDER: tuple[Colour, ...] = ("orange", "lime", "blue", "pink", "gray")

# ---- agents ------------------------------------------------------------------------------

Agent = Literal["infiltrate", "redeploy", "patrol", "plain-3", "plain-4", "plain-5", "plain-6"]
Power = Literal["infiltrate", "redeploy", "patrol"]


class AgentCard(msgspec.Struct, frozen=True):
    """One of the seven agent cards every player (and the Officer) has."""

    agent: Annotated[Agent, doc("The card's name: a special agent or plain-N.")]
    strength: Annotated[int, doc("Its strength in a field at the bust.")]
    power: Annotated[
        Power | None, doc("Its power when flipped into a field (the city card says what).")
    ]


#: Each player's seven agent cards, decided. The Officer's deck is the same seven cards of an
#: unused colour; its powers are ignored.
AGENT_CARDS: tuple[AgentCard, ...] = (
    AgentCard("infiltrate", 1, "infiltrate"),
    AgentCard("redeploy", 1, "redeploy"),
    AgentCard("patrol", 2, "patrol"),
    AgentCard("plain-3", 3, None),
    AgentCard("plain-4", 4, None),
    AgentCard("plain-5", 5, None),
    AgentCard("plain-6", 6, None),
)
AGENTS: tuple[Agent, ...] = tuple(card.agent for card in AGENT_CARDS)
STRENGTH: dict[Agent, int] = {card.agent: card.strength for card in AGENT_CARDS}
POWER: dict[Agent, Power | None] = {card.agent: card.power for card in AGENT_CARDS}

# ---- tokens ------------------------------------------------------------------------------

#: Utility token values (one per location where the city card uses them), decided.
UTILITY_TOKENS: tuple[int, ...] = (1, 2, 3, 4)
#: Siren token values (one random token per location when sirens are on), decided.
SIREN_TOKENS: tuple[int, ...] = (3, 4, 5, 6)
#: Criminals a mini-bust gives the strongest, second strongest… player (variant rule); the
#: strongest's criminals must be of different colours.
SIREN_SHARES: tuple[int, ...] = (2, 1)

# ---- house city cards --------------------------------------------------------------------

City = Literal["chicago", "detroit", "new-orleans"]


# docs/house-rules.md#feds-house-data.
class CityCard(msgspec.Struct, frozen=True, kw_only=True):
    """A house city card (house rules, in GET /v1/rules/feds): what the three special
    agents do, and the tokens."""

    city: Annotated[City, doc("The card's name, as the `city` option takes it.")]
    criminals_per_location: Annotated[int, doc("Criminals drawn onto each location at setup.")]
    utility_tokens: Annotated[
        Literal["none", "face-up", "two-face-down"],
        doc(
            "none; face-up: one random face-up token per location; two-face-down: one per "
            "location, two of them face down (values hidden from everyone until won)."
        ),
    ]
    sirens: Annotated[bool, doc("Sirens always on with this card.")]
    infiltrate: Annotated[
        Literal["flip", "peek"],
        doc("flip: flip the mole at another location into its field; peek: look at any mole."),
    ]
    infiltrated_power_user: Annotated[
        Literal["owner", "flipper"],
        doc(
            "Who uses the power of a special agent flipped by an Infiltrate: its owner, or "
            "the player who flipped it."
        ),
    ]
    patrol: Annotated[
        Literal["move", "arrest", "draw"],
        doc(
            "move: one criminal here to an adjacent location; arrest: one criminal of your "
            "choice from here into your jail; draw: one criminal blind from the bag onto "
            "this location."
        ),
    ]
    siren_arrest: Annotated[
        Literal["shares", "single-strongest"],
        doc(
            "shares: the variant's mini-bust (`siren_shares` criminals, the first of "
            "different colours, ties broken as at the bust); single-strongest: only a single "
            "strongest player, with no tie, takes one."
        ),
    ]
    description: Annotated[str, doc("The card in plain words.")]


CITY_CARDS: dict[City, CityCard] = {
    "chicago": CityCard(
        city="chicago",
        criminals_per_location=CRIMINALS_PER_LOCATION,
        utility_tokens="face-up",
        sirens=False,
        infiltrate="flip",
        infiltrated_power_user="owner",
        patrol="move",
        siren_arrest="shares",
        description=(
            "House city card. Infiltrate: flip the mole at another location into its field "
            "(its power activates for its owner). Redeploy: move one of your face-up field "
            "agents to the end of another location's field. Patrol: move one criminal from "
            "this location to an adjacent location. One random face-up utility token per "
            "location, won by the strongest player at the bust."
        ),
    ),
    "detroit": CityCard(
        city="detroit",
        criminals_per_location=CRIMINALS_PER_LOCATION,
        utility_tokens="none",
        sirens=False,
        infiltrate="peek",
        infiltrated_power_user="owner",
        patrol="arrest",
        siren_arrest="shares",
        description=(
            "House city card. Infiltrate: look at another player's mole at any location "
            "(private to you). Redeploy: as Chicago. Patrol: arrest one criminal of your "
            "choice from this location. No utility tokens."
        ),
    ),
    "new-orleans": CityCard(
        city="new-orleans",
        criminals_per_location=6,
        utility_tokens="two-face-down",
        sirens=True,
        infiltrate="flip",
        infiltrated_power_user="flipper",
        patrol="draw",
        siren_arrest="single-strongest",
        description=(
            "House city card. 6 criminals per location, the rest stay in the bag. Utility "
            "tokens: one per location, two face up and two face down, won by the strongest "
            "player at the bust. Sirens on: a mini-bust gives the single strongest player (no "
            "tie) one criminal of their choice. Infiltrate: as Chicago, but the player who "
            "flips a special agent uses its power. Redeploy: as Chicago (or swap two siren "
            "tokens). Patrol: draw one criminal blind from the bag onto this location."
        ),
    ),
}
