"""After every change of a game: the jobs, turn records, webhook deliveries and account-feed
entries its new state calls for.

The dispatchers on the workers (service/follow_ups/dispatcher.py) run `FollowUp.follow_up`
for each entry of the outbox, in the order of a game's versions, with the game as that
change left it. Everything it does is idempotent (deterministic job ids, notification ids
the account feed de-duplicates, turn records compared with what is awaited), so an entry
followed up twice (a dispatcher that died before acknowledging it) does no harm.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import msgspec

from service.follow_ups import abandonment as abandon
from service.follow_ups.abandonment import ActivityIndex
from service.follow_ups.archiving import ArchiveDue
from service.follow_ups.jobs import JobQueue, JobRequest, archive_job, deadline_job, jobs_for
from service.notify import webhooks
from service.notify.account_feed import AccountFeed, for_feed, lifecycle, seats_of
from service.notify.delivery_queue import Delivery, DeliveryQueue, deliveries_for
from service.notify.webhooks import Webhook, WebhookStore
from service.play import deadlines
from service.play.deadlines import DeadlineStore
from service.play.records import Change, Loaded
from service.play.snapshots import Snapshots
from service.players.player_games import PlayerGames
from service.store.event_store import EventStore

log = logging.getLogger("stakeout.scheduling")

HOOKS_TTL_SECONDS = 1.0
# How often a process writes one game's last change to the activity index at most.
ACTIVITY_EVERY_MS = 10_000


@dataclass(frozen=True)
class Notifiers:
    """Where a change is announced: the API keys' webhooks (their deliveries queued for
    the webhook workers) and their account feeds."""

    webhooks: WebhookStore
    deliveries: DeliveryQueue
    feed: AccountFeed


class FollowUp:
    """Works out and does one change's follow-up (the API's and the workers' own)."""

    def __init__(
        self,
        jobs: JobQueue,
        store: EventStore,
        turns: DeadlineStore,
        activity: ActivityIndex,
        notifiers: Notifiers,
        players: PlayerGames | None = None,
        archive_after_ms: int = 3600 * 1000,
        archive_due: ArchiveDue | None = None,
        snapshots: Snapshots | None = None,
    ) -> None:
        self.jobs = jobs
        self.players = players  # each player's games (their history), indexed here
        self.archive_after_ms = archive_after_ms
        self.archive_due = archive_due  # the sweep's look for lost archive jobs
        self.snapshots = snapshots
        self.store = store
        self.deadlines = turns
        self.activity = activity
        self.webhooks = notifiers.webhooks
        self.feed = notifiers.feed
        self.deliveries = notifiers.deliveries
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

    @staticmethod
    def _deliveries(notes: list[webhooks.Notification], hooks: list[Webhook]) -> list[Delivery]:
        """One delivery per webhook that wants a notification. Queued once each, however
        often the change is followed up (service/notify/delivery_queue.py)."""
        return deliveries_for(notes, hooks)

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
        deliveries: list[Delivery] = []
        hooks = await self.hooks_of(loaded.meta.owner)
        feed_on = await self.feed.active(loaded.meta.owner)
        turns: tuple[list[deadlines.Deadline], list[int]] | None = None
        # Awaited turns are recorded for deadlines, webhooks' and the account feed's
        # seat.awaited; a game with none of these needs no record (a webhook registered
        # later announces the turns awaited then, as new).
        if loaded.meta.turn_seconds is not None or hooks or feed_on:
            turns = await self.deadlines.changes(loaded, at_ms, acted_seats)
            fresh = turns[0]
            requests += [deadline_job(loaded.game_id, d) for d in fresh if d.at_ms]
            if hooks or feed_on:
                notes = self._notes(loaded, at_ms, fresh, events)
                deliveries = self._deliveries(notes, hooks)
                if feed_on:
                    await self.feed.record(loaded.meta.owner, for_feed(notes))
        if loaded.match.recorded is not None or loaded.match.aborted:
            await self.store.retire_game(loaded.game_id)
        if self.players is not None:  # a round trip only when events seat a player
            await self.players.index(loaded, events)
        if abandon.ended(loaded):  # archived once the window after this change has passed
            due = at_ms + self.archive_after_ms
            requests.append(archive_job(loaded.game_id, loaded.match.version, due))
            if self.archive_due is not None:
                await self.archive_due.due(loaded.game_id, due)
        if self.snapshots is not None:  # every STAKEOUT_SNAPSHOT_EVERY events
            await self.snapshots.after_change(loaded, len(events))
        # The sweep's activity index: when the game last moved
        # (service/follow_ups/abandonment.py).
        await self._record_activity(loaded, at_ms)
        if requests or deliveries:
            await anyio.to_thread.run_sync(self._enqueue, requests, deliveries)
        # The new turns are recorded last: a follow-up that failed before this (the queue's
        # Redis away) finds them new again when it is retried, and queues their deadline
        # jobs and notifications then (each once: their ids are the same).
        if turns is not None:
            await self.deadlines.record(loaded.game_id, *turns)

    def _enqueue(self, requests: list[JobRequest], deliveries: list[Delivery]) -> None:
        """On the queue Redis (synchronous clients, on a thread): the jobs, the deliveries."""
        if requests:
            self.jobs.enqueue(requests)
        if deliveries:
            self.deliveries.enqueue(deliveries)

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
