"""Whom the match waits for, what each seat may do now, and a public move.

The game says who must act (``pending``); the match adds what it owns: nobody acts while
the game waits for players or once it has ended, and a seat of a sealed step commits,
then reveals once every seat of the step has committed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from domain.engine import AnyGame, Awaiting, Seat, Step
from domain.errors import GameNotStarted, GameOver, IllegalMove, NotYourTurn, SealedStepRequired
from domain.match.acts import MakeMove, command_union
from domain.match.state import Match, decision_rng, forfeits, sealed_progress


class AwaitingAction(msgspec.Struct, frozen=True):
    """One seat the game waits for, and what it must do."""

    seat: Seat
    action: Annotated[
        Literal["move", "commit", "reveal"],
        msgspec.Meta(
            description="move: post one item of `legal` to /moves; commit: post a hash of "
            "your choice to /commitments (a sealed step); reveal: post the move and salt to "
            "/reveals (once every seat of the step has committed)."
        ),
    ]
    step: Step
    deadline: Annotated[
        int | None,
        msgspec.Meta(
            description="When a bot will act for the seat (epoch milliseconds), in games "
            "created with turn_seconds; null otherwise."
        ),
    ] = None


def ended(game: AnyGame, match: Match) -> bool:
    """Over: played out (a result, recorded or not), abandoned or aborted."""
    return match.aborted or match.abandoned or game.result(match.state) is not None


def sealed_seats(game: AnyGame, match: Match) -> list[int]:
    """The seats of the sealed step the game waits for (none when it waits for no such step)."""
    return [p.seat for p in game.pending(match.state) if p.sealed]


def awaiting(game: AnyGame, match: Match) -> list[AwaitingAction]:
    """Every seat the match waits for, by seat, with what it must do."""
    if match.waiting or ended(game, match):
        return []
    out: list[AwaitingAction] = []
    pending = game.pending(match.state)
    sealed = [p for p in pending if p.sealed]
    for p in pending:
        if not p.sealed:
            out.append(AwaitingAction(p.seat, "move", p.step))
    if sealed:
        step = sealed[0].step
        committed, revealed = sealed_progress(match, step)
        all_committed = all(p.seat in committed for p in sealed)
        for p in sealed:
            if p.seat not in committed:
                out.append(AwaitingAction(p.seat, "commit", step))
            elif all_committed and p.seat not in revealed:
                out.append(AwaitingAction(p.seat, "reveal", step))
    out.sort(key=lambda a: a.seat)
    return out


def legal(game: AnyGame, match: Match, seat: int | None) -> list[Any]:
    """Moves ``seat`` may post now: public moves, or the choices it may seal (also once
    committed, while it may still replace its commitment)."""
    if seat is None or match.waiting:
        return []
    actions = [a for a in awaiting(game, match) if a.seat == seat]
    if actions and actions[0].action != "reveal":
        return game.legal(match.state, seat)
    if not actions and _may_recommit(game, match, seat):
        return game.legal(match.state, seat)
    return []


def _may_recommit(game: AnyGame, match: Match, seat: int) -> bool:
    """``seat`` has committed in the current sealed step and reveals have not opened."""
    if match.aborted or game.result(match.state) is not None:
        return False
    sealed = [p for p in game.pending(match.state) if p.sealed]
    if seat not in [p.seat for p in sealed]:
        return False
    step = sealed[0].step
    committed = sealed_progress(match, step)[0]
    return (
        seat in committed
        and seat not in forfeits(match, step)
        and not all(p.seat in committed for p in sealed)
    )


def pending_for(game: AnyGame, match: Match, seat: int) -> Awaiting:
    """What the game waits for from ``seat``; refused when it waits for nothing from it."""
    if game.result(match.state) is not None:
        raise GameOver("the game is over")
    if match.abandoned:
        raise GameOver("the game was abandoned")
    if match.aborted:
        raise GameOver("the game was aborted")
    if match.waiting:
        raise GameNotStarted("the game waits for players: it starts once no seat is open")
    for p in game.pending(match.state):
        if p.seat == seat:
            return p
    raise NotYourTurn(f"seat {seat} has nothing to do now")


def move(game: AnyGame, match: Match, seat: int, command: Any, seed: bytes) -> list[Any]:
    """A public move: ``command`` is one of the game's commands."""
    if not isinstance(command, game.command_types):
        raise IllegalMove(f"not a move of {game.name}")
    p = pending_for(game, match, seat)
    if p.sealed:
        raise SealedStepRequired(f"step {p.step} is sealed: post a commitment, then reveal")
    return game.decide(match.state, seat, command, decision_rng(seed, match.version))


def make_move(game: AnyGame, match: Match, act: MakeMove, seed: bytes) -> list[Any]:
    """The act of a public move, posted as JSON."""
    try:
        command = msgspec.convert(act.move, command_union(game))
    except msgspec.ValidationError as exc:
        raise IllegalMove(f"not a move of {game.name}: {exc}") from exc
    return move(game, match, act.seat, command, seed)
