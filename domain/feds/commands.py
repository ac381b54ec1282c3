"""Commands of The Feds: what a seat asks for. Tags are stable and prefixed ``feds.``."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.engine import doc
from domain.feds.cards import Agent, Colour, Location


class ChooseAgent(msgspec.Struct, frozen=True, tag="feds.choose_agent", tag_field="type"):
    """Step 1 (sealed): an agent card from your hand and an open location to deploy it to."""

    agent: Annotated[Agent, doc("The agent card from your hand (one of `hand` in your view).")]
    location: Annotated[
        Location, doc("The open (not closed) location whose field the agent will join.")
    ]


class FlipMole(msgspec.Struct, frozen=True, tag="feds.flip_mole", tag_field="type"):
    """Infiltrate (chicago, new-orleans): flip the mole at another location into its field."""

    location: Annotated[
        Location, doc("A location other than the Infiltrate's own that has a mole.")
    ]


class PeekAtMole(msgspec.Struct, frozen=True, tag="feds.peek_at_mole", tag_field="type"):
    """Infiltrate (detroit): look at another player's face-down mole, privately."""

    location: Annotated[Location, doc("The location of the face-down mole to look at.")]


class RedeployAgent(msgspec.Struct, frozen=True, tag="feds.redeploy_agent", tag_field="type"):
    """Redeploy: move one of your field agents to the end of another location's field."""

    agent: Annotated[Agent, doc("One of your face-up field agents (any location).")]
    to_location: Annotated[
        Location, doc("Another location: the agent goes to the end of its field.")
    ]


class SwapSirens(msgspec.Struct, frozen=True, tag="feds.swap_sirens", tag_field="type"):
    """Redeploy with sirens on, instead of moving an agent: swap two siren tokens."""

    first: Annotated[Location, doc("A location holding a siren token.")]
    second: Annotated[Location, doc("Another location holding a siren token.")]


class MoveCriminal(msgspec.Struct, frozen=True, tag="feds.move_criminal", tag_field="type"):
    """Patrol (chicago): move one criminal from the Patrol's location to an adjacent one."""

    colour: Annotated[Colour, doc("The colour of one criminal at the Patrol's location.")]
    to_location: Annotated[
        Location, doc("A location next to the Patrol's (one up or one down the list).")
    ]


class ArrestCriminal(msgspec.Struct, frozen=True, tag="feds.arrest_criminal", tag_field="type"):
    """Patrol (detroit): arrest one criminal of your choice from the Patrol's location."""

    colour: Annotated[Colour, doc("The colour of the criminal, present at the Patrol's location.")]


class DrawCriminal(msgspec.Struct, frozen=True, tag="feds.draw_criminal", tag_field="type"):
    """Patrol (new-orleans): draw one criminal blind from the bag onto the Patrol's location."""


class DeclinePower(msgspec.Struct, frozen=True, tag="feds.decline_power", tag_field="type"):
    """Do not use the power of the special agent just flipped (every power is optional)."""


class ArrestCriminals(msgspec.Struct, frozen=True, tag="feds.arrest_criminals", tag_field="type"):
    """Mini-bust: arrest one criminal of each listed colour (all different) at the siren's
    location: as many as your share, or fewer only when fewer colours remain there."""

    colours: Annotated[
        list[Colour],
        doc(
            "One criminal per colour, all different, each present at the siren's location; "
            "as many as your share (see `siren_arrest.shares` in the view)."
        ),
    ]


class ArrestColour(msgspec.Struct, frozen=True, tag="feds.arrest_colour", tag_field="type"):
    """Bust: arrest all criminals of one colour at the location being busted."""

    colour: Annotated[Colour, doc("A colour with criminals left at the location being busted.")]


POWER_COMMANDS: tuple[type[msgspec.Struct], ...] = (
    FlipMole,
    PeekAtMole,
    RedeployAgent,
    SwapSirens,
    MoveCriminal,
    ArrestCriminal,
    DrawCriminal,
    DeclinePower,
)

COMMAND_TYPES: tuple[type[msgspec.Struct], ...] = (
    ChooseAgent,
    *POWER_COMMANDS,
    ArrestCriminals,
    ArrestColour,
)

FedsCommand = (
    ChooseAgent
    | FlipMole
    | PeekAtMole
    | RedeployAgent
    | SwapSirens
    | MoveCriminal
    | ArrestCriminal
    | DrawCriminal
    | DeclinePower
    | ArrestCriminals
    | ArrestColour
)

#: One line per command, published by the rules endpoint.
COMMAND_DESCRIPTIONS: dict[str, str] = {
    "feds.choose_agent": "Step 1, sealed: one agent card in hand and one open location.",
    "feds.flip_mole": "Infiltrate (chicago, new-orleans): flip the mole at another location.",
    "feds.peek_at_mole": "Infiltrate (detroit): look at another player's mole, privately.",
    "feds.redeploy_agent": "Redeploy: move one of your field agents to another location's field.",
    "feds.swap_sirens": "Redeploy with sirens on: swap two siren tokens instead.",
    "feds.move_criminal": "Patrol (chicago): move one criminal here to an adjacent location.",
    "feds.arrest_criminal": "Patrol (detroit): arrest one criminal of your choice from here.",
    "feds.draw_criminal": "Patrol (new-orleans): draw one criminal blind from the bag onto here.",
    "feds.decline_power": "Do not use the power of the special agent just flipped.",
    "feds.arrest_criminals": "Mini-bust: one criminal of each listed (different) colour.",
    "feds.arrest_colour": "Bust: all criminals of one colour at the location being busted.",
}
