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
- `Bots` is ``bot_move``: the one dispatch by level (random, greedy, expert) for every
  game, and `Search` the expert's search every game makes (determinized playouts); a game
  supplies its greedy policy and the search's parts (candidates, a determinizer and a
  playout).
- `Assembled` is the game object: the `domain.engine.Game` interface made of those parts,
  declared in the game package's ``__init__``.

The seat and option checks are the match layer's (`domain.match`): a game's ``setup``
gets options already converted to its options type and a seat count within its bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import msgspec

from domain.budget import TUNED, Budget
from domain.engine import Awaiting, BotLevel, HouseRule, Outcome
from domain.errors import GameOver, IllegalMove, NotYourTurn, RedactedEvent, WrongPhase
from domain.rng import Rng

S = TypeVar("S")
E = TypeVar("E")
C = TypeVar("C")
V = TypeVar("V")
V_contra = TypeVar("V_contra", contravariant=True)
T = TypeVar("T")


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
        self._wrong_step = wrong_step_message
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


# ---- the bots: one dispatch by level, one expert search ----------------------------------


class SeatView(Protocol):
    """What the bots need of every game's view: whose view it is (None: a spectator's)."""

    @property
    def seat(self) -> int | None: ...


SV = TypeVar("SV", bound=SeatView)
SV_contra = TypeVar("SV_contra", bound=SeatView, contravariant=True)
W = TypeVar("W")


class Expert(Protocol[SV_contra, C]):
    """The ``expert`` level of a game: its choice for ``seat`` among ``legal``, knowing only
    ``view``; ``budget`` bounds its thinking."""

    def __call__(
        self, view: SV_contra, seat: int, legal: Sequence[C], rng: Rng, budget: Budget
    ) -> C: ...


@dataclass(frozen=True)
class Bots(Generic[SV, C]):
    """``Game.bot_move`` for every game: the levels, dispatched the same way everywhere.

    ``random`` is any legal move; so is every level's move when there is only one, or when
    the view is a spectator's. ``greedy(view, legal)`` and ``expert`` are the game's own.
    Each bot is handed only its own seat's view and legal list.
    """

    greedy: Callable[[SV, Sequence[C]], C]
    expert: Expert[SV, C]

    def __call__(
        self, level: BotLevel, view: SV, legal: Sequence[C], rng: Rng, budget: Budget = TUNED
    ) -> C:
        if not legal:
            raise ValueError("no legal move to choose from")
        seat = view.seat
        if level == "random" or len(legal) == 1 or seat is None:
            return rng.choice(legal)
        if level == "greedy":
            return self.greedy(view, legal)
        return self.expert(view, seat, legal, rng, budget)


@dataclass(frozen=True, kw_only=True)
class Search(Generic[SV, C, W]):
    """The expert's search, the same in every game: determinized playouts.

    ``candidates(view, legal)`` are the moves worth trying, the one to keep on a tie first
    (a single candidate is the move). Each sample draws a world, a full state ``view``
    could come from (``determinize(view, rng)``: the hidden cards dealt at random, as the
    seat knows them), and plays every candidate out in it (``playout(world, seat, move,
    rng)``: the seat's margin at the end). Every candidate meets the same worlds, so they
    are compared on equal luck; the best total wins, the first on a tie.

    ``samples`` is the tuned count of worlds (shared out among the candidates when
    ``shared``: each world then costs as many playouts), never fewer than ``minimum``,
    scaled and cut short by the budget (`domain.budget`). A candidate other than the first
    must beat it by ``keep_first_by`` points a sample on average (with few samples, a
    small lead is mostly noise). Each world gets its own fork of the move's stream, and
    each playout another; with ``fork_worlds`` off the worlds are drawn from the move's
    stream in turn (as FBI's stored games were played).
    """

    candidates: Callable[[SV, Sequence[C]], Sequence[C]]
    determinize: Callable[[SV, Rng], W]
    playout: Callable[[W, int, C, Rng], float]
    samples: int
    minimum: int
    shared: bool = False
    keep_first_by: float = 0.0
    fork_worlds: bool = True

    def __call__(self, view: SV, seat: int, legal: Sequence[C], rng: Rng, budget: Budget) -> C:
        candidates = list(self.candidates(view, legal))
        if len(candidates) == 1:
            return candidates[0]
        tuned = self.samples // len(candidates) if self.shared else self.samples
        totals = [0.0] * len(candidates)
        done = 0
        for i in budget.rounds(tuned, self.minimum):
            world = self.determinize(view, rng.fork(f"world{i}") if self.fork_worlds else rng)
            for j, move in enumerate(candidates):
                totals[j] += self.playout(world, seat, move, rng.fork(f"play{i}.{j}"))
            done = i + 1
        best = max(range(len(candidates)), key=lambda j: (totals[j], -j))
        if totals[best] - totals[0] < self.keep_first_by * done:
            return candidates[0]
        return candidates[best]


# ---- the game object: the interface, made of the game's parts ---------------------------


class BotMove(Protocol[V_contra, C]):
    """``Game.bot_move``: a `Bots`, or a game's own function of the same shape."""

    def __call__(
        self,
        level: BotLevel,
        view: V_contra,
        legal: Sequence[C],
        rng: Rng,
        budget: Budget = TUNED,
    ) -> C: ...


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Assembled(Generic[S, C, E, V]):
    """A `domain.engine.Game` made of a game's parts: plain data, each part called as it
    was given, declared in the game package's ``__init__``::

        GAME: Game[FbiState, FbiCommand, FbiEvent, FbiView] = Assembled(
            name="fbi", ..., evolve=evolve, decide=rules.decide, view=views.view, ...
        )

    The rulebook and the house rules are data too (``published_rulebook``,
    ``published_house_rules``); the interface hands them out as ``rulebook()`` and
    ``house_rules()``, what ``GET /v1/rules/{game}`` serves. A game is one object: it
    compares and hashes by identity.
    """

    name: str
    title: str
    min_seats: int
    max_seats: int
    options_type: type[msgspec.Struct]
    command_types: tuple[type[msgspec.Struct], ...]
    event_types: tuple[type[msgspec.Struct], ...]
    view_type: type[msgspec.Struct]
    state_type: type[msgspec.Struct]
    published_rulebook: msgspec.Struct
    published_house_rules: tuple[HouseRule, ...]
    setup: Callable[[Any, int, Rng], list[E]]
    evolve: Callable[[S | None, E], S]
    pending: Callable[[S], list[Awaiting]]
    legal: Callable[[S, int], list[C]]
    decide: Callable[[S, int, C, Rng], list[E]]
    view: Callable[[S, int | None], V]
    redact: Callable[[E, int | None], E]
    result: Callable[[S | None], Outcome | None]
    bot_move: BotMove[V, C]

    @property
    def rulebook_type(self) -> type[msgspec.Struct]:
        return type(self.published_rulebook)

    def rulebook(self) -> msgspec.Struct:
        return self.published_rulebook

    def house_rules(self) -> list[HouseRule]:
        return list(self.published_house_rules)

    def __repr__(self) -> str:
        return f"<game {self.name}>"
