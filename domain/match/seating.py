"""The table around a game: seats claimed by invite, left and filled before the start,
and the rematch recorded after the end.

A seat created ``open`` waits for a person with its invite (the service checks the
invite); the game starts (`GameStarted`) when no seat is left open.
"""

from __future__ import annotations

from typing import Any

from domain.engine import AnyGame
from domain.errors import (
    GameNotStarted,
    GameOver,
    GameStartedAlready,
    NotAnOpenSeat,
    NotEnded,
    SeatTaken,
)
from domain.match.acts import ClaimSeat, FillSeats, LeaveSeat, Rematch
from domain.match.events import GameStarted, RematchCreated, SeatClaimed, SeatLeft, SeatsFilled
from domain.match.state import Match
from domain.match.turns import ended


def _before_start(match: Match) -> None:
    if match.aborted or match.abandoned:
        raise GameOver("the game has ended")
    if not match.waiting:
        raise GameStartedAlready("the game has started: its seats are settled")


def claim(game: AnyGame, match: Match, act: ClaimSeat, seed: bytes) -> list[Any]:
    """A person takes open ``act.seat``; the game starts when no seat is left open."""
    _before_start(match)
    if not 0 <= act.seat < len(match.seats) or act.seat not in match.invited:
        raise NotAnOpenSeat(f"seat {act.seat} was not open at creation")
    if match.seats[act.seat].type != "open":
        raise SeatTaken(f"seat {act.seat} has been claimed already")
    events: list[Any] = [SeatClaimed(act.seat, act.name, act.external_id)]
    if all(s.type != "open" for i, s in enumerate(match.seats) if i != act.seat):
        events.append(GameStarted())
    return events


def leave(game: AnyGame, match: Match, act: LeaveSeat, seed: bytes) -> list[Any]:
    """The claimer of ``act.seat`` gives it back before the start."""
    seat = act.seat
    _before_start(match)
    if seat not in match.invited:
        raise NotAnOpenSeat(f"seat {seat} was not open at creation: it cannot be left")
    if match.seats[seat].type == "open":
        raise NotAnOpenSeat(f"seat {seat} is open already")
    return [SeatLeft(seat)]


def fill(game: AnyGame, match: Match, act: FillSeats, seed: bytes) -> list[Any]:
    """Bots of ``act.level`` take every open seat, and the game starts."""
    _before_start(match)
    seats = [i for i, s in enumerate(match.seats) if s.type == "open"]
    return [SeatsFilled(seats, act.level), GameStarted()]


def rematch(game: AnyGame, match: Match, act: Rematch, seed: bytes) -> list[Any]:
    """Record the next game once the game has ended (a second rematch finds the first)."""
    if match.rematch is not None:
        return []
    if not ended(game, match):
        raise NotEnded("a rematch follows a game that has ended")
    if match.invited and any(s.type == "open" for s in match.seats):
        raise GameNotStarted("the game ended before it started: there is nothing to replay")
    return [RematchCreated(act.game_id)]
