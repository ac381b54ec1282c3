"""Events of The Feds: what happened. Tags are stable and prefixed ``feds.``.

Fields that may be hidden from a seat are ``... | None``; `views.redact` blanks them.
Owners are seat numbers; ``None`` is the Officer (2 players).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from domain.engine import doc
from domain.feds.cards import Agent, City, Colour, Criminals, Location, Power

#: Owners are seats; null is the Officer (2 players).
OWNER = "The seat that deployed the card; null is the imaginary Officer (2-player games only)."


class UtilityTokenFace(msgspec.Struct, frozen=True):
    """A utility token on a location; ``value`` is None while it lies face down."""

    value: Annotated[int | None, doc("The token's value in points, null while face down.")]
    face_up: Annotated[bool, doc("Whether the token lies face up.")]


class SirenShare(msgspec.Struct, frozen=True):
    """How many criminals a player takes at a mini-bust, in arrest order."""

    owner: Annotated[int | None, doc(OWNER)]
    criminals: Annotated[int, doc("How many criminals this one arrests.")]


class GameSetUp(msgspec.Struct, frozen=True, tag="feds.game_set_up", tag_field="type"):
    """The table at setup. Per-location lists run top to bottom (Club first)."""

    seats: Annotated[int, doc("How many seats play.")]
    city: Annotated[City, doc("The house city card in play.")]
    sirens: Annotated[bool, doc("Whether siren tokens are in play.")]
    badge: Annotated[int, doc("The seat drawn to hold the badge in round 1.")]
    criminals: Annotated[
        list[Criminals], doc("The criminals drawn onto each location, top to bottom.")
    ]
    utility_tokens: Annotated[
        list[UtilityTokenFace | None],
        doc("Each location's utility token, top to bottom; null where there is none."),
    ]
    siren_tokens: Annotated[
        list[int | None],
        doc("Each location's siren token number, top to bottom; null where there is none."),
    ]
    officer_deck: Annotated[
        list[Agent] | None,
        doc(
            "2 players: the Officer's shuffled deck, top first; null (hidden) for everyone "
            "while the game is played (the replay shows it)."
        ),
    ] = None
    officer_deck_size: Annotated[
        int, doc("Cards in the Officer's deck (0 without an Officer).")
    ] = 0


class AgentChosen(msgspec.Struct, frozen=True, tag="feds.agent_chosen", tag_field="type"):
    """A step-1 choice, told once every seat has revealed. ``agent`` only to its seat."""

    seat: Annotated[int, doc("The seat that chose.")]
    location: Annotated[Location, doc("The location it deploys to.")]
    agent: Annotated[
        Agent | None, doc("The agent card deployed: told to its seat only, else null.")
    ] = None


FlipCause = Literal["deploy", "officer", "infiltrate", "bust"]


class MoleFlipped(msgspec.Struct, frozen=True, tag="feds.mole_flipped", tag_field="type"):
    """A mole turned face up and moved to the end of its field (it is the rookie now).

    ``power_for`` is the seat that may now use its power (None: no power activates)."""

    location: Annotated[Location, doc("The location whose mole flipped.")]
    owner: Annotated[int | None, doc(OWNER)]
    agent: Annotated[Agent, doc("The agent card, now face up.")]
    cause: Annotated[
        FlipCause,
        doc(
            "deploy: a new card came to the location; officer: the Officer's deploy; "
            "infiltrate: an Infiltrate power; bust: the final bust turns every mole up."
        ),
    ]
    power_for: Annotated[
        int | None, doc("The seat that may now use its power; null: no power activates.")
    ] = None


class MolePlaced(msgspec.Struct, frozen=True, tag="feds.mole_placed", tag_field="type"):
    """A deployed card became a location's mole: face down (``agent`` told to its owner
    only), or face up for the Officer."""

    location: Annotated[Location, doc("The location whose hideout the card went to.")]
    owner: Annotated[int | None, doc(OWNER)]
    face_up: Annotated[bool, doc("Face up (the Officer's) or face down.")]
    agent: Annotated[
        Agent | None,
        doc("The agent card: told to its owner only while face down, else null."),
    ] = None


class PoliceCarMoved(msgspec.Struct, frozen=True, tag="feds.police_car_moved", tag_field="type"):
    """2 players: the Officer's top card was revealed; the car moved down that many places."""

    agent: Annotated[Agent, doc("The Officer's revealed card: its strength is the move.")]
    from_location: Annotated[Location, doc("Where the car was.")]
    to_location: Annotated[Location, doc("Where the car is now.")]


class PowerUsed(msgspec.Struct, frozen=True, tag="feds.power_used", tag_field="type"):
    """``seat`` uses the power of ``owner``'s special agent at ``location``; its effect
    follows in the next event."""

    seat: Annotated[int, doc("The seat using the power.")]
    owner: Annotated[int, doc("The seat that owns the special agent.")]
    agent: Annotated[Agent, doc("The special agent.")]
    power: Annotated[Power, doc("The power used.")]
    location: Annotated[Location, doc("Where the agent was flipped.")]


class PowerDeclined(msgspec.Struct, frozen=True, tag="feds.power_declined", tag_field="type"):
    """``seat`` did not use the power of ``owner``'s flipped special agent."""

    seat: Annotated[int, doc("The seat that declined.")]
    owner: Annotated[int, doc("The seat that owns the special agent.")]
    agent: Annotated[Agent, doc("The special agent.")]
    power: Annotated[Power, doc("The power declined.")]
    location: Annotated[Location, doc("Where the agent was flipped.")]


class MolePeeked(msgspec.Struct, frozen=True, tag="feds.mole_peeked", tag_field="type"):
    """Detroit Infiltrate: ``seat`` looked at a mole; ``agent`` is told to that seat only."""

    seat: Annotated[int, doc("The seat that looked.")]
    location: Annotated[Location, doc("The mole's location.")]
    owner: Annotated[int | None, doc(OWNER)]
    agent: Annotated[
        Agent | None, doc("The mole's agent card: told to the seat that looked, else null.")
    ] = None


class AgentRedeployed(msgspec.Struct, frozen=True, tag="feds.agent_redeployed", tag_field="type"):
    """Redeploy: a field agent moved to the end of another location's field."""

    owner: Annotated[int, doc("The seat that owns the agent.")]
    agent: Annotated[Agent, doc("The agent moved.")]
    from_location: Annotated[Location, doc("The field it left.")]
    to_location: Annotated[Location, doc("The field it joined (as the last card).")]


class SirensSwapped(msgspec.Struct, frozen=True, tag="feds.sirens_swapped", tag_field="type"):
    """Redeploy with sirens on: two locations' siren tokens changed places."""

    first: Annotated[Location, doc("One location.")]
    second: Annotated[Location, doc("The other location.")]


class CriminalMoved(msgspec.Struct, frozen=True, tag="feds.criminal_moved", tag_field="type"):
    """Chicago Patrol: one criminal moved to an adjacent location."""

    colour: Annotated[Colour, doc("The criminal's colour.")]
    from_location: Annotated[Location, doc("Where it was.")]
    to_location: Annotated[Location, doc("Where it is now.")]


class CriminalDrawn(msgspec.Struct, frozen=True, tag="feds.criminal_drawn", tag_field="type"):
    """New-orleans Patrol: a criminal drawn blind from the bag onto ``location``."""

    colour: Annotated[Colour, doc("The criminal's colour.")]
    location: Annotated[Location, doc("Where it was put.")]


class CriminalsArrested(
    msgspec.Struct, frozen=True, tag="feds.criminals_arrested", tag_field="type"
):
    """Criminals moved from ``location`` into a jail (the Officer's, when ``owner`` is None)."""

    owner: Annotated[int | None, doc("The seat whose jail they went to; null: the Officer's.")]
    location: Annotated[Location, doc("Where they were arrested.")]
    criminals: Annotated[Criminals, doc("How many of each colour.")]
    cause: Annotated[
        Literal["patrol", "siren", "bust"],
        doc("patrol: a Detroit Patrol; siren: a mini-bust; bust: the final bust."),
    ]


class SirenSounded(msgspec.Struct, frozen=True, tag="feds.siren_sounded", tag_field="type"):
    """After step 2 a field reached its siren's number: mini-bust, and the siren is removed.
    ``shares`` lists who arrests how many, in order (empty: nobody arrests)."""

    location: Annotated[Location, doc("The location whose siren sounded.")]
    siren: Annotated[int, doc("The siren token's number (the field size that set it off).")]
    shares: Annotated[list[SirenShare], doc("Who arrests how many, in order.")]


class LocationClosed(msgspec.Struct, frozen=True, tag="feds.location_closed", tag_field="type"):
    """Step 3: a field reached the closing size; nobody may deploy there."""

    location: Annotated[Location, doc("The location closed.")]


class LocationReopened(msgspec.Struct, frozen=True, tag="feds.location_reopened", tag_field="type"):
    """Step 3: a closed location's field fell below the closing size; it is open again."""

    location: Annotated[Location, doc("The location open again.")]


class BadgePassed(msgspec.Struct, frozen=True, tag="feds.badge_passed", tag_field="type"):
    """Step 4: ``seat`` holds the badge and round ``round`` starts."""

    seat: Annotated[int, doc("The seat holding the badge now.")]
    round: Annotated[int, doc("The round that starts.")]


class ArrestsBegan(msgspec.Struct, frozen=True, tag="feds.arrests_began", tag_field="type"):
    """Round 7 is over: the locations are busted from top to bottom."""


class LocationBusted(msgspec.Struct, frozen=True, tag="feds.location_busted", tag_field="type"):
    """The bust of ``location`` starts: ``order`` is the arrest order (strongest first) and
    ``strengths`` each one's strength."""

    location: Annotated[Location, doc("The location busted.")]
    order: Annotated[
        list[int | None], doc("The arrest order, strongest first: seats, null the Officer.")
    ]
    strengths: Annotated[list[int], doc("Each one's strength there, in the same order.")]


class UtilityTokenWon(msgspec.Struct, frozen=True, tag="feds.utility_token_won", tag_field="type"):
    """The strongest player at a bust took the location's utility token (now face up)."""

    owner: Annotated[int | None, doc("The seat that won it; null: the Officer.")]
    location: Annotated[Location, doc("Where the token lay.")]
    value: Annotated[int, doc("The token's value in points.")]


class GameEnded(msgspec.Struct, frozen=True, tag="feds.game_ended", tag_field="type"):
    """The bust is over: the final scores."""

    scores: Annotated[list[int], doc("Each seat's final score, indexed by seat.")]
    places: Annotated[
        list[int],
        doc("Each seat's place, indexed by seat: 1 is first; equal scores share a place."),
    ]


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
