"""A webhook worker's delivery loop: many deliveries at once, over one HTTP client.

`Deliverer.run` reads deliveries from the queue (service/notify/delivery_queue.py) and
makes each attempt in a task of its own, at most `DeliveryRules.concurrency` at a time and
half of that to one origin (so one slow receiver leaves room for the others), over the
process's one delivery client (service/notify/egress.py: public addresses only, connections
kept alive per origin). Each attempt is signed when it is made and has one overall deadline.
Finished attempts are gathered for a moment and then, together: recorded in their webhooks'
attempt logs (the event store), and settled in the queue (acknowledged, or moved to the due
set for their next attempt, at the backoff). So an attempt is recorded before its delivery
leaves the queue: a worker killed in between makes it again (at least once).

Besides, once a second: the consumer's alive beat, the retries that are due put back onto
the stream, and the pending entries of dead consumers taken over.

A failure of the queue's Redis or of the event store is waited out: what was read stays
pending (this consumer's, so no other takes it while this one beats), attempts already made
wait to be recorded and settled, and reading starts again once the Redis answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import msgspec
from redis.exceptions import RedisError

from service.notify import webhooks
from service.notify.delivery_client import DeliveryClient, delivery_target
from service.notify.delivery_queue import DeliveryConsumer, Queued, Retry
from service.notify.errors import WebhookUrlInvalid
from service.notify.webhooks import Attempt, Notification, Webhook, WebhookStore

log = logging.getLogger("stakeout.deliveries")

T = TypeVar("T")

# Failures that say a Redis did not answer: waited out.
TRANSIENT = (RedisError, OSError)
# Entries read and not yet settled, at most (those over an origin's share wait in memory).
HELD = 1_000
READ_BATCH = 200
BLOCK_MS = 1_000
# Finished attempts are recorded and settled together, this often at most.
SETTLE_SECONDS = 0.01
HOUSEKEEPING_SECONDS = 1.0
# This consumer's pending entries it does not hold (a read whose answer was lost) are looked
# for every this many housekeeping rounds, and taken once pending this long.
STRAYS_EVERY = 5
STRAY_IDLE_MS = 5_000
RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0, 4.0)

_NOTIFICATION = msgspec.json.Decoder(Notification)


@dataclass(frozen=True)
class DeliveryRules:
    """``backoff``: seconds before each retry (one retry each); ``timeout``: one attempt's
    overall deadline; ``concurrency``: attempts under way at once."""

    backoff: tuple[int, ...]
    timeout: float
    concurrency: int


@dataclass(frozen=True, slots=True)
class Finished:
    """An attempt made (``attempt`` None: the webhook was removed, nothing was sent)."""

    queued: Queued
    attempt: Attempt | None


@dataclass(slots=True)
class _Share:
    """An origin's share of the attempts: its semaphore, and the tasks using or awaiting it."""

    semaphore: asyncio.Semaphore
    users: int = 0


class Deliverer:
    def __init__(
        self,
        queue: DeliveryConsumer,
        hooks: WebhookStore,
        client: DeliveryClient,
        rules: DeliveryRules,
        host: str,
    ) -> None:
        self.queue = queue
        self.hooks = hooks
        self.client = client
        self.rules = rules
        self.host = host
        self._held: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._slots = asyncio.Semaphore(rules.concurrency)
        self._per_origin = max(1, rules.concurrency // 2)
        self._origins: dict[str, _Share] = {}
        self._finished: list[Finished] = []
        self._settling = asyncio.Lock()
        self._wake = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()

    @property
    def held(self) -> int:
        """Deliveries read and not yet settled."""
        return len(self._held)

    async def run(self, stopping: asyncio.Event) -> None:
        """Deliver until ``stopping`` is set; then let the attempts under way finish (within
        their deadline), record and settle them, and leave."""
        beating = asyncio.create_task(self._beating(stopping), name="deliveries-beat")
        settler = asyncio.create_task(self._settler(), name="deliveries-settler")
        chores = None
        try:
            await self._waiting_out(self.queue.ensure_group, stopping)
            await self._take_own_pending(stopping)
            chores = asyncio.create_task(self._chores(stopping), name="deliveries-chores")
            while not stopping.is_set():
                await _until(self._room.wait(), stopping)
                room = min(READ_BATCH, HELD - len(self._held))
                if stopping.is_set() or room <= 0:
                    continue
                entries = await self._waiting_out(
                    functools.partial(self.queue.read, room, BLOCK_MS), stopping
                )
                await self._take(entries or [])
        finally:
            await self._finish([t for t in (chores, settler, beating) if t is not None])

    async def _take_own_pending(self, stopping: asyncio.Event) -> None:
        """What an earlier process of this consumer's name read and never settled."""
        after = "0"
        while not stopping.is_set():
            entries = await self._waiting_out(
                functools.partial(self.queue.own_pending, after, READ_BATCH), stopping
            )
            if not entries:
                return
            await self._take(entries)
            after = entries[-1].entry_id

    async def _finish(self, helpers: list[asyncio.Task[None]]) -> None:
        """Let the attempts under way finish (within their deadline), record and settle
        what finished if the Redis answers soon (else it stays pending, and whoever takes
        it over makes it again), and leave."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=self.rules.timeout + 1)
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._settle_all(), timeout=5.0)
        for helper in helpers:
            helper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await helper
        with contextlib.suppress(*TRANSIENT):
            await self.queue.leave()

    async def _take(self, entries: list[Queued]) -> None:
        """Start an attempt for each entry (one already held is skipped)."""
        entries = [e for e in entries if e.entry_id not in self._held]
        if not entries:
            return
        for entry in entries:
            self._held.add(entry.entry_id)
        if len(self._held) >= HELD:
            self._room.clear()
        hooks = await self._retrying(lambda: self.hooks.get_many({e.webhook_id for e in entries}))
        for entry in entries:
            task = asyncio.create_task(self._deliver(entry, hooks[entry.webhook_id]))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _deliver(self, queued: Queued, hook: Webhook | None) -> None:
        attempt: Attempt | None = None
        if hook is not None:
            try:
                note = _NOTIFICATION.decode(queued.body)
            except msgspec.DecodeError:
                log.error("a delivery of webhook %s is not a notification", hook.id)
            else:
                attempt = await self._attempt(queued, hook, note)
        self._finished.append(Finished(queued, attempt))
        self._wake.set()

    async def _attempt(self, queued: Queued, hook: Webhook, note: Notification) -> Attempt:
        async with self._origin(hook.url), self._slots:
            try:
                outcome = await webhooks.post(
                    self.client,
                    hook.url,
                    queued.body,
                    webhooks.delivery_headers(hook.secret, note, queued.body),
                    self.rules.timeout,
                )
            except Exception as exc:  # a bug: a failed attempt (retried), not a lost one
                log.exception("delivery %s to webhook %s failed", note.id, hook.id)
                outcome = webhooks.DeliveryOutcome(None, f"{type(exc).__name__}: {exc}", 0.0)
        return Attempt(
            delivery_id=note.id,
            kind=note.kind,
            game_id=note.game_id,
            attempt=queued.attempt,
            at_ms=int(time.time() * 1000),
            duration_ms=int(outcome.seconds * 1000),
            status_code=outcome.status_code,
            error=outcome.error,
            delivered=outcome.delivered,
        )

    @contextlib.asynccontextmanager
    async def _origin(self, url: str) -> AsyncIterator[None]:
        """Within the share of the attempts one origin may have under way."""
        try:
            origin = delivery_target(url).key
        except WebhookUrlInvalid:
            origin = url
        share = self._origins.get(origin)
        if share is None:
            share = self._origins[origin] = _Share(asyncio.Semaphore(self._per_origin))
        share.users += 1
        try:
            async with share.semaphore:
                yield
        finally:
            share.users -= 1
            if not share.users:
                del self._origins[origin]

    async def _settler(self) -> None:
        while True:
            await self._wake.wait()
            await asyncio.sleep(SETTLE_SECONDS)  # gather what finishes meanwhile
            await self._settle_all()

    async def _settle_all(self) -> None:
        """Record and settle what finished (one batch at a time: stopping waits for the
        settler's batch before it settles the last one)."""
        async with self._settling:
            self._wake.clear()
            finished, self._finished = self._finished, []
            if not finished:
                return
            attempts = [(f.queued.webhook_id, f.attempt) for f in finished if f.attempt]
            await self._retrying(lambda: self.hooks.record_attempts(attempts))
            done, retries = self._outcomes(finished)
            await self._retrying(lambda: self.queue.settle(done, retries))
            for f in finished:
                self._held.discard(f.queued.entry_id)
            if len(self._held) < HELD:
                self._room.set()

    def _outcomes(self, finished: Iterable[Finished]) -> tuple[list[str], list[Retry]]:
        """The entries done with (delivered, out of retries, webhook removed), and the
        retries of the others."""
        now_ms = int(time.time() * 1000)
        backoff = self.rules.backoff
        done: list[str] = []
        retries: list[Retry] = []
        for f in finished:
            n = f.queued.attempt
            if f.attempt is None or f.attempt.delivered or n > len(backoff):
                done.append(f.queued.entry_id)
            else:
                retries.append(Retry(f.queued, now_ms + backoff[n - 1] * 1000))
        return done, retries

    async def _beating(self, stopping: asyncio.Event) -> None:
        """This consumer's alive beat, on its own: nothing else it does may delay it."""
        while not stopping.is_set():
            try:
                await self.queue.beat(self.host)
            except TRANSIENT as exc:
                log.warning("deliveries: queue Redis unavailable (%s: %s)", type(exc).__name__, exc)
            await _until(asyncio.sleep(HOUSEKEEPING_SECONDS), stopping)

    async def _chores(self, stopping: asyncio.Event) -> None:
        """Due retries back onto the stream; dead consumers' entries taken over; this
        consumer's own entries whose reading was lost taken again."""
        rounds = 0
        while not stopping.is_set():
            try:
                await self.queue.promote(int(time.time() * 1000))
                await self.client.close_expired()
                room = HELD - len(self._held)
                if room > 0:
                    await self._take(await self.queue.take_from_dead(room))
                if rounds % STRAYS_EVERY == 0:
                    held = set(self._held)
                    await self._take(await self.queue.own_strays(held, STRAY_IDLE_MS, HELD))
            except TRANSIENT as exc:
                log.warning("deliveries: queue Redis unavailable (%s: %s)", type(exc).__name__, exc)
            rounds += 1
            await _until(asyncio.sleep(HOUSEKEEPING_SECONDS), stopping)

    async def _retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, retried with backoff while a Redis does not answer."""
        failures = 0
        while True:
            try:
                return await call()
            except TRANSIENT as exc:
                delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                log.warning(
                    "deliveries: a Redis is unavailable (%s: %s); retrying in %.2f s",
                    type(exc).__name__,
                    exc,
                    delay,
                    exc_info=failures == 0,
                )
                failures += 1
                await asyncio.sleep(delay)

    async def _waiting_out(
        self, call: Callable[[], Awaitable[T]], stopping: asyncio.Event
    ) -> T | None:
        """``call()`` retried like `_retrying`, or None once ``stopping`` is set."""
        task = asyncio.ensure_future(self._retrying(call))
        await _until(asyncio.shield(task), stopping)
        if task.done():
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return None


async def _until(awaitable: Awaitable[object], stopping: asyncio.Event) -> None:
    """Wait for ``awaitable`` or for ``stopping``, whichever comes first."""
    work = asyncio.ensure_future(awaitable)
    stop = asyncio.ensure_future(stopping.wait())
    await asyncio.wait({work, stop}, return_when=asyncio.FIRST_COMPLETED)
    for task in (work, stop):
        if not task.done():
            task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await stop


__all__ = ["Deliverer", "DeliveryRules"]
