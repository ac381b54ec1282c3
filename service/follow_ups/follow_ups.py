"""After every change of a game: the jobs, turn records, webhook deliveries and account-feed
entries its new state calls for.

In the API this runs off the request path (`FollowUps`, see docs/design-move-path.md): an
act's answer never waits for it, and a failure here never turns a stored act into an error.
No stuck games: if a process dies between an append and its follow-up, the periodic sweep
(service/follow_ups/sweep.py) finds the games whose awaited work has no live job and
enqueues it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import msgspec

from service.follow_ups import abandonment as abandon
from service.follow_ups.abandonment import ActivityIndex
from service.follow_ups.jobs import (
    WEBHOOK_QUEUE,
    JobQueue,
    JobRequest,
    archive_job,
    deadline_job,
    jobs_for,
)
from service.notify import webhooks
from service.notify.account_feed import AccountFeed, for_feed, lifecycle, seats_of
from service.notify.webhooks import Webhook, WebhookStore
from service.play import deadlines
from service.play.deadlines import DeadlineStore
from service.play.records import Change, Loaded
from service.play.snapshots import Snapshots
from service.store.event_store import EventStore
from service.telemetry.metrics import FOLLOW_UP_FAILURES

log = logging.getLogger("stakeout.scheduling")

HOOKS_TTL_SECONDS = 1.0
# How often a process writes one game's last change to the activity index at most.
ACTIVITY_EVERY_MS = 10_000


@dataclass(frozen=True)
class Notifiers:
    """Where a change is announced: the API keys' webhooks (with the deliveries' backoff)
    and their account feeds."""

    webhooks: WebhookStore
    feed: AccountFeed
    webhook_backoff: tuple[int, ...] = (5, 30, 120, 600, 1800)


class FollowUp:
    """Works out and does one change's follow-up (the API's and the workers' own)."""

    def __init__(
        self,
        jobs: JobQueue,
        store: EventStore,
        turns: DeadlineStore,
        activity: ActivityIndex,
        notifiers: Notifiers,
        archive_after_ms: int = 3600 * 1000,
        snapshots: Snapshots | None = None,
    ) -> None:
        self.jobs = jobs
        self.archive_after_ms = archive_after_ms
        self.snapshots = snapshots
        self.store = store
        self.deadlines = turns
        self.activity = activity
        self.webhooks = notifiers.webhooks
        self.feed = notifiers.feed
        self.webhook_backoff = notifiers.webhook_backoff
        self._hooks: dict[str, tuple[float, list[Webhook]]] = {}
        # game id -> the change time this process last wrote to the activity index
        self._activity: dict[str, int] = {}

    async def hooks_of(self, owner: str) -> list[Webhook]:
        """The owner's webhooks, read at most once a `HOOKS_TTL_SECONDS` per process: a
        game's every change needs them, and they change rarely (a webhook registered now
        is notified of changes from at most that long after)."""
        now = time.monotonic()
        known = self._hooks.get(owner)
        if known is not None and now - known[0] < HOOKS_TTL_SECONDS:
            return known[1]
        hooks = await self.webhooks.of(owner)
        if len(self._hooks) >= 4096:
            self._hooks.clear()
        self._hooks[owner] = (now, hooks)
        return hooks

    def _notes(
        self,
        loaded: Loaded,
        at_ms: int,
        fresh: list[deadlines.Deadline],
        events: Collection[Any],
    ) -> list[webhooks.Notification]:
        """What this change notifies (webhooks and the account feed), seats named."""
        match = loaded.match
        result = loaded.engine.result(match)
        finished = (result.scores, result.winners) if result and match.recorded is None else None
        recorded = match.recorded
        notes = webhooks.notifications(
            loaded.game_id,
            match.version,
            at_ms,
            [(d.seat, d.action, d.step, d.at_ms or None) for d in fresh],
            finished,
            (recorded.scores, recorded.winners) if recorded is not None else None,
            ended="abandoned" if match.abandoned else "aborted" if match.aborted else None,
        )
        notes = [*lifecycle(loaded, list(events), at_ms), *notes]
        seats = seats_of(loaded)
        return [msgspec.structs.replace(n, seats=seats) for n in notes]

    def _deliveries(
        self, notes: list[webhooks.Notification], hooks: list[Webhook]
    ) -> list[JobRequest]:
        return [
            JobRequest(
                WEBHOOK_QUEUE,
                "workers.jobs.deliver_webhook",
                (hook.id, msgspec.json.encode(note).decode()),
                f"wh-{hook.id}-{note.id}",
                retry_intervals=self.webhook_backoff,
            )
            for note in notes
            for hook in hooks
            if webhooks.wanted(hook, note)
        ]

    async def follow_up(
        self,
        loaded: Loaded,
        acted_seats: Collection[int],
        at_ms: int,
        events: Collection[Any] = (),
    ) -> None:
        """The jobs, turn records, webhook deliveries and account-feed entries a
        game's new state calls for (``events``: those just appended)."""
        requests = jobs_for(loaded)
        hooks = await self.hooks_of(loaded.meta.owner)
        feed_on = await self.feed.active(loaded.meta.owner)
        # Awaited turns are recorded for deadlines, webhooks' and the account feed's
        # seat.awaited; a game with none of these needs no record (a webhook registered
        # later announces the turns awaited then, as new).
        if loaded.meta.turn_seconds is not None or hooks or feed_on:
            fresh = await self.deadlines.refresh(loaded, at_ms, acted_seats)
            requests += [deadline_job(loaded.game_id, d) for d in fresh if d.at_ms]
            if hooks or feed_on:
                notes = self._notes(loaded, at_ms, fresh, events)
                requests += self._deliveries(notes, hooks)
                if feed_on:
                    await self.feed.record(loaded.meta.owner, for_feed(notes))
        if loaded.match.recorded is not None or loaded.match.aborted:
            await self.store.retire_game(loaded.game_id)
        if abandon.ended(loaded):  # archived once the window after this change has passed
            due = at_ms + self.archive_after_ms
            requests.append(archive_job(loaded.game_id, loaded.match.version, due))
        if self.snapshots is not None:  # every STAKEOUT_SNAPSHOT_EVERY events
            await self.snapshots.after_change(loaded, len(events))
        # The sweep's activity index: when the game last moved
        # (service/follow_ups/abandonment.py).
        await self._record_activity(loaded, at_ms)
        if requests:
            await anyio.to_thread.run_sync(self.jobs.enqueue, requests)

    async def _record_activity(self, loaded: Loaded, at_ms: int) -> None:
        """Write the game's last change to the activity index, at most once an
        `ACTIVITY_EVERY_MS` per game and process (it was a round trip for every act), and
        at once when the game ended. The index then lags a game's last move by at most that
        long: the sweep judges idleness in minutes (a recent game) and abandonment in
        hours or days (`STAKEOUT_ABANDON_SECONDS`)."""
        game_id = loaded.game_id
        last = self._activity.get(game_id)
        if last is not None and 0 <= at_ms - last < ACTIVITY_EVERY_MS and not abandon.ended(loaded):
            return
        await self.activity.record_change(loaded, Change(None, at_ms))
        if len(self._activity) >= 65536:
            self._activity.clear()
        self._activity[game_id] = at_ms

    async def on_change(self, loaded: Loaded, change: Change) -> None:
        """Inline follow-up (the workers: a job's follow-ups are done before it returns)."""
        acted = () if change.acted_seat is None else (change.acted_seat,)
        try:
            await self.follow_up(loaded, acted, change.at_ms, change.events)
        except Exception:  # the act is stored: the sweep redoes what failed here
            FOLLOW_UP_FAILURES.inc()
            log.warning(
                "follow-up of game %s v%d failed; the sweep will redo it",
                loaded.game_id,
                loaded.match.version,
                exc_info=True,
            )


@dataclass
class _Pending:
    loaded: Loaded
    acted: set[int]
    at_ms: int
    events: list[Any] = dataclasses.field(default_factory=list)
    attempts: int = 0
    not_before: float = 0.0


FOLLOW_UP_TASK = "stakeout-follow-ups"


class FollowUps:
    """Follow-up work, off the request path (the API's `GameService.on_change`).

    `submit` costs no round trip: it records the game's latest snapshot (the seats that
    acted since the last run are merged, so a burst of acts on one game costs one run) and
    wakes one background task, which runs `RqScheduler.follow_up` for each game. A run that
    fails (the queue Redis is down) is kept and retried with backoff, unless a newer change
    of the game replaces it; a process that dies with work pending leaves it to the sweep,
    which finds every awaited bot turn and deadline without a live job.
    """

    RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0, 4.0)

    def __init__(
        self, run: Callable[[Loaded, Collection[int], int, Collection[Any]], Awaitable[None]]
    ) -> None:
        self._run = run
        self._pending: dict[str, _Pending] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._busy = 0

    async def submit(self, loaded: Loaded, change: Change) -> None:
        game_id = loaded.game_id
        acted = {change.acted_seat} if change.acted_seat is not None else set()
        events = list(change.events)
        known = self._pending.get(game_id)
        if known is not None:
            acted |= known.acted
            events = [*known.events, *events]
            if known.loaded.match.version > loaded.match.version:
                loaded = known.loaded
        self._pending[game_id] = _Pending(
            loaded, acted, max(change.at_ms, known.at_ms if known else 0), events
        )
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._loop(), name=FOLLOW_UP_TASK)

    @property
    def pending(self) -> int:
        return len(self._pending) + self._busy

    async def _loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            now = time.monotonic()
            due = [g for g, p in self._pending.items() if p.not_before <= now]
            for game_id in due:
                work = self._pending.pop(game_id)
                self._busy += 1
                try:
                    await self._run(work.loaded, work.acted, work.at_ms, work.events)
                except Exception:
                    FOLLOW_UP_FAILURES.inc()
                    delay = self.RETRY_SECONDS[min(work.attempts, len(self.RETRY_SECONDS) - 1)]
                    log.warning(
                        "follow-up of game %s v%d failed (attempt %d); retrying in %.2f s",
                        game_id,
                        work.loaded.match.version,
                        work.attempts + 1,
                        delay,
                        exc_info=work.attempts == 0,
                    )
                    if game_id not in self._pending:  # else a newer change replaces it
                        work.attempts += 1
                        work.not_before = time.monotonic() + delay
                        self._pending[game_id] = work
                finally:
                    self._busy -= 1
            if self._pending:
                wait = min(p.not_before for p in self._pending.values()) - time.monotonic()
                if wait > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), wait)
                self._wake.set()

    async def drain(self, timeout: float) -> bool:
        """Wait until nothing is pending (or ``timeout``); True when drained."""
        deadline = time.monotonic() + timeout
        while self.pending and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return not self.pending

    async def close(self, timeout: float = 5.0) -> None:
        await self.drain(timeout)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
