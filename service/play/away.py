"""Someone leaves: the game option ``away_seconds`` (issue #34 §3).

When the game awaits a human seat whose player has been away (service/play/presence.py)
that long, the seat's turn is played as a time-out: the same act as a passed turn
deadline (`domain.match.TimeOut`: a bot's random legal move after a ``turn.timed_out``
event, or a forfeit in a sealed step), recorded in the log as every act is. So are the
seat's next turns while the player stays away: each is due at once. The seat is not
resigned: once the player is online again, its next turn waits for them as before.

Each new awaited turn of a human seat in such a game gets an away check, an RQ job
scheduled for the moment the seat will have been away long enough if nobody sees it
meanwhile (`away_due`). The check looks again: the turn still awaited and the seat away
long enough, it times the turn out (its idempotency key: the seat and the game's version,
so a check run twice acts once); seen meanwhile, it asks for another check at the new
moment; the turn over, it does nothing.

A seat that was never seen counts as away since the game was created. The moment the
first such turn was played is kept in the presence hash (``a<seat>``) for the view's
``seats[i].substituted``, shown until the player is back.
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.errors import DomainError
from domain.match import TimeOut
from service.play.game_service import GameService
from service.play.presence import PresenceTracker, SeatPresence, now_ms
from service.play.records import Loaded, Submission
from service.store.keys import away_idempotency


def away_due(presence: SeatPresence, created_ms: int, away_ms: int) -> int:
    """When the seat will have been away ``away_ms`` if it is not seen again (pure)."""
    if presence.status == "online" and presence.online_until_ms is not None:
        return presence.online_until_ms + away_ms
    if presence.status == "away" and presence.away_since_ms is not None:
        return presence.away_since_ms + away_ms
    return created_ms + away_ms  # never seen: away since the game began


@dataclass(frozen=True, slots=True)
class AwayCheck:
    """An awaited turn of a human seat, and when it is to be checked (epoch ms)."""

    seat: int
    action: str
    step: str
    due_ms: int


def checks_for(
    loaded: Loaded, seats: list[tuple[int, str, str]], presence: list[SeatPresence | None] | None
) -> list[AwayCheck]:
    """The away checks of new awaited turns ``(seat, action, step)`` (pure): none unless
    the game has ``away_seconds`` and presence is on."""
    away = loaded.meta.away_seconds
    if away is None or presence is None:
        return []
    out = []
    for seat, action, step in seats:
        found = presence[seat] if seat < len(presence) else None
        if found is not None:
            due = away_due(found, loaded.meta.created_ms, away * 1000)
            out.append(AwayCheck(seat, action, step, due))
    return out


class AwayTurns:
    """Away checks of one process: the game service and the seats' presence."""

    def __init__(self, games: GameService, presence: PresenceTracker) -> None:
        self.games = games
        self.presence = presence

    async def checks(self, loaded: Loaded, seats: list[tuple[int, str, str]]) -> list[AwayCheck]:
        """The away checks of new awaited turns (a presence read only in a game with
        ``away_seconds``)."""
        if loaded.meta.away_seconds is None or not seats:
            return []
        return checks_for(loaded, seats, await self.presence.of(loaded, max_age=0))

    async def check(
        self, game_id: str, seat: int, action: str, step: str
    ) -> tuple[str, int | None]:
        """The check of one turn: what happened, and when to check again (None: never)."""
        loaded = await self.games.load(game_id)
        awaited = any((a.seat, a.action, a.step) == (seat, action, step) for a in loaded.awaited)
        if not awaited or loaded.match.seats[seat].type != "human":
            return "superseded", None
        if seat in loaded.match.resigned:
            return "superseded", None
        found = checks_for(loaded, [(seat, action, step)], await self.presence.of(loaded, 0))
        if not found:
            return "off", None
        now = now_ms()
        if found[0].due_ms > now:
            return "seen meanwhile", found[0].due_ms
        presence = await self.presence.of(loaded, max_age=1.0)
        current = presence[seat] if presence is not None else None
        since = current.substituted_since_ms if current is not None else None
        await self.presence.substituted(game_id, seat, since or now)
        act = TimeOut(seat, action, step)  # type: ignore[arg-type]
        key = away_idempotency(seat, loaded.match.version)
        try:
            await self.games.act(Submission(game_id, act, key=key))
        except DomainError:
            return "acted meanwhile", None
        return "played while away", None
