"""The uniform game interface.

Every game is one module object satisfying `Game`. The match layer (`domain.match`), the
service and the workers only ever talk to this interface, never to a game by name.

Conventions every game follows:

- Commands (imperative names) and events (past tense) are frozen msgspec Structs with
  ``tag_field="type"`` and explicit, globally unique, stable tags prefixed with the game's
  name (``"fbi.release"``). New fields get defaults; types never change.
- The seat view is a Struct with ``tag_field="game"`` and the game's name as its tag.
- ``evolve`` is a pure fold; ``decide`` validates and returns events without changing
  anything, raising a `domain.errors.DomainError` subclass when it refuses.
- All randomness comes from the `Rng` handed to ``setup``/``decide`` and its results are
  recorded in events, so replaying events never needs the seed.
- Hidden information lives in events and state but never reaches a seat that may not know
  it: ``view`` and ``redact`` are the only way out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, Protocol, TypeVar

import msgspec

from domain.budget import TUNED, Budget
from domain.rng import Rng

BotLevel = Literal["random", "greedy", "expert"]


def doc(text: str) -> msgspec.Meta:
    """A field's description in the contract: ``Annotated[int, doc("...")]``."""
    return msgspec.Meta(description=text)


# Shared field types, described once for every schema that uses them.
Seat = Annotated[
    int,
    msgspec.Meta(
        description="A seat number: 0 is the first seat listed at creation, then 1, 2, … up "
        "to the number of seats minus one."
    ),
]
STEP_GRAMMAR = (
    "A decision's id, unique within the game; sealed commitments bind it, so a commitment "
    "cannot be replayed into another step. FBI: `t{turn}.release.{seat}` (a seat's release "
    "in turn `turn`, from 1), `t{turn}.agents` (the sealed choice of two agents), "
    "`t{turn}.arrest.{i}` (the i-th arrest of the turn, from 0). The Feds: `r{round}.agents` "
    "(the sealed choice of an agent and a location), `r{round}.power.{n}` and "
    "`r{round}.siren.{n}` (a power or a siren share to decide, `n` = moves made so far), "
    "`bust.{n}` (the next location to bust). Bonnie and Clyde: `t{turn}.{n}.{phase}` (`n` = "
    "events so far in the turn; `phase` is draw, play, look, move_car or search_files)."
)
Step = Annotated[str, msgspec.Meta(description=STEP_GRAMMAR)]
SeatList = Annotated[
    list[int], msgspec.Meta(description="Seat numbers (0-based, in creation order).")
]
PerSeat = Annotated[
    list[int],
    msgspec.Meta(
        description="One number per seat, indexed by seat number (0-based, in creation order)."
    ),
]


_UNIONS: dict[tuple[type[msgspec.Struct], ...], Any] = {}


def tagged_union(types: Sequence[type[msgspec.Struct]]) -> Any:
    """The union of ``types`` in their order, built once per tuple of types: msgspec decodes
    it by tag, and the OpenAPI contract lists its members in that order."""
    key = tuple(types)
    if key not in _UNIONS:
        union: Any = key[0]
        for t in key[1:]:
            union = union | t
        _UNIONS[key] = union
    return _UNIONS[key]


class Awaiting(msgspec.Struct, frozen=True):
    """One seat the game waits for.

    ``step`` names this occurrence of a step uniquely within the game (``"t3.agents"``):
    sealed commitments bind it, so a commitment can never be replayed into another step.
    When ``sealed`` is true the seat must choose through commit–reveal, and every seat
    listed with the same step chooses simultaneously.
    """

    seat: int
    step: str
    sealed: bool = False


class CommandRule(msgspec.Struct, frozen=True):
    """One kind of move a seat may post: its tag and what it does."""

    type: Annotated[str, msgspec.Meta(description="The move's `type` tag, as posted.")]
    description: Annotated[str, msgspec.Meta(description="What the move does, in plain text.")]


def plain_text(text: str) -> str:
    """Docstring text as one line of plain text (reST literals ``x`` become x)."""
    return " ".join(text.replace("``", "").split())


def command_rules(types: Sequence[type[msgspec.Struct]]) -> list[CommandRule]:
    """Each command type's tag and docstring, read off the types so they never drift."""
    return [
        CommandRule(type=str(t.__struct_config__.tag), description=plain_text(t.__doc__ or ""))
        for t in types
    ]


class Outcome(msgspec.Struct, frozen=True):
    """The final result of a finished game, in the game's own points."""

    scores: Annotated[
        list[int],
        msgspec.Meta(
            description="Final score of each seat, indexed by seat number, in the game's points."
        ),
    ]
    winners: Annotated[
        list[int],
        msgspec.Meta(
            description="The seats that won (several when tied for first), in seat order."
        ),
    ]
    places: Annotated[
        list[int],
        msgspec.Meta(
            description="Each seat's finishing place, indexed by seat number: 1 for the "
            "winners, then 2, 3, …; tied seats share a place and the next place is skipped "
            "(1, 1, 3)."
        ),
    ]


class HouseRule(msgspec.Struct, frozen=True):
    """One decision a game plays by where its rulebook is silent, open or incomplete,
    published with the game's rules (``GET /v1/rules/{game}``). ``id`` is stable and
    unique within the game; ``topic`` names the part of the rules; ``text`` is plain text
    (no markup) a player or a client developer can read without the project's files."""

    id: Annotated[
        str, msgspec.Meta(description="Stable id of the decision, unique within the game.")
    ]
    topic: Annotated[
        str, msgspec.Meta(description="The part of the rules it concerns, in a few words.")
    ]
    text: Annotated[str, msgspec.Meta(description="The decision in plain text (no markup).")]


StateT = TypeVar("StateT")
CommandT = TypeVar("CommandT")
EventT = TypeVar("EventT")
ViewT = TypeVar("ViewT")


class Game(Protocol[StateT, CommandT, EventT, ViewT]):
    """The interface each game implements (see the module docstring), typed by the game's
    state, command, event and view types: ``GAME: Game[FbiState, FbiCommand, FbiEvent,
    FbiView] = Assembled(...)`` (`domain.kit.Assembled`) has mypy check a game against it.
    The match layer, the service and the workers hold any game, as `AnyGame`."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def min_seats(self) -> int: ...
    @property
    def max_seats(self) -> int: ...
    @property
    def options_type(self) -> type[msgspec.Struct]: ...
    @property
    def command_types(self) -> tuple[type[msgspec.Struct], ...]: ...
    @property
    def event_types(self) -> tuple[type[msgspec.Struct], ...]: ...
    @property
    def view_type(self) -> type[msgspec.Struct]: ...
    @property
    def state_type(self) -> type[msgspec.Struct]:
        """The state's type: a state encoded with msgspec (msgpack) and decoded as this
        type equals the state (the service's snapshots of a match rely on it)."""
        ...

    @property
    def rulebook_type(self) -> type[msgspec.Struct]: ...

    def rulebook(self) -> msgspec.Struct:
        """The rulebook: the rules data and options, as ``GET /v1/rules/{game}`` publishes
        them (an instance of ``rulebook_type``)."""
        ...

    def house_rules(self) -> list[HouseRule]:
        """The house rules this game plays by, kept beside its rules data."""
        ...

    def setup(self, options: Any, seats: int, rng: Rng) -> list[EventT]:
        """Opening events (shuffles and deals included). ``options`` is an instance of
        ``options_type`` and ``seats`` is within the bounds: the match layer checked both."""
        ...

    def evolve(self, state: StateT | None, event: EventT) -> StateT:
        """Pure fold. ``state`` is None only for the first setup event."""
        ...

    def pending(self, state: StateT) -> list[Awaiting]:
        """Who must act now; empty once the game is over."""
        ...

    def legal(self, state: StateT, seat: int) -> list[CommandT]:
        """Every command ``seat`` may make now (empty when it is not awaited)."""
        ...

    def decide(self, state: StateT, seat: int, command: CommandT, rng: Rng) -> list[EventT]:
        """Validate ``command`` for ``seat`` and return its events; raises DomainError."""
        ...

    def view(self, state: StateT, seat: int | None) -> ViewT:
        """What ``seat`` (None: a spectator) may see of ``state``."""
        ...

    def redact(self, event: EventT, seat: int | None) -> EventT:
        """``event`` as ``seat`` (None: a spectator) may see it."""
        ...

    def result(self, state: StateT | None) -> Outcome | None:
        """Final scores once the game is over, else None."""
        ...

    def bot_move(
        self,
        level: BotLevel,
        view: ViewT,
        legal: Sequence[CommandT],
        rng: Rng,
        budget: Budget = TUNED,
    ) -> CommandT:
        """A bot's choice among ``legal``, knowing only ``view`` (its own seat's view);
        ``budget`` bounds the ``expert``'s search (the default: its tuned sample count)."""
        ...


#: Any game, as the game-independent layers hold it (they never look inside its types).
AnyGame = Game[Any, Any, Any, Any]
