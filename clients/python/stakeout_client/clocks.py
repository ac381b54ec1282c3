"""Clocks and presence (docs/api-guide.md, "Clocks and presence").

A view carries ``server_time_ms``, when the server made it, and each seat's ``clock`` as of
then: a running bank is counted down from that moment by the time elapsed since the view
arrived (the monotonic clock), never by this machine's wall clock, which may be off.
Presence is not an event: the feeds send it as messages of its own kind (``presence``, no
version), and `with_presence` folds one into a view.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import msgspec

from stakeout_client._wire import models


def _monotonic_ms() -> float:
    return time.monotonic() * 1000


@dataclass(frozen=True)
class ServerClock:
    """The server's clock as a view showed it when it arrived."""

    server_time_ms: int
    received_ms: float  # time.monotonic() in ms when the view arrived

    @classmethod
    def of(cls, view: Any) -> ServerClock:
        return cls(int(view.server_time_ms), _monotonic_ms())

    def now_ms(self, at_ms: float | None = None) -> int:
        """The server's time now (epoch ms): the view's plus what elapsed since it came."""
        at = _monotonic_ms() if at_ms is None else at_ms
        return self.server_time_ms + int(max(0.0, at - self.received_ms))


@dataclass(frozen=True)
class ClockReading:
    """A seat's bank at one moment of the server's clock."""

    seat: int
    remaining_ms: int  # counted down while running; 0 once its flag fell
    running: bool
    flag_at_ms: int | None  # when its flag falls by the server's clock (running only)


def clock_at(view: Any, seat: int, server_now_ms: int | None = None) -> ClockReading | None:
    """Seat ``seat``'s bank at ``server_now_ms`` (default: the view's own moment); None in a
    game without a clock."""
    info = next((s for s in view.seats if s.seat == seat), None)
    clock = getattr(info, "clock", None)
    if not isinstance(clock, models.SeatClock):
        return None
    at = view.server_time_ms if server_now_ms is None else server_now_ms
    elapsed = max(0, at - view.server_time_ms) if clock.running else 0
    return ClockReading(
        seat=seat,
        remaining_ms=max(0, clock.remaining_ms - elapsed),
        running=clock.running,
        flag_at_ms=view.server_time_ms + clock.remaining_ms if clock.running else None,
    )


def presence_of(view: Any, seat: int) -> models.Presence | None:
    """Seat ``seat``'s presence in the view: None for a seat no person plays, once the game
    is over, or when the server's presence is off."""
    info = next((s for s in view.seats if s.seat == seat), None)
    presence = getattr(info, "presence", None)
    return presence if isinstance(presence, models.Presence) else None


class SeatPresence(msgspec.Struct, kw_only=True):
    """One seat in a ``presence`` message, as a view's ``seats[i]`` shows it."""

    seat: int
    presence: models.Presence | None = None
    substituted: models.Substitution | None = None


class PresenceMessage(msgspec.Struct, kw_only=True):
    """A feed's ``presence`` message: every seat's presence and substitution."""

    seats: list[SeatPresence]


def presence_message(message: dict[str, Any]) -> PresenceMessage | None:
    """The typed presence message of a feed's message (a dict), or None for another kind."""
    if message.get("kind") != "presence":
        return None
    return msgspec.convert({"seats": message.get("seats", [])}, PresenceMessage)


def with_presence(view: Any, message: PresenceMessage) -> Any:
    """The view with the message's news in its seats (a presence message changes no
    version: the view is otherwise as it was)."""
    news = {s.seat: s for s in message.seats}
    seats = [
        msgspec.structs.replace(
            s, presence=news[s.seat].presence, substituted=news[s.seat].substituted
        )
        if s.seat in news
        else s
        for s in view.seats
    ]
    return msgspec.structs.replace(view, seats=seats)
