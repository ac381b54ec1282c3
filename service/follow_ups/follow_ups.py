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
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
import msgspec

from service.follow_ups import abandonment as abandon
from service.follow_ups.abandonment import ActivityIndex
from service.follow_ups.archiving import ArchiveDue
from service.follow_ups.jobs import (
    JobQueue,
    JobRequest,
    archive_job,
    away_job,
    deadline_job,
    jobs_for,
)
from service.notify import webhooks
from service.notify.account_feed import AccountFeed, for_feed, lifecycle, seats_of
from service.notify.delivery_queue import Delivery, DeliveryQueue, deliveries_for
from service.notify.webhooks import Webhook, WebhookStore
from service.play import deadlines
from service.play.away import AwayTurns
from service.play.deadlines import DeadlineStore
from service.play.presence import PresenceTracker
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


@dataclass(frozen=True)
class ChangeRecords:
    """What a change is recorded in besides its jobs and notices: the awaited turns and
    their deadlines, the sweep's activity index, each player's games (None: not indexed),
    the match's snapshots (None: none taken) and the ended games' archives due."""

    deadlines: DeadlineStore
    activity: ActivityIndex
    players: PlayerGames | None = None
    snapshots: Snapshots | None = None
    archive_due: ArchiveDue | None = None  # the ended games whose archive is due (the sweep's)
    away: AwayTurns | None = None  # away seats' turns (the games' away_seconds)
    presence: PresenceTracker | None = None  # the seats' presence, for seat.awaited


@dataclass(slots=True)
class Followed:
    """One change as its effects (`EFFECTS`) see it: the game as the change left it, the
    seats that acted, when, the events just appended; and what the effects gather on the
    way: the jobs and deliveries to queue, the turns to record."""

    loaded: Loaded
    acted_seats: Collection[int]
    at_ms: int
    events: Collection[Any]
    requests: list[JobRequest]
    deliveries: list[Delivery] = field(default_factory=list)
    turns: tuple[list[deadlines.Deadline], list[int]] | None = None


class FollowUp:
    """Works out and does one change's follow-up (the API's and the workers' own): each of
    `EFFECTS` in turn."""

    def __init__(
        self,
        jobs: JobQueue,
        store: EventStore,
        notifiers: Notifiers,
        records: ChangeRecords,
        archive_after_ms: int = 3600 * 1000,
    ) -> None:
        self.jobs = jobs
        self.players = records.players  # each player's games (their history), indexed here
        self.archive_after_ms = archive_after_ms
        self.archive_due = records.archive_due  # the sweep's look for lost archive jobs
        self.snapshots = records.snapshots
        self.store = store
        self.deadlines = records.deadlines
        self.activity = records.activity
        self.away = records.away
        self.presence = records.presence
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
        presence: dict[int, webhooks.NotifiedPresence] | None = None,
    ) -> list[webhooks.Notification]:
        """What this change notifies (webhooks and the account feed), seats named."""
        match = loaded.match
        result = loaded.result
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
        banks = loaded.engine.clocks(match, at_ms, loaded.running)
        if banks is not None:  # the awaited seat's bank, for "2 days left"
            notes = [
                msgspec.structs.replace(n, clock_remaining_ms=banks[n.seat])
                if n.kind == "seat.awaited" and n.seat is not None
                else n
                for n in notes
            ]
        if presence:  # seat.awaited says whether the seat's player is at the table
            notes = [
                msgspec.structs.replace(n, presence=presence.get(n.seat))
                if n.kind == "seat.awaited" and n.seat is not None
                else n
                for n in notes
            ]
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
        change = Followed(loaded, acted_seats, at_ms, events, jobs_for(loaded))
        for effect in EFFECTS:
            await effect(self, change)

    async def turns_and_notices(self, change: Followed) -> None:
        """The awaited turns' changes, their deadline jobs, the webhook deliveries and the
        account feed's entries."""
        loaded = change.loaded
        hooks = await self.hooks_of(loaded.meta.owner)
        feed_on = await self.feed.active(loaded.meta.owner)
        # Awaited turns are recorded for deadlines, webhooks' and the account feed's
        # seat.awaited; a game with none of these needs no record (a webhook registered
        # later announces the turns awaited then, as new).
        if (
            not deadlines.timed(loaded)
            and loaded.meta.away_seconds is None
            and not hooks
            and not feed_on
        ):
            return
        change.turns = await self.deadlines.changes(loaded, change.at_ms, change.acted_seats)
        fresh = change.turns[0]
        change.requests += [deadline_job(loaded.game_id, d) for d in fresh if d.at_ms]
        if hooks or feed_on:
            presence = await self._presence_of(loaded) if fresh else None
            notes = self._notes(loaded, change.at_ms, fresh, change.events, presence)
            change.deliveries = self._deliveries(notes, hooks)
            if feed_on:
                await self.feed.record(loaded.meta.owner, for_feed(notes))

    async def _presence_of(self, loaded: Loaded) -> dict[int, webhooks.NotifiedPresence] | None:
        """Each human seat's presence for seat.awaited (one read; None: presence off)."""
        if self.presence is None:
            return None
        found = await self.presence.of(loaded, max_age=0)
        if found is None:
            return None
        return {
            seat: webhooks.NotifiedPresence(p.status, p.last_seen_ms)
            for seat, p in enumerate(found)
            if p is not None
        }

    async def away_checks(self, change: Followed) -> None:
        """The new turns of a game with ``away_seconds``: an away check each, when the
        seat will have been away that long (service/play/away.py)."""
        if self.away is None or change.turns is None or change.loaded.meta.away_seconds is None:
            return
        fresh = [(d.seat, d.action, d.step) for d in change.turns[0]]
        for check in await self.away.checks(change.loaded, fresh):
            change.requests.append(away_job(change.loaded.game_id, check))

    async def retire(self, change: Followed) -> None:
        """A game played out or aborted leaves the active indexes."""
        if change.loaded.match.recorded is not None or change.loaded.match.aborted:
            await self.store.retire_game(change.loaded.game_id)

    async def index_players(self, change: Followed) -> None:
        """Each player's games (a round trip only when the events seat a player)."""
        if self.players is not None:
            await self.players.index(change.loaded, change.events)

    async def archive_when_ended(self, change: Followed) -> None:
        """A game that ended is archived once the window after this change has passed."""
        if abandon.ended(change.loaded):
            due = change.at_ms + self.archive_after_ms
            change.requests.append(
                archive_job(change.loaded.game_id, change.loaded.match.version, due)
            )
            if self.archive_due is not None:
                await self.archive_due.due(change.loaded.game_id, due)

    async def snapshot(self, change: Followed) -> None:
        """A snapshot of the match every STAKEOUT_SNAPSHOT_EVERY events."""
        if self.snapshots is not None:
            await self.snapshots.after_change(change.loaded, len(change.events))

    async def enqueue(self, change: Followed) -> None:
        """The jobs and deliveries the effects before gathered, on the queue Redis."""
        if change.requests or change.deliveries:
            await anyio.to_thread.run_sync(self._enqueue, change.requests, change.deliveries)

    async def record_turns(self, change: Followed) -> None:
        """The new awaited turns, as the deadlines and notices after this change compare."""
        if change.turns is not None:
            await self.deadlines.record(change.loaded.game_id, *change.turns)

    def _enqueue(self, requests: list[JobRequest], deliveries: list[Delivery]) -> None:
        """On the queue Redis (synchronous clients, on a thread): the jobs, the deliveries."""
        if requests:
            self.jobs.enqueue(requests)
        if deliveries:
            self.deliveries.enqueue(deliveries)

    async def record_activity(self, change: Followed) -> None:
        """The sweep's activity index (service/follow_ups/abandonment.py): write the game's
        last change to the activity index, at most once an
        `ACTIVITY_EVERY_MS` per game and process (it was a round trip for every act), and
        at once when the game ended. The index then lags a game's last move by at most that
        long: the sweep judges idleness in minutes (a recent game) and abandonment in
        hours or days (`STAKEOUT_ABANDON_SECONDS`)."""
        loaded, at_ms = change.loaded, change.at_ms
        game_id = loaded.game_id
        last = self._activity.get(game_id)
        if last is not None and 0 <= at_ms - last < ACTIVITY_EVERY_MS and not abandon.ended(loaded):
            return
        await self.activity.record_change(loaded, Change(None, at_ms))
        if len(self._activity) >= 65536:
            self._activity.clear()
        self._activity[game_id] = at_ms


# A change's follow-up: each effect once, in the order they run. A new effect is a method
# of `FollowUp` and one line here. The order is the rule: the jobs and deliveries are queued
# (`enqueue`) after every effect that adds one; the new turns are recorded last, so a
# follow-up that failed before that (the queue's Redis away) finds them new again when it
# is retried, and queues their deadline jobs and notifications then (each once: their ids
# are the same).
Effect = Callable[[FollowUp, Followed], Awaitable[None]]
EFFECTS: tuple[Effect, ...] = (
    FollowUp.turns_and_notices,
    FollowUp.away_checks,
    FollowUp.retire,
    FollowUp.index_players,
    FollowUp.archive_when_ended,
    FollowUp.snapshot,
    FollowUp.record_activity,
    FollowUp.enqueue,
    FollowUp.record_turns,
)
