"""The folded state of one stream (`Match`) and the fold: one handler per match event.

Every event the match layer does not own is the game's, folded by the game's own pure
``evolve`` into ``Match.state``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain.engine import AnyGame, Outcome
from domain.match.events import (
    Clock,
    ClockFlagged,
    GameAbandoned,
    GameAborted,
    GameCreated,
    GameStarted,
    RematchCreated,
    ResultRecorded,
    SealCommitted,
    SealForfeited,
    SealRevealed,
    SeatClaimed,
    SeatLeft,
    SeatResigned,
    SeatsFilled,
    SeatSpec,
    TurnTimedOut,
)
from domain.rng import Rng


class Banks(msgspec.Struct, frozen=True):
    """The seats' time banks of a game with a clock, as charged up to ``since_ms`` (the
    time of the last act's events; 0: not started). Derived from the log's times by
    `domain.match.clocks`, never from a wall clock."""

    remaining_ms: tuple[int, ...]
    since_ms: int = 0


class Match(msgspec.Struct):
    """The folded state of one stream.

    ``commits``, ``reveals`` and ``forfeited`` belong to the sealed step ``seal_step``; a
    forfeited seat (it missed a deadline) counts as committed and revealed, and a bot's
    random legal choice stands in for its move when the step resolves. ``seats`` is who
    plays each seat now: a resigned seat (listed in ``resigned``) is a bot's from then on.

    ``bound``: the external ids the creator gave open seats. Such a seat keeps its identity
    whoever claims it, and when its claimer leaves: a claim names a player only for a seat
    created without one (issue 35; the service lets only the game's API key name one).
    """

    game_id: str
    seats: list[SeatSpec]
    options: dict[str, Any]
    state: Any
    version: int = 0
    seal_step: str | None = None
    commits: dict[int, str] = msgspec.field(default_factory=dict)
    reveals: dict[int, SealRevealed] = msgspec.field(default_factory=dict)
    forfeited: dict[int, str] = msgspec.field(default_factory=dict)
    recorded: Outcome | None = None
    abandoned: bool = False
    resigned: list[int] = msgspec.field(default_factory=list)
    aborted: bool = False
    # Seats open at creation (claimed by invite), and whether the game still waits for
    # players (some seat open); the next game of this table once a rematch was made.
    invited: tuple[int, ...] = ()
    waiting: bool = False
    rematch: str | None = None
    bound: dict[int, str] = msgspec.field(default_factory=dict)
    # The clock (issue 34) and its banks; the seats whose bank ran out and that a bot
    # plays since (bot_seat, lose), and those of them ranked last (lose).
    clock: Clock | None = None
    banks: Banks | None = None
    flagged: list[int] = msgspec.field(default_factory=list)
    lost_on_time: list[int] = msgspec.field(default_factory=list)


def decision_rng(seed: bytes, version: int) -> Rng:
    """The random stream of the decision that builds on ``version``."""
    # Each decision forks the seed by the version it builds on, so a verifier holding the
    # seed and the stream re-derives every random choice independently of timing.
    return Rng(seed, f"v{version}")


# ---- the fold ------------------------------------------------------------------------------


def fold(game: AnyGame, match: Match | None, event: Any) -> Match:
    """``match`` after ``event``, as a new Match: the input is never changed.

    Pure like the games' ``evolve``, so a folded state can be shared as an immutable
    snapshot (the service's warm cache hands the same Match to concurrent requests).
    Only what changes is copied: the sealed-step dicts when they change, the game state
    through its own pure ``evolve``; the rest is shared.
    """
    if isinstance(event, GameCreated):
        return _created(event)
    if match is None:
        raise ValueError("a stream must start with game.created")
    handler = _FOLD.get(type(event))
    if handler is None:  # the game's own event
        return _next(match, state=game.evolve(match.state, event))
    return handler(match, event)


def replay(game: AnyGame, events: Sequence[Any]) -> Match:
    """The match a whole stream folds into."""
    match: Match | None = None
    for event in events:
        match = fold(game, match, event)
    if match is None:
        raise ValueError("empty stream")
    return match


def _created(event: GameCreated) -> Match:
    """A new match: version 1, waiting while it has open seats to fill."""
    invited = tuple(i for i, s in enumerate(event.seats) if s.type == "open")
    bound = {i: s.external_id for i, s in enumerate(event.seats) if i in invited and s.external_id}
    return Match(
        game_id=event.game_id,
        seats=list(event.seats),
        options=event.options,
        state=None,
        version=1,
        invited=invited,
        waiting=bool(invited),
        bound=bound,
        clock=event.clock,
        banks=None
        if event.clock is None
        else Banks((event.clock.initial_seconds * 1000,) * len(event.seats)),
    )


def _next(match: Match, **changes: Any) -> Match:
    """The match one event later: a new Match with ``changes``, sharing the rest."""
    return msgspec.structs.replace(match, version=match.version + 1, **changes)


def _entered(match: Match, step: str) -> Match:
    """Sealed bookkeeping belongs to one step: a new step starts afresh (a new Match)."""
    if match.seal_step == step:
        return match
    return msgspec.structs.replace(match, seal_step=step, commits={}, reveals={}, forfeited={})


def _seal_committed(match: Match, event: SealCommitted) -> Match:
    entered = _entered(match, event.step)
    return _next(entered, commits={**entered.commits, event.seat: event.commitment})


def _seal_revealed(match: Match, event: SealRevealed) -> Match:
    return _next(match, reveals={**match.reveals, event.seat: event})


def _seal_forfeited(match: Match, event: SealForfeited) -> Match:
    entered = _entered(match, event.step)
    return _next(entered, forfeited={**entered.forfeited, event.seat: event.reason})


def _seat_resigned(match: Match, event: SeatResigned) -> Match:
    seats = list(match.seats)
    was = seats[event.seat]
    seats[event.seat] = SeatSpec("bot", event.level, was.name, was.external_id)
    return _next(match, seats=seats, resigned=[*match.resigned, event.seat])


def _clock_flagged(match: Match, event: ClockFlagged) -> Match:
    if event.on_time_out == "bot_turn":
        return _next(match)
    seats = list(match.seats)
    was = seats[event.seat]
    seats[event.seat] = SeatSpec("bot", "random", was.name, was.external_id)
    lost = [*match.lost_on_time, event.seat] if event.on_time_out == "lose" else match.lost_on_time
    return _next(match, seats=seats, flagged=[*match.flagged, event.seat], lost_on_time=lost)


def _seat_claimed(match: Match, event: SeatClaimed) -> Match:
    # A seat its creator bound keeps that identity, whatever the claim says. Streams from
    # before issue 35 may hold a claim that named another one (an invite code could): it
    # folds to the bound identity too, so no old game is rated for the claimer's choice.
    seats = list(match.seats)
    external_id = match.bound.get(event.seat, event.external_id)
    seats[event.seat] = SeatSpec("human", None, event.name, external_id)
    return _next(match, seats=seats)


def _seat_left(match: Match, event: SeatLeft) -> Match:
    seats = list(match.seats)
    seats[event.seat] = SeatSpec("open", None, None, match.bound.get(event.seat))
    return _next(match, seats=seats)


def _seats_filled(match: Match, event: SeatsFilled) -> Match:
    seats = list(match.seats)
    for seat in event.seats:
        seats[seat] = SeatSpec("bot", event.level, seats[seat].name, seats[seat].external_id)
    return _next(match, seats=seats)


def _result_recorded(match: Match, event: ResultRecorded) -> Match:
    recorded = Outcome(scores=event.scores, winners=event.winners, places=event.places)
    return _next(match, recorded=recorded)


_FOLD: dict[type[Any], Callable[[Match, Any], Match]] = {
    SealCommitted: _seal_committed,
    SealRevealed: _seal_revealed,
    SealForfeited: _seal_forfeited,
    TurnTimedOut: lambda match, _event: _next(match),
    ClockFlagged: _clock_flagged,
    GameAbandoned: lambda match, _event: _next(match, abandoned=True),
    GameAborted: lambda match, _event: _next(match, aborted=True),
    SeatResigned: _seat_resigned,
    SeatClaimed: _seat_claimed,
    SeatLeft: _seat_left,
    SeatsFilled: _seats_filled,
    GameStarted: lambda match, _event: _next(match, waiting=False),
    RematchCreated: lambda match, event: _next(match, rematch=event.game_id),
    ResultRecorded: _result_recorded,
}


# ---- the sealed step's bookkeeping ---------------------------------------------------------


def forfeits(match: Match, step: str) -> dict[int, str]:
    """The seats that forfeited their choice in sealed ``step``, with the reason."""
    return dict(match.forfeited) if match.seal_step == step else {}


def sealed_progress(match: Match, step: str) -> tuple[set[int], set[int]]:
    """Seats that count as committed, and as revealed, in ``step`` (forfeits count as both)."""
    if match.seal_step != step:
        return set(), set()
    forfeited = set(match.forfeited)
    return set(match.commits) | forfeited, set(match.reveals) | forfeited
