"""Awaited turns of human seats, and their deadlines (the per-game ``turn_seconds`` option,
or the moment a clock's flag falls).

Every time a human seat becomes awaited (a new turn) it is recorded here; webhooks announce
new turns from this record, and games with turn deadlines give each turn a deadline.

When a human seat becomes awaited, it gets a deadline; a job scheduled on RQ for that
moment lets a bot act for the seat if it still has not (`domain.match.TimeOut`: a random
legal move with a ``turn.timed_out`` event for a public step, a forfeit for a sealed one).

The turns of a game live in one hash, ``game:{id}:deadlines``: seat → ``action|step|ms``
(``ms`` is 0 when the game has no deadlines). A turn is new when the seat's awaited action
or step changes, or when the seat itself just acted (a second turn in the same step). A
deadline job only fires if its deadline is still the seat's current one, so a superseded
job is harmless.

In a game with a clock (issue 34) a turn's deadline is the moment its seat's bank runs
out by the log's times (`domain.match.clocks.flag_ms`): the same job then makes a time-out
the rules accept only once the bank is empty, so a job that runs early waits for it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from domain.errors import DomainError
from domain.match import AwaitingAction, TimeOut
from domain.match.clocks import flag_ms
from service.play.game_service import GameService
from service.play.records import Loaded, Submission
from service.store.clients import AnyRedis
from service.store.keys import deadlines_key, timeout_idempotency


@dataclass(frozen=True)
class Deadline:
    seat: int
    action: str
    step: str
    at_ms: int

    def encode(self) -> str:
        return f"{self.action}|{self.step}|{self.at_ms}"

    @classmethod
    def decode(cls, seat: int, raw: str) -> Deadline:
        action, step, at_ms = raw.rsplit("|", 2)
        return cls(seat, action, step, int(at_ms))


def _matches(deadline: Deadline | None, action: AwaitingAction) -> bool:
    return deadline is not None and (deadline.action, deadline.step) == (action.action, action.step)


def plan(
    known: dict[int, Deadline],
    loaded: Loaded,
    now_ms: int,
    acted_seats: Collection[int] = (),
) -> tuple[list[Deadline], list[int]]:
    """What `refresh` would record (pure): the new turns, and the seats no longer awaited."""
    seconds = loaded.meta.turn_seconds
    awaited = {a.seat: a for a in loaded.awaited if loaded.match.seats[a.seat].type == "human"}
    fresh: list[Deadline] = []
    for seat, action in awaited.items():
        if _matches(known.get(seat), action) and seat not in acted_seats:
            continue
        if loaded.match.banks is not None:
            at_ms = flag_ms(loaded.match, seat) or 0
        else:
            at_ms = now_ms + seconds * 1000 if seconds is not None else 0
        fresh.append(Deadline(seat, action.action, action.step, at_ms))
    return fresh, [seat for seat in known if seat not in awaited]


def planned(
    known: dict[int, Deadline], loaded: Loaded, now_ms: int, acted_seats: Collection[int] = ()
) -> dict[int, Deadline]:
    """The turns as they will be recorded once `refresh` has run for this change."""
    fresh, stale = plan(known, loaded, now_ms, acted_seats)
    out = {seat: d for seat, d in known.items() if seat not in stale}
    out.update({d.seat: d for d in fresh})
    return out


def timed(loaded: Loaded) -> bool:
    """Whether the game's turns have deadlines: ``turn_seconds``, or a clock."""
    return loaded.meta.turn_seconds is not None or loaded.match.banks is not None


# The longest a time-out job waits for its moment when it runs early (a scheduler's tick).
EARLY_WAIT_MS = 2000


class DeadlineStore:
    """The recorded turns of every game (``game:{<id>}:deadlines``)."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def current(self, game_id: str) -> dict[int, Deadline]:
        raw = await self.redis.hgetall(deadlines_key(game_id))
        out: dict[int, Deadline] = {}
        for field, value in raw.items():
            seat = int(field.decode() if isinstance(field, bytes) else field)
            text = value.decode() if isinstance(value, bytes) else value
            out[seat] = Deadline.decode(seat, text)
        return out

    async def shown(self, loaded: Loaded, acted_seats: Collection[int] = ()) -> dict[int, Deadline]:
        """The turns of ``loaded`` as its change's follow-up records them: the recorded ones
        and those it is about to record (it runs just after the change was answered, so a
        read can come first; they are timed from the change, as the follow-up times them).
        Nothing in a game without turn deadlines, and in a game with a clock the moments
        its banks run out, from the snapshot (neither makes a round trip)."""
        if not timed(loaded):
            return {}
        if loaded.meta.turn_seconds is None:  # a clock: its deadlines are in the snapshot
            return {
                a.seat: Deadline(a.seat, a.action, a.step, flag_ms(loaded.match, a.seat) or 0)
                for a in loaded.awaited
                if a.seat in loaded.running
            }
        known = await self.current(loaded.game_id)
        return planned(known, loaded, loaded.changed_ms, acted_seats)

    async def refresh(
        self, loaded: Loaded, now_ms: int, acted_seats: Collection[int] = ()
    ) -> list[Deadline]:
        """Bring the game's awaited turns up to date; returns the new ones."""
        fresh, stale = await self.changes(loaded, now_ms, acted_seats)
        await self.record(loaded.game_id, fresh, stale)
        return fresh

    async def changes(
        self, loaded: Loaded, now_ms: int, acted_seats: Collection[int] = ()
    ) -> tuple[list[Deadline], list[int]]:
        """What `refresh` would record (nothing is written): the new turns, and the seats
        no longer awaited."""
        return plan(await self.current(loaded.game_id), loaded, now_ms, acted_seats)

    async def record(self, game_id: str, fresh: list[Deadline], stale: list[int]) -> None:
        """Record what `changes` found."""
        if stale:
            await self.redis.hdel(deadlines_key(game_id), *(str(seat) for seat in stale))
        if fresh:
            await self.redis.hset(
                deadlines_key(game_id), mapping={str(d.seat): d.encode() for d in fresh}
            )


async def time_out(
    games: GameService, turns: DeadlineStore, game_id: str, seat: int, at_ms: int
) -> str:
    """A seat's deadline ``at_ms`` passed: if it is still the seat's turn, a bot acts for it
    (`domain.match.TimeOut`). Says what happened."""
    known = (await turns.current(game_id)).get(seat)
    if known is None or known.at_ms != at_ms:
        return "superseded"
    act = TimeOut(seat, known.action, known.step)  # type: ignore[arg-type]
    early = at_ms - int(time.time() * 1000)
    if 0 < early <= EARLY_WAIT_MS:  # a clock's time-out is refused before its moment
        await asyncio.sleep(early / 1000)
    submission = Submission(game_id, act, key=timeout_idempotency(seat, at_ms))
    for _ in range(2):
        try:
            await games.act(submission)
        except DomainError:
            # A clock's bank is charged by the act's own time, which another process's
            # clock may put a moment before this one's: still the seat's turn and only just
            # early, the job waits for the moment the log will agree on, once.
            wait = await _early_by(games, seat, act, game_id)
            if wait is None:
                return "acted in time"
            await asyncio.sleep(wait / 1000)
            continue
        return "timed out"
    return "acted in time"


async def _early_by(games: GameService, seat: int, act: TimeOut, game_id: str) -> int | None:
    """How many ms early a refused clock's time-out was (at most `EARLY_WAIT_MS`), or None
    when it was refused for another reason (the seat acted, the game moved on)."""
    loaded = await games.load(game_id)
    if loaded.match.banks is None or seat not in loaded.running:
        return None
    if AwaitingAction(seat, act.action, act.step) not in loaded.awaited:
        return None
    due = flag_ms(loaded.match, seat)
    early = (due or 0) - int(time.time() * 1000)
    return max(1, early) if due is not None and early <= EARLY_WAIT_MS else None


def with_deadlines(
    awaiting: Sequence[AwaitingAction], deadlines: dict[int, Deadline]
) -> list[AwaitingAction]:
    """``awaiting`` with each seat's deadline (epoch ms) filled in where it has one."""
    out = []
    for action in awaiting:
        deadline = deadlines.get(action.seat)
        at = deadline.at_ms if _matches(deadline, action) and deadline is not None else None
        at = at or None  # 0: a turn without a deadline
        out.append(AwaitingAction(action.seat, action.action, action.step, at))
    return out
