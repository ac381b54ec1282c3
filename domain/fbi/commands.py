"""FBI commands: what a seat may ask for."""

from __future__ import annotations

from typing import Annotated

import msgspec

from domain.engine import doc
from domain.fbi.cards import Agent, Colour


class Release(msgspec.Struct, frozen=True, tag="fbi.release", tag_field="type"):
    """Release one card of your slammer (it leaves the game) to bid for the arrest order."""

    card_id: Annotated[int, doc("The id of a card in your slammer.")]


class ReleaseNone(msgspec.Struct, frozen=True, tag="fbi.release_none", tag_field="type"):
    """Release no card this turn (counts as value 0 for the arrest order)."""


class SelectAgents(msgspec.Struct, frozen=True, tag="fbi.select_agents", tag_field="type"):
    """Choose two different field agents for this turn (sealed). The 2x agent doubles the
    other one: it arrests twice in that colour."""

    first: Annotated[Agent, doc("One agent: a colour, or 2x.")]
    second: Annotated[Agent, doc("Another agent, different from the first.")]


class UseAgent(msgspec.Struct, frozen=True, tag="fbi.use_agent", tag_field="type"):
    """Play one of your remaining agents: arrest a character of its colour, or pass if none."""

    colour: Annotated[Colour, doc("The colour of one of the agents you still hold.")]


FbiCommand = Release | ReleaseNone | SelectAgents | UseAgent

COMMAND_TYPES: tuple[type[msgspec.Struct], ...] = (Release, ReleaseNone, SelectAgents, UseAgent)
