"""The game kit: the one skeleton every game's rules hang on.

A game keeps only its rules: its data (cards, counts), one handler per event type, one
handler per command type, and what happens by itself between decisions. The kit gives
those the same shape in every game, so knowing one game means knowing all of them:

- `Fold` is ``evolve``: a table of event handlers behind the game's opening event.
- `Commands` is ``decide``: a table of command handlers, each listed with the step kinds
  it answers. Before a handler checks the rules, the kit refuses, in this order, a
  finished game (`GameOver`), a seat the game is not waiting for (`NotYourTurn`), a
  command of no kind of this game's (`IllegalMove`) and one of another step (`WrongPhase`).
- `settle` is the loop for automatic steps: a decision's events, then whatever follows
  by itself (a deal, the end of a turn, the end of the game) until a seat must act, so a
  stored game only ever rests where someone must decide.
- `unredacted` is the one rule for hidden fields: an event as a seat or a spectator
  sees it (a hidden field blanked to None by ``redact``) never folds into the true state;
  it raises `RedactedEvent`. A redacted stream is for display only.
- `ranking` turns final scores into an `Outcome` (winners and shared places).
- `Assembled` is the game object: the `domain.engine.Game` interface made of those parts,
  declared in the game package's ``__init__``.

The seat and option checks are the match layer's (`domain.match`): a game's ``setup``
gets options already converted to its options type and a seat count within its bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import msgspec

from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, HouseRule, Outcome
from domain.errors import GameOver, IllegalMove, NotYourTurn, WrongPhase
from domain.rng import Rng

S = TypeVar("S")
E = TypeVar("E")
C = TypeVar("C")
V = TypeVar("V")
T = TypeVar("T")


class RedactedEvent(ValueError):
    """A redacted event (a view of one) cannot be folded into the true state."""


def unredacted(value: T | None, what: str) -> T:
    """A hidden field of an event being folded: refused when it was redacted (is None)."""
    if value is None:
        raise RedactedEvent(f"cannot fold a redacted {what}")
    return value


# ---- evolve: a table of event handlers ---------------------------------------------------


class Fold(Generic[S]):
    """``evolve`` as a table: ``opening`` starts the state from the stream's first game
    event; every other event type has one handler ``(state, event) -> new state``."""

    def __init__(
        self,
        game: str,
        opening: tuple[type[Any], Callable[[Any], S]],
        handlers: Mapping[type[Any], Callable[[S, Any], S]],
    ) -> None:
        self._game = game
        self._opening_type, self._open = opening
        self._handlers = dict(handlers)
        self.event_types: tuple[type[Any], ...] = (self._opening_type, *self._handlers)

    def __call__(self, state: S | None, event: Any) -> S:
        if isinstance(event, self._opening_type):
            return self._open(event)
        handler = self._handlers.get(type(event))
        if handler is None:
            raise ValueError(f"not an event of {self._game}: {event!r}")
        if state is None:
            tag = self._opening_type.__struct_config__.tag
            raise ValueError(f"a stream of {self._game} starts with {tag}")
        return handler(state, event)

    def all(self, state: S, events: Iterable[Any]) -> S:
        """``state`` after each of ``events`` in turn."""
        for event in events:
            state = self(state, event)
        return state


# ---- decide: a table of command handlers -------------------------------------------------


@dataclass(frozen=True)
class Handler(Generic[S, E]):
    """The step kinds a command answers, and what it does: ``decide(state, seat, command,
    rng)`` returns its events or raises `IllegalMove` (a rule is broken)."""

    steps: frozenset[str]
    decide: Callable[[S, int, Any, Rng], list[E]]


def on(steps: str | Iterable[str], decide: Callable[[S, int, Any, Rng], list[E]]) -> Handler[S, E]:
    """A `Handler` for the step kind(s) ``steps``."""
    return Handler(frozenset([steps] if isinstance(steps, str) else steps), decide)


class Commands(Generic[S, E]):
    """``decide`` as a table, behind the checks every game makes in the same order.

    ``over(state)`` says the game has finished; ``step(state, seat)`` names the kind of
    step ``seat`` is awaited for (None: it is not awaited). The ``*_message`` functions word
    the refusals in the game's own terms: ``not_awaited_message(state, seat)`` and
    ``wrong_step_message(seat, command, now, wanted)`` (the step kind awaited now, and the
    one the command answers).
    """

    def __init__(
        self,
        game: str,
        handlers: Mapping[type[Any], Handler[S, E]],
        *,
        over: Callable[[S], bool],
        step: Callable[[S, int], str | None],
        not_awaited_message: Callable[[S, int], str] = lambda _s, seat: (
            f"seat {seat} has nothing to do now"
        ),
        wrong_step_message: Callable[
            [int, Any, str, str], str
        ] = lambda _seat, command, now, wanted: (
            f"{type(command).__name__} needs the {wanted} step; now: {now}"
        ),
    ) -> None:
        self._game = game
        self._handlers = dict(handlers)
        self._over = over
        self._step = step
        self._not_awaited = not_awaited_message
        self._wrong_step = _needs_another_step if wrong_step_message is None else wrong_step_message
        self.command_types: tuple[type[Any], ...] = tuple(self._handlers)

    def handler(self, state: S, seat: int, command: Any) -> Handler[S, E]:
        """The handler that will decide ``command``, once the shared checks pass."""
        if self._over(state):
            raise GameOver("the game is over")
        step = self._step(state, seat)
        if step is None:
            raise NotYourTurn(self._not_awaited(state, seat))
        handler = self._handlers.get(type(command))
        if handler is None:
            raise IllegalMove(f"not a {self._game} command: {type(command).__name__}")
        if step not in handler.steps:
            wanted = min(handler.steps)
            raise WrongPhase(self._wrong_step(seat, command, step, wanted))
        # A command built in code (a bot's, a test's) skips the API's strict decoding: a
        # field outside its type (a location that is none) is refused here, once for all.
        try:
            msgspec.convert(msgspec.to_builtins(command), type(command))
        except msgspec.ValidationError as error:
            raise IllegalMove(f"not a valid {type(command).__name__}: {error}") from None
        return handler

    def decide(self, state: S, seat: int, command: Any, rng: Rng) -> list[E]:
        """The events ``command`` causes (before anything automatic that follows them)."""
        return self.handler(state, seat, command).decide(state, seat, command, rng)


def _needs_another_step(seat: int, command: Any, now: str, wanted: str) -> str:
    return f"{type(command).__name__} needs the {wanted} step; now: {now}"


# ---- the loop for automatic steps --------------------------------------------------------


def settle(
    evolve: Callable[[S | None, Any], S],
    automatic: Callable[[S], Sequence[E]],
    state: S | None,
    events: Sequence[E],
) -> tuple[list[E], S]:
    """``events`` followed by the automatic events they trigger until a seat must act
    (``automatic`` returns none), and the state they all lead to."""
    out = list(events)
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("nothing to settle: no events and no state")
    while follow := automatic(state):
        for event in follow:
            state = evolve(state, event)
        out += follow
    return out, state


# ---- the result --------------------------------------------------------------------------


def ranking(scores: Sequence[int], tie_breaks: Sequence[tuple[int, ...]] = ()) -> Outcome:
    """The `Outcome` of final ``scores`` (higher is better): each seat's place is 1 plus the
    number of seats ranked above it, by score then by its ``tie_breaks`` (higher is better),
    so tied seats share a place and the next is skipped (1, 1, 3); every seat placed 1st
    wins."""
    keys = [(score, *(tie_breaks[seat] if tie_breaks else ())) for seat, score in enumerate(scores)]
    places = [1 + sum(other > key for other in keys) for key in keys]
    winners = [seat for seat, place in enumerate(places) if place == 1]
    return Outcome(scores=list(scores), winners=winners, places=places)


# ---- the game object: the interface assembled from the game's parts ---------------------


class Assembled(Generic[S, C, E, V]):
    """A `domain.engine.Game` made of a game's parts, so a game package declares its game
    instead of writing a class that only forwards each call::

        GAME: Game[FbiState, FbiCommand, FbiEvent, FbiView] = Assembled(
            name="fbi", ..., evolve=evolve, decide=rules.decide, view=views.view, ...
        )
    """

    def __init__(
        self,
        *,
        name: str,
        title: str,
        seats: tuple[int, int],
        options_type: type[msgspec.Struct],
        command_types: tuple[type[msgspec.Struct], ...],
        event_types: tuple[type[msgspec.Struct], ...],
        view_type: type[msgspec.Struct],
        state_type: type[msgspec.Struct],
        rulebook: msgspec.Struct,
        house_rules: Sequence[HouseRule],
        setup: Callable[[Any, int, Rng], list[E]],
        evolve: Callable[[S | None, E], S],
        pending: Callable[[S], list[Awaiting]],
        legal: Callable[[S, int], list[C]],
        decide: Callable[[S, int, C, Rng], list[E]],
        view: Callable[[S, int | None], V],
        redact: Callable[[E, int | None], E],
        result: Callable[[S | None], Outcome | None],
        bot_move: Callable[[BotLevel, V, Sequence[C], Rng, Budget], C],
    ) -> None:
        self.name = name
        self.title = title
        self.min_seats, self.max_seats = seats
        self.options_type = options_type
        self.command_types = command_types
        self.event_types = event_types
        self.view_type = view_type
        self.state_type = state_type
        self.rulebook_type: type[msgspec.Struct] = type(rulebook)
        self._rulebook = rulebook
        self._house_rules = list(house_rules)
        self._setup = setup
        self._evolve = evolve
        self._pending = pending
        self._legal = legal
        self._decide = decide
        self._view = view
        self._redact = redact
        self._result = result
        self._bot_move = bot_move

    def rulebook(self) -> msgspec.Struct:
        return self._rulebook

    def house_rules(self) -> list[HouseRule]:
        return list(self._house_rules)

    def setup(self, options: Any, seats: int, rng: Rng) -> list[E]:
        return self._setup(options, seats, rng)

    def evolve(self, state: S | None, event: E) -> S:
        return self._evolve(state, event)

    def pending(self, state: S) -> list[Awaiting]:
        return self._pending(state)

    def legal(self, state: S, seat: int) -> list[C]:
        return self._legal(state, seat)

    def decide(self, state: S, seat: int, command: C, rng: Rng) -> list[E]:
        return self._decide(state, seat, command, rng)

    def view(self, state: S, seat: int | None) -> V:
        return self._view(state, seat)

    def redact(self, event: E, seat: int | None) -> E:
        return self._redact(event, seat)

    def result(self, state: S | None) -> Outcome | None:
        return self._result(state)

    def bot_move(
        self, level: BotLevel, view: V, legal: Sequence[C], rng: Rng, budget: Budget = TUNED
    ) -> C:
        return self._bot_move(level, view, legal, rng, budget)
