"""Events of The Feds: what happened. Tags are stable and prefixed ``feds.``.

Fields that may be hidden from a seat are ``... | None``; `views.redact` blanks them.
Owners are seat numbers; ``None`` is the Officer (2 players).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.feds.cards import Agent, City, Colour, Criminals, Location, Power


class UtilityTokenFace(msgspec.Struct, frozen=True):
    """A utility token on a location; ``value`` is None while it lies face down."""

    value: int | None
    face_up: bool


class SirenShare(msgspec.Struct, frozen=True):
    """How many criminals a player takes at a mini-bust, in arrest order."""

    owner: int | None
    criminals: int


class GameSetUp(msgspec.Struct, frozen=True, tag="feds.game_set_up", tag_field="type"):
    """The table at setup. Per-location lists run top to bottom (Club first)."""

    seats: int
    city: City
    sirens: bool
    badge: int
    criminals: list[Criminals]
    utility_tokens: list[UtilityTokenFace | None]
    siren_tokens: list[int | None]
    #: 2 players: the Officer's shuffled deck, top first; None (hidden) for everyone in play.
    officer_deck: list[Agent] | None = None
    officer_deck_size: int = 0


class AgentChosen(msgspec.Struct, frozen=True, tag="feds.agent_chosen", tag_field="type"):
    """A step-1 choice, told once every seat has revealed. ``agent`` only to its seat."""

    seat: int
    location: Location
    agent: Agent | None = None


FlipCause = Literal["deploy", "officer", "infiltrate", "bust"]


class MoleFlipped(msgspec.Struct, frozen=True, tag="feds.mole_flipped", tag_field="type"):
    """A mole turned face up and moved to the end of its field (it is the rookie now).

    ``power_for`` is the seat that may now use its power (None: no power activates)."""

    location: Location
    owner: int | None
    agent: Agent
    cause: FlipCause
    power_for: int | None = None


class MolePlaced(msgspec.Struct, frozen=True, tag="feds.mole_placed", tag_field="type"):
    """A deployed card became a location's mole: face down (``agent`` told to its owner
    only), or face up for the Officer."""

    location: Location
    owner: int | None
    face_up: bool
    agent: Agent | None = None


class PoliceCarMoved(msgspec.Struct, frozen=True, tag="feds.police_car_moved", tag_field="type"):
    """2 players: the Officer's top card was revealed; the car moved down that many places."""

    agent: Agent
    from_location: Location
    to_location: Location


class PowerUsed(msgspec.Struct, frozen=True, tag="feds.power_used", tag_field="type"):
    """``seat`` uses the power of ``owner``'s special agent at ``location``; its effect
    follows in the next event."""

    seat: int
    owner: int
    agent: Agent
    power: Power
    location: Location


class PowerDeclined(msgspec.Struct, frozen=True, tag="feds.power_declined", tag_field="type"):
    seat: int
    owner: int
    agent: Agent
    power: Power
    location: Location


class MolePeeked(msgspec.Struct, frozen=True, tag="feds.mole_peeked", tag_field="type"):
    """Detroit Infiltrate: ``seat`` looked at a mole; ``agent`` is told to that seat only."""

    seat: int
    location: Location
    owner: int | None
    agent: Agent | None = None


class AgentRedeployed(msgspec.Struct, frozen=True, tag="feds.agent_redeployed", tag_field="type"):
    owner: int
    agent: Agent
    from_location: Location
    to_location: Location


class SirensSwapped(msgspec.Struct, frozen=True, tag="feds.sirens_swapped", tag_field="type"):
    first: Location
    second: Location


class CriminalMoved(msgspec.Struct, frozen=True, tag="feds.criminal_moved", tag_field="type"):
    colour: Colour
    from_location: Location
    to_location: Location


class CriminalDrawn(msgspec.Struct, frozen=True, tag="feds.criminal_drawn", tag_field="type"):
    """New-orleans Patrol: a criminal drawn blind from the bag onto ``location``."""

    colour: Colour
    location: Location


class CriminalsArrested(
    msgspec.Struct, frozen=True, tag="feds.criminals_arrested", tag_field="type"
):
    """Criminals moved from ``location`` into a jail (the Officer's, when ``owner`` is None)."""

    owner: int | None
    location: Location
    criminals: Criminals
    cause: Literal["patrol", "siren", "bust"]


class SirenSounded(msgspec.Struct, frozen=True, tag="feds.siren_sounded", tag_field="type"):
    """After step 2 a field reached its siren's number: mini-bust, and the siren is removed.
    ``shares`` lists who arrests how many, in order (empty: nobody arrests)."""

    location: Location
    siren: int
    shares: list[SirenShare]


class LocationClosed(msgspec.Struct, frozen=True, tag="feds.location_closed", tag_field="type"):
    location: Location


class LocationReopened(msgspec.Struct, frozen=True, tag="feds.location_reopened", tag_field="type"):
    location: Location


class BadgePassed(msgspec.Struct, frozen=True, tag="feds.badge_passed", tag_field="type"):
    """Step 4: ``seat`` holds the badge and round ``round`` starts."""

    seat: int
    round: int


class ArrestsBegan(msgspec.Struct, frozen=True, tag="feds.arrests_began", tag_field="type"):
    """Round 7 is over: the locations are busted from top to bottom."""


class LocationBusted(msgspec.Struct, frozen=True, tag="feds.location_busted", tag_field="type"):
    """The bust of ``location`` starts: ``order`` is the arrest order (strongest first) and
    ``strengths`` each one's strength."""

    location: Location
    order: list[int | None]
    strengths: list[int]


class UtilityTokenWon(msgspec.Struct, frozen=True, tag="feds.utility_token_won", tag_field="type"):
    """The strongest player at a bust took the location's utility token (now face up)."""

    owner: int | None
    location: Location
    value: int


class GameEnded(msgspec.Struct, frozen=True, tag="feds.game_ended", tag_field="type"):
    scores: list[int]
    places: list[int]


EVENT_TYPES: tuple[type[msgspec.Struct], ...] = (
    GameSetUp,
    AgentChosen,
    MoleFlipped,
    MolePlaced,
    PoliceCarMoved,
    PowerUsed,
    PowerDeclined,
    MolePeeked,
    AgentRedeployed,
    SirensSwapped,
    CriminalMoved,
    CriminalDrawn,
    CriminalsArrested,
    SirenSounded,
    LocationClosed,
    LocationReopened,
    BadgePassed,
    ArrestsBegan,
    LocationBusted,
    UtilityTokenWon,
    GameEnded,
)

FedsEvent = (
    GameSetUp
    | AgentChosen
    | MoleFlipped
    | MolePlaced
    | PoliceCarMoved
    | PowerUsed
    | PowerDeclined
    | MolePeeked
    | AgentRedeployed
    | SirensSwapped
    | CriminalMoved
    | CriminalDrawn
    | CriminalsArrested
    | SirenSounded
    | LocationClosed
    | LocationReopened
    | BadgePassed
    | ArrestsBegan
    | LocationBusted
    | UtilityTokenWon
    | GameEnded
)
