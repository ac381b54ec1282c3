"""The folded state of a game of The Feds (snapshotted with msgpack; never mutated).

Locations are indices into `cards.LOCATIONS` here; commands, events and views name them.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.feds.cards import Agent, City, Criminals

Phase = Literal["choose", "deploy", "bust", "over"]


class Mole(msgspec.Struct, frozen=True):
    """The card in a location's hideout. ``owner`` None is the Officer (always face up)."""

    owner: int | None
    agent: Agent
    face_up: bool = False
    #: Seats that looked at this mole with a Detroit Infiltrate (they know ``agent``).
    seen_by: list[int] = []


class FieldAgent(msgspec.Struct, frozen=True):
    """A face-up card in a field; ``owner`` None is the Officer."""

    owner: int | None
    agent: Agent


class UtilityToken(msgspec.Struct, frozen=True):
    value: int
    face_up: bool


class Spot(msgspec.Struct, frozen=True, kw_only=True):
    """One location: its criminals, hideout, field (index 0 lies closest to the location;
    the last card is the rookie), stop sign, siren token and utility token."""

    criminals: Criminals
    mole: Mole | None = None
    field: list[FieldAgent] = []
    closed: bool = False
    siren: int | None = None
    utility_token: UtilityToken | None = None


class Choice(msgspec.Struct, frozen=True):
    """A step-1 choice waiting on its player's office until the step-2 deploy."""

    agent: Agent
    location: int


class Activation(msgspec.Struct, frozen=True):
    """A special agent just flipped into a field whose power ``seat`` may now use."""

    seat: int
    owner: int
    agent: Agent
    location: int


class SirenTaker(msgspec.Struct, frozen=True):
    """A player still to arrest at a mini-bust; ``owner`` None is the Officer."""

    owner: int | None
    criminals: int


class Officer(msgspec.Struct, frozen=True, kw_only=True):
    """The imaginary third player of a 2-player game. ``deck`` is top first."""

    deck: list[Agent]
    car: int = 0
    deployed: bool = False
    jail: Criminals = Criminals()
    utility_tokens: list[int] = []


class FedsState(msgspec.Struct, frozen=True, kw_only=True):
    seats: int
    city: City
    #: Sirens in play: the variant option, or the new-orleans card.
    sirens: bool
    badge: int
    locations: list[Spot]
    hands: list[list[Agent]]
    jails: list[Criminals]
    utility_tokens: list[list[int]]
    bag: Criminals
    officer: Officer | None = None
    round: int = 1
    phase: Phase = "choose"
    chosen: list[Choice | None]
    #: Powers waiting to be used, a stack (the last one is resolved first). A flip happens
    #: only through a deploy, an Officer deploy or an Infiltrate, and each of those is a
    #: single action, so in practice the stack never holds more than one activation.
    activations: list[Activation] = []
    siren_location: int | None = None
    siren_takers: list[SirenTaker] = []
    bust_location: int = -1
    bust_order: list[int | None] = []
    bust_turn: int = 0
    #: Public decisions taken so far; makes step ids unique.
    moves: int = 0
