"""The presence rules, pure (service/play/presence.py, service/play/away.py): a seat's status
from its game's hash fields at a moment, and when an away seat's turn is due."""

from __future__ import annotations

from service.play.away import away_due
from service.play.presence import LEASE_MS, SeatPresence, seat_presence

WINDOW = 30_000
NOW = 1_000_000_000


def test_a_seat_never_seen() -> None:
    assert seat_presence({}, 0, NOW, WINDOW) == SeatPresence("never", None)
    # Another seat's fields are not this one's.
    assert seat_presence({"r1": NOW, "f1:p": NOW}, 0, NOW, WINDOW).status == "never"


def test_a_request_keeps_a_seat_online_for_the_window_then_it_is_away() -> None:
    fields = {"r0": NOW - 1_000}
    online = seat_presence(fields, 0, NOW, WINDOW)
    assert online.status == "online"
    assert online.online_until_ms == NOW - 1_000 + WINDOW
    away = seat_presence(fields, 0, NOW + WINDOW, WINDOW)
    assert away == SeatPresence("away", NOW - 1_000, away_since_ms=NOW - 1_000 + WINDOW)


def test_a_fresh_feed_lease_keeps_a_seat_online_past_its_window() -> None:
    fields = {"r0": NOW - 10 * WINDOW, "f0:a": NOW - 1_000}
    assert seat_presence(fields, 0, NOW, WINDOW).status == "online"
    # A lease not renewed for LEASE_MS: its process died; the seat is away since then.
    stale = seat_presence(fields, 0, NOW - 1_000 + LEASE_MS, WINDOW)
    assert stale.status == "away"
    assert stale.last_seen_ms == NOW - 1_000


def test_a_closed_feed_makes_the_seat_away_at_once_unless_its_window_is_open() -> None:
    closed = seat_presence({"r0": NOW - 2 * WINDOW, "l0": NOW - 10}, 0, NOW, WINDOW)
    assert closed == SeatPresence("away", NOW - 10, away_since_ms=NOW - 10)
    recent = seat_presence({"r0": NOW - 1_000, "l0": NOW - 10}, 0, NOW, WINDOW)
    assert recent.status == "online"


def test_a_substitution_shows_until_the_seat_is_seen_again() -> None:
    fields = {"r0": NOW - 2 * WINDOW, "a0": NOW - 5_000}
    assert seat_presence(fields, 0, NOW, WINDOW).substituted_since_ms == NOW - 5_000
    back = {**fields, "r0": NOW - 1_000}
    assert seat_presence(back, 0, NOW, WINDOW).substituted_since_ms is None
    # Away again later: the old substitution is not this absence's.
    assert seat_presence(back, 0, NOW + 2 * WINDOW, WINDOW).substituted_since_ms is None


def test_an_away_turn_is_due_away_seconds_after_the_seat_went_away() -> None:
    created, away = NOW - 60_000, 5_000
    assert away_due(SeatPresence("never", None), created, away) == created + away
    gone = SeatPresence("away", NOW - 9_000, away_since_ms=NOW - 8_000)
    assert away_due(gone, created, away) == NOW - 3_000
    here = SeatPresence("online", NOW, online_until_ms=NOW + WINDOW)
    assert away_due(here, created, away) == NOW + WINDOW + away
