"""Turn a loaded game into what one caller may see. The only way state leaves the server."""

from __future__ import annotations

import time
from collections.abc import Sequence

from domain.match import AwaitingAction
from service.play.access import Caller
from service.play.deadlines import Deadline, with_deadlines
from service.play.presence import SeatPresence
from service.play.records import Loaded, Versioned
from service.players.ratings import rated_places
from service.views.schemas import (
    EventRecord,
    GameStatus,
    GameSummary,
    GameView,
    Presence,
    RematchLink,
    SeatClock,
    SeatInfo,
    Substitution,
)


def game_view(
    loaded: Loaded,
    caller: Caller,
    awaiting: list[AwaitingAction],
    presence: Sequence[SeatPresence | None] | None = None,
    now_ms: int | None = None,
) -> GameView:
    """The caller's view; ``awaiting`` with the turns' deadlines (`awaiting_of`), the
    seats with their ``presence`` (`PresenceTracker.of`; None: off); its clocks as of
    ``now_ms`` (default: now; a past version's view: its own time)."""
    engine, match, seat = loaded.engine, loaded.match, caller.seat
    now = int(time.time() * 1000) if now_ms is None else now_ms
    return GameView(
        id=loaded.game_id,
        game=engine.game.name,
        version=match.version,
        status=status_of(loaded),
        you=seat,
        seats=seat_infos(loaded, presence, now),
        awaiting=awaiting,
        legal=engine.legal(match, seat),
        state=engine.view(match, seat),
        result=loaded.result,
        rematch=RematchLink(match.rematch) if match.rematch is not None else None,
        server_time_ms=now,
        clock=match.clock,
    )


def awaiting_of(loaded: Loaded, turn_deadlines: dict[int, Deadline]) -> list[AwaitingAction]:
    """The seats awaited, each with its turn's deadline where it has one."""
    return with_deadlines(loaded.awaited, turn_deadlines)


def summary_of(loaded: Loaded, created_ms: int) -> GameSummary:
    """A game as the game list and the lobby show it: what a spectator's view says of it,
    without the state and the legal moves; and the places ratings count (`rated_places`)."""
    result = loaded.result
    return GameSummary(
        id=loaded.game_id,
        game=loaded.engine.game.name,
        status=status_of(loaded),
        version=loaded.match.version,
        created_ms=created_ms,
        seats=seat_infos(loaded),
        awaiting=with_deadlines(loaded.awaited, {}),
        result=result,
        rated_places=None if result is None else rated_places(result.places, loaded.match),
    )


def status_of(loaded: Loaded) -> GameStatus:
    if loaded.match.abandoned:
        return "abandoned"
    if loaded.match.aborted:
        return "aborted"
    if loaded.match.waiting:
        return "waiting"
    return "finished" if loaded.result is not None else "active"


def seat_infos(
    loaded: Loaded,
    presence: Sequence[SeatPresence | None] | None = None,
    now_ms: int | None = None,
) -> list[SeatInfo]:
    """Who plays each seat now: a resigned seat shows the bot that took it over; with
    ``presence``, whether each seat's player is at the table. In a game with a clock,
    each seat's bank at ``now_ms`` (default: the game's last change)."""
    resigned = set(loaded.match.resigned)
    seats = loaded.match.seats
    # Presence off: no call per seat (a view is made for every act's answer and read).
    at_table = (
        [at_table_of(p) for p in presence] if presence is not None else [(None, None)] * len(seats)
    )
    clocks = seat_clocks(loaded, loaded.changed_ms if now_ms is None else now_ms)
    return [
        SeatInfo(
            i,
            s.type,
            s.level,
            resigned=i in resigned,
            name=s.name,
            external_id=s.external_id,
            open=s.type == "open",
            presence=at_table[i][0],
            substituted=at_table[i][1],
            clock=clocks[i] if clocks else None,
        )
        for i, s in enumerate(seats)
    ]


def at_table_of(presence: SeatPresence | None) -> tuple[Presence | None, Substitution | None]:
    """A seat's presence and, while a bot plays for it, since when: as views and the
    ``presence`` message show them."""
    if presence is None:
        return None, None
    since = presence.substituted_since_ms
    shown = Presence(presence.status, presence.last_seen_ms)
    return shown, None if since is None else Substitution(since)


def seat_clocks(loaded: Loaded, now_ms: int) -> list[SeatClock] | None:
    """Each seat's bank at ``now_ms``, and whether it runs; None without a clock."""
    if loaded.match.banks is None:
        return None
    running = loaded.running
    banks = loaded.engine.clocks(loaded.match, now_ms, running) or []
    return [SeatClock(left, seat in running) for seat, left in enumerate(banks)]


def event_records(loaded: Loaded, events: Sequence[Versioned], caller: Caller) -> list[EventRecord]:
    redact = loaded.engine.redact
    return [EventRecord(e.version, redact(e.event, caller.seat), e.at_ms) for e in events]
