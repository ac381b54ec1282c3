"""The dispatcher: follows up every outbox entry (service/store/outbox.py), in order, once done.

Each worker process that takes game jobs runs one (workers/main.py). A dispatcher holds the
shards it has a lease on and, for each, reads the entries with the outbox's consumer group,
runs `FollowUp.follow_up` for each in order with the game as that change left it, then
acknowledges the batch. So:

- **Nothing is lost.** An entry is acknowledged only after its follow-up ran; a dispatcher
  that dies leaves its entries pending, and whoever takes its shard next (its lease expires
  within `LEASE_MS`) takes them over first (``XAUTOCLAIM``).
- **Follow-ups run in a game's order.** One dispatcher at a time holds a shard, and a
  shard's entries of a game are in version order; a follow-up compares what is awaited with
  the turns recorded so far, so its order matters.
- **At least once, harmlessly.** An entry followed up but not yet acknowledged when its
  dispatcher died is followed up again; every effect is idempotent (job ids, notification
  ids, turn records).
- **A follow-up that fails for want of a Redis is retried in place** (the queue's Redis is
  down, say), with backoff, and the shard waits: what comes after it stays in order.
- **One that fails otherwise** (a game that cannot be loaded, a bug) is tried again once at
  once (`PARK_AFTER` tries in all: waiting would not mend it, and the shard waits meanwhile),
  then parked: copied to the shard's ``parked`` stream with its error, logged and counted,
  and the shard goes on. An entry of a game that no longer exists is dropped.
- **It leaves the shards' consumer groups when it stops cleanly** (`Outbox.leave`); the
  sweep reaps the consumers of dispatchers that did not (`Outbox.reap`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable

from redis.exceptions import RedisError

from service.follow_ups.follow_ups import FollowUp
from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.play.records import Loaded
from service.store.keys import OUTBOX_SHARDS
from service.store.outbox import LEASE_MS, Outbox, OutboxEntry
from service.telemetry.metrics import FOLLOW_UP_FAILURES, OUTBOX_FOLLOWED, OUTBOX_PARKED

log = logging.getLogger("stakeout.dispatcher")

# Failures that say a Redis did not answer: retried for as long as it takes.
TRANSIENT = (RedisError, OSError)

BATCH = 100
BLOCK_MS = 1_000
RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0, 4.0)
PARK_AFTER = 2
TRIM_SECONDS = 5.0
# The games' states as their last change followed up here left them (a follow-up folds
# only the next change onto it).
KEPT_STATES = 4096


# Given the holders of shards this dispatcher could not take, those known dead (blocking:
# it runs on a thread). The workers' lifelines know (workers/recovery.py).
DeadHolders = Callable[[frozenset[str]], frozenset[str]]


class Dispatcher:
    def __init__(
        self,
        outbox: Outbox,
        games: GameService,
        follow_up: FollowUp,
        name: str,
        dead: DeadHolders | None = None,
    ) -> None:
        self.outbox = outbox
        self.games = games
        self.follow_up = follow_up
        self.name = name
        self.dead = dead
        self._states: OrderedDict[str, Loaded] = OrderedDict()
        self._shards: dict[str, asyncio.Task[None]] = {}

    @property
    def shards(self) -> list[str]:
        """The shards this dispatcher holds now."""
        return sorted(self._shards)

    async def run(self, stopping: asyncio.Event) -> None:
        """Hold what shards it can and follow them up, until ``stopping`` is set; then give
        the shards back (another dispatcher takes them at once)."""
        try:
            while not stopping.is_set():
                await self._hold_shards()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stopping.wait(), LEASE_MS / 3000)
        finally:
            for task in self._shards.values():
                task.cancel()
            for shard, task in self._shards.items():
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                with contextlib.suppress(Exception):
                    await self.outbox.release(shard, self.name)
                # Out of the shard's group too (unless entries it read are pending: the
                # next holder takes them over, and the sweep reaps the consumer after).
                with contextlib.suppress(Exception):
                    await self.outbox.leave(shard, self.name)
            self._shards.clear()

    async def _hold_shards(self) -> None:
        """Renew the leases held, take the free ones and those of dead holders; a shard
        whose lease was lost (this process stalled past it) stops being followed here."""
        others: dict[str, str] = {}
        for shard in OUTBOX_SHARDS:
            try:
                holder = await self.outbox.take(shard, self.name)
            except Exception:  # the store did not answer: keep what runs, try again
                log.warning("could not renew the lease of outbox shard %s", shard, exc_info=True)
                continue
            if holder is None:
                self._start(shard)
            else:
                others[shard] = holder
        for shard, holder in (await self._of_the_dead(others)).items():
            # Let go only if the dead one still holds it (compare and delete), then take it.
            with contextlib.suppress(Exception):
                await self.outbox.release(shard, holder)
                if await self.outbox.lease(shard, self.name):
                    log.warning("outbox shard %s taken over from %s, which died", shard, holder)
                    self._start(shard)
                    del others[shard]
        for shard in others:
            task = self._shards.pop(shard, None)
            if task is not None:
                task.cancel()

    async def _of_the_dead(self, others: dict[str, str]) -> dict[str, str]:
        """The shards of ``others`` whose holders are known dead (none when nobody says)."""
        if self.dead is None or not others:
            return {}
        try:
            dead = await asyncio.to_thread(self.dead, frozenset(others.values()))
        except Exception:  # not knowing is no reason to stop: the leases expire anyway
            log.warning("could not tell whether outbox shard holders live", exc_info=True)
            return {}
        return {shard: holder for shard, holder in others.items() if holder in dead}

    def _start(self, shard: str) -> None:
        """Follow ``shard`` up here, unless that is under way."""
        task = self._shards.get(shard)
        if task is not None and not task.done():
            return
        if task is not None and not task.cancelled() and task.exception() is not None:
            log.warning("outbox shard %s stopped", shard, exc_info=task.exception())
        self._shards[shard] = asyncio.get_running_loop().create_task(
            self._follow(shard), name=f"outbox-{shard}"
        )

    async def _follow(self, shard: str) -> None:
        await self.outbox.ensure_group(shard)
        # What a dispatcher before this one read and never acknowledged, first.
        await self._follow_batch(shard, await self.outbox.take_over(shard, self.name))
        trimmed = time.monotonic()
        while True:
            entries = await self.outbox.read(shard, self.name, BATCH, BLOCK_MS)
            await self._follow_batch(shard, entries)
            if time.monotonic() - trimmed > TRIM_SECONDS:
                await self.outbox.trim(shard)
                trimmed = time.monotonic()

    async def _follow_batch(self, shard: str, entries: list[OutboxEntry]) -> None:
        for entry in entries:
            await self._follow_entry(entry)
        await self.outbox.ack(shard, [e.entry_id for e in entries])

    async def _follow_entry(self, entry: OutboxEntry) -> None:
        """One entry's follow-up, retried until it runs (or its game is gone)."""
        attempt = 0
        while True:
            try:
                await self._follow_up(entry)
                OUTBOX_FOLLOWED.inc()
                return
            except GameNotFound:
                log.warning("outbox entry of a game that is gone: %s", entry.game_id)
                return
            except Exception as exc:
                FOLLOW_UP_FAILURES.inc()
                if not isinstance(exc, TRANSIENT) and attempt + 1 >= PARK_AFTER:
                    log.error("outbox entry of game %s parked", entry.game_id, exc_info=True)
                    await self._park(entry, exc)
                    return
                waits = isinstance(exc, TRANSIENT)
                delay = RETRY_SECONDS[min(attempt, len(RETRY_SECONDS) - 1)] if waits else 0.0
                log.warning(
                    "follow-up of game %s v%d failed (attempt %d); retrying in %.2f s",
                    entry.game_id,
                    entry.last,
                    attempt + 1,
                    delay,
                    exc_info=attempt == 0,
                )
                attempt += 1
                await asyncio.sleep(delay)

    async def _park(self, entry: OutboxEntry, exc: Exception) -> None:
        """Set the entry aside (the store answers: else it is retried like any failure)."""
        while True:
            try:
                await self.outbox.park(entry, f"{type(exc).__name__}: {exc}")
                OUTBOX_PARKED.inc()
                return
            except TRANSIENT:
                await asyncio.sleep(RETRY_SECONDS[-1])

    async def _follow_up(self, entry: OutboxEntry) -> None:
        before = self._states.get(entry.game_id)
        loaded, events = await self.games.change(entry.game_id, entry.first, entry.last, before)
        acted = () if entry.seat is None else (entry.seat,)
        await self.follow_up.follow_up(loaded, acted, entry.at_ms, [v.event for v in events])
        self._states[entry.game_id] = loaded
        self._states.move_to_end(entry.game_id)
        while len(self._states) > KEPT_STATES:
            self._states.popitem(last=False)


__all__ = ["Dispatcher"]
