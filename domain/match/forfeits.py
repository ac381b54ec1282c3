"""Forfeits: a seat that misses its deadline or resigns, and a bot's choice in its place.

A missed public move is made by a random legal move, announced by `TurnTimedOut`. A
missed commit or reveal forfeits the seat's choice in its sealed step (`SealForfeited`):
the seat counts as committed and revealed, and a random legal choice stands in for it
when the step resolves. A resigned seat is a bot's from then on.
"""

from __future__ import annotations

from typing import Any

from domain.engine import AnyGame, BotLevel
from domain.errors import GameNotStarted, GameOver, WrongPhase
from domain.match.acts import Resign, TimeOut
from domain.match.commit_reveal import resolve
from domain.match.events import ClockFlagged, SealForfeited, SeatResigned, TurnTimedOut
from domain.match.state import Match, decision_rng, forfeits, sealed_progress
from domain.match.turns import AwaitingAction, awaiting, sealed_seats

# The level of the bot that plays a resigned seat: the deadline's stand-in, a random move.
RESIGNED_LEVEL: BotLevel = "random"


def time_out(game: AnyGame, match: Match, act: TimeOut, seed: bytes) -> list[Any]:
    """A missed deadline: a random legal move for a public step, a forfeit for a sealed one.

    In a game with a clock the deadline is the seat's bank: the time-out is refused unless
    the bank is empty as charged to the act's time (the caller charges it first,
    `domain.match.clocks.charge`), and `ClockFlagged` comes first, so that with
    ``bot_seat`` or ``lose`` the seat is a bot's before the bot's move is made."""
    expected = AwaitingAction(act.seat, act.action, act.step)
    if expected not in awaiting(game, match):
        raise WrongPhase(f"seat {act.seat} is not awaited to {act.action} in {act.step}")
    flagged: list[Any] = []
    if match.clock is not None:
        banks = match.banks
        if banks is None or banks.remaining_ms[act.seat] > 0:
            raise WrongPhase(f"seat {act.seat} still has time on its clock")
        flagged.append(ClockFlagged(seat=act.seat, on_time_out=match.clock.on_time_out))
    if act.action == "move":
        rng = decision_rng(seed, match.version)
        fallback = rng.fork("timeout").choice(game.legal(match.state, act.seat))
        decided = game.decide(match.state, act.seat, fallback, rng)
        return [*flagged, TurnTimedOut(seat=act.seat, step=act.step), *decided]
    reason = "its clock ran out" if flagged else f"missed the {act.action} deadline"
    return [*flagged, *forfeit(game, match, act.seat, act.step, reason, seed)]


def resign(game: AnyGame, match: Match, act: Resign, seed: bytes) -> list[Any]:
    """``act.seat`` resigns: a bot plays it from now on. Its unrevealed sealed choice in the
    current step is forfeited, as at a missed deadline (a bot's choice stands in)."""
    seat = act.seat
    if game.result(match.state) is not None or match.aborted or match.abandoned:
        raise GameOver("the game is over")
    if match.waiting:
        raise GameNotStarted("the game has not started: leave the seat instead")
    if not 0 <= seat < len(match.seats) or match.seats[seat].type != "human":
        raise WrongPhase(f"seat {seat} is not played by a person: it cannot resign")
    events: list[Any] = [SeatResigned(seat=seat, level=RESIGNED_LEVEL)]
    if seat in sealed_seats(game, match):
        step = next(q.step for q in game.pending(match.state) if q.sealed)
        if seat not in sealed_progress(match, step)[1]:
            events += forfeit(game, match, seat, step, "resigned", seed)
    return events


def forfeit(
    game: AnyGame, match: Match, seat: int, step: str, reason: str, seed: bytes
) -> list[Any]:
    """``seat`` forfeits its choice in sealed ``step``; resolves the step if it was last."""
    events: list[Any] = [SealForfeited(seat, step, reason)]
    revealed = sealed_progress(match, step)[1]
    if all(s in revealed or s == seat for s in sealed_seats(game, match)):
        forfeited = {**forfeits(match, step), seat: "forfeit"}
        reveals = dict(match.reveals) if match.seal_step == step else {}
        events += resolve(game, match, step, reveals, forfeited, seed)
    return events
