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
from typing import Any, Literal, Protocol

import msgspec

from domain.budget import TUNED, Budget
from domain.rng import Rng

BotLevel = Literal["random", "greedy", "expert"]


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


class Outcome(msgspec.Struct, frozen=True):
    """Final result. ``places`` is 1-based per seat; tied seats share a place."""

    scores: list[int]
    winners: list[int]
    places: list[int]


class HouseRule(msgspec.Struct, frozen=True):
    """One decision a game plays by where its rulebook is silent, open or incomplete,
    published with the game's rules (``GET /v1/rules/{game}``). ``id`` is stable and
    unique within the game; ``topic`` names the part of the rules; ``text`` is plain text
    (no markup) a player or a client developer can read without the project's files."""

    id: str
    topic: str
    text: str


class Game(Protocol):
    """The interface each game module implements (see the module docstring)."""

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
    def state_type(self) -> type[msgspec.Struct]: ...
    @property
    def rules_type(self) -> type[msgspec.Struct]: ...

    def rules(self) -> msgspec.Struct:
        """The rules data and options, as published by ``GET /v1/rules/{game}``."""
        ...

    def house_rules(self) -> list[HouseRule]:
        """The house rules this game plays by, kept beside its rules data."""
        ...

    def setup(self, options: Any, seats: int, rng: Rng) -> list[Any]:
        """Opening events (shuffles and deals included). Raises InvalidOptions."""
        ...

    def evolve(self, state: Any | None, event: Any) -> Any:
        """Pure fold. ``state`` is None only for the first setup event."""
        ...

    def pending(self, state: Any) -> list[Awaiting]:
        """Who must act now; empty once the game is over."""
        ...

    def legal(self, state: Any, seat: int) -> list[Any]:
        """Every command ``seat`` may make now (empty when it is not awaited)."""
        ...

    def decide(self, state: Any, seat: int, command: Any, rng: Rng) -> list[Any]:
        """Validate ``command`` for ``seat`` and return its events; raises DomainError."""
        ...

    def view(self, state: Any, seat: int | None) -> Any:
        """What ``seat`` (None: a spectator) may see of ``state``."""
        ...

    def redact(self, event: Any, seat: int | None) -> Any:
        """``event`` as ``seat`` (None: a spectator) may see it."""
        ...

    def result(self, state: Any) -> Outcome | None:
        """Final scores once the game is over, else None."""
        ...

    def bot_move(
        self, level: BotLevel, view: Any, legal: Sequence[Any], rng: Rng, budget: Budget = TUNED
    ) -> Any:
        """A bot's choice among ``legal``, knowing only ``view`` (its own seat's view);
        ``budget`` bounds the ``expert``'s search (the default: its tuned sample count)."""
        ...
