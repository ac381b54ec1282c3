"""The queue of webhook deliveries, on the queue Redis: a stream, its consumer group, a set of
retries by due time. The design and its failure cases: docs/follow-ups.md, "Webhook
deliveries".

- **Queued once.** A follow-up queues a change's deliveries (`DeliveryQueue.enqueue`) in one
  script: each (webhook, notification) is noted in the game's ``queued`` hash
  (``HSETNX``, kept `QUEUED_SECONDS` after the game's last delivery) and added to the
  stream only if it was not there already, so a change followed up twice (a dispatcher
  that died before acknowledging it) queues nothing twice.
- **Taken by a consumer group.** Webhook workers read the stream with the group
  ``deliverers`` (`DeliveryConsumer.read`), one consumer per process (``<host>-<pid>``).
  An entry read stays pending, its consumer's, until it is settled.
- **Settled in one step.** After an attempt (`DeliveryConsumer.settle`), an entry is
  acknowledged and deleted from the stream; one whose attempt failed and that has retries
  left goes, in the same script, to the due set (``ZADD``, due at its backoff), as the next
  attempt. Due retries go back onto the stream (`DeliveryConsumer.promote`), again in one
  script. A delivery is thus always in exactly one place: the stream or the due set.
- **A dead consumer's entries are taken over.** A consumer whose process no longer beats
  its alive key (``stakeout:worker-alive:<host>-<pid>``, 5 s) and that has not read for
  `DEAD_IDLE_MS` is dead: a live one claims its pending entries (``XCLAIM``) and delivers
  them (`DeliveryConsumer.take_from_dead`). A process that starts under the name of a dead
  one (a container's pid repeats) first takes its own pending entries
  (`DeliveryConsumer.own_pending`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import redis
import redis.asyncio
from redis.exceptions import ResponseError

from service.notify.webhooks import Notification, Webhook, wanted
from service.store.keys import (
    DELIVERIES,
    DELIVERIES_DUE,
    DELIVERY_GROUP,
    deliverer_alive_key,
    deliveries_queued_key,
    worker_alive_key,
)

# How long a game's queued deliveries are remembered after its last one: far longer than a
# dispatcher takes to follow an entry up again (seconds; minutes if the queue Redis was down).
QUEUED_SECONDS = 3600
# A consumer that beats no more and has not read for this long is dead.
DEAD_IDLE_MS = 5_000
ALIVE_SECONDS = 5
HOST_ALIVE_SECONDS = 10

# KEYS[1] the stream, KEYS[2] the game's queued hash; ARGV[1] that hash's TTL (s), then for
# each delivery: its field (<webhook>|<notification id>), the webhook, the body.
_ENQUEUE = """
local added = 0
for i = 2, #ARGV, 3 do
  if redis.call('HSETNX', KEYS[2], ARGV[i], 1) == 1 then
    redis.call('XADD', KEYS[1], '*', 'h', ARGV[i + 1], 'n', ARGV[i + 2], 'a', 1)
    added = added + 1
  end
end
redis.call('EXPIRE', KEYS[2], ARGV[1])
return added
"""

# KEYS[1] the stream, KEYS[2] the due set; ARGV[1] the group, ARGV[2] how many entries are
# done, then their ids, then for each retry: its entry id, when it is due (ms), the member.
# An entry already deleted was settled by another holder (one that took it over): its retry
# is not scheduled twice.
_SETTLE = """
local done = tonumber(ARGV[2])
for i = 3, 2 + done do
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[i])
  redis.call('XDEL', KEYS[1], ARGV[i])
end
for i = 3 + done, #ARGV, 3 do
  redis.call('XACK', KEYS[1], ARGV[1], ARGV[i])
  if redis.call('XDEL', KEYS[1], ARGV[i]) == 1 then
    redis.call('ZADD', KEYS[2], ARGV[i + 1], ARGV[i + 2])
  end
end
return 0
"""

# KEYS[1] the due set, KEYS[2] the stream; ARGV[1] now (ms), ARGV[2] at most this many.
# A member is <attempt>|<webhook>|<body>.
_PROMOTE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, member in ipairs(due) do
  local a = string.find(member, '|', 1, true)
  local h = string.find(member, '|', a + 1, true)
  redis.call('XADD', KEYS[2], '*', 'h', string.sub(member, a + 1, h - 1),
    'n', string.sub(member, h + 1), 'a', string.sub(member, 1, a - 1))
  redis.call('ZREM', KEYS[1], member)
end
return #due
"""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One notification for one webhook, as a follow-up queues it."""

    webhook_id: str
    notification_id: str
    game_id: str
    body: bytes  # the notification's JSON


def deliveries_for(notes: Sequence[Notification], hooks: Sequence[Webhook]) -> list[Delivery]:
    """One delivery per webhook that wants a notification (pure). Queued once each, however
    often it is asked for (`DeliveryQueue.enqueue`)."""
    return [
        Delivery(hook.id, note.id, note.game_id, msgspec.json.encode(note))
        for note in notes
        for hook in hooks
        if wanted(hook, note)
    ]


@dataclass(frozen=True, slots=True)
class Queued:
    """A delivery taken from the stream: its entry, and which attempt this is (from 1)."""

    entry_id: str
    webhook_id: str
    body: bytes
    attempt: int


@dataclass(frozen=True, slots=True)
class Retry:
    """A failed attempt's next one, due at ``due_ms``."""

    queued: Queued
    due_ms: int


class DeliveryQueue:
    """Queues deliveries: the follow-ups' side, over a synchronous client of the queue Redis
    (called on a thread, as RQ's enqueues are)."""

    def __init__(self, connect: Callable[[], redis.Redis]) -> None:
        self._connect = connect
        self._redis: redis.Redis | None = None
        self._enqueue: Any = None
        self._lock = threading.Lock()  # follow-ups enqueue from several threads

    def enqueue(self, deliveries: Sequence[Delivery]) -> int:
        """Queue each delivery unless it was queued already; how many were new."""
        with self._lock:
            if self._redis is None:
                self._redis = self._connect()
                self._enqueue = self._redis.register_script(_ENQUEUE)
        by_game: dict[str, list[Delivery]] = {}
        for delivery in deliveries:
            by_game.setdefault(delivery.game_id, []).append(delivery)
        added = 0
        for game_id, of_game in by_game.items():
            args: list[Any] = [QUEUED_SECONDS]
            for d in of_game:
                args += [f"{d.webhook_id}|{d.notification_id}", d.webhook_id, d.body]
            keys = [DELIVERIES, deliveries_queued_key(game_id)]
            added += int(self._enqueue(keys=keys, args=args))
        return added

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()
            self._redis = None


class DeliveryConsumer:
    """One webhook worker process's side of the queue: read, settle, retry, take over."""

    def __init__(self, redis_client: redis.asyncio.Redis, name: str) -> None:
        self.redis = redis_client
        self.name = name
        self._settle = redis_client.register_script(_SETTLE)
        self._promote = redis_client.register_script(_PROMOTE)

    async def ensure_group(self) -> None:
        """The group (made with the stream when missing, reading it from its start)."""
        try:
            await self.redis.xgroup_create(DELIVERIES, DELIVERY_GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def read(self, count: int, block_ms: int) -> list[Queued]:
        """New entries for this consumer (waiting up to ``block_ms`` for the first)."""
        return await self._read(">", count, block_ms)

    async def own_pending(self, after: str, count: int) -> list[Queued]:
        """Entries already this consumer's (read by an earlier process of the same name),
        from the one after ``after`` ("0": from the first)."""
        return await self._read(after, count, None)

    async def _read(self, start: str, count: int, block_ms: int | None) -> list[Queued]:
        try:
            rows: Any = await self.redis.xreadgroup(
                DELIVERY_GROUP, self.name, {DELIVERIES: start}, count=count, block=block_ms
            )
        except ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            await self.ensure_group()  # the queue Redis lost it (emptied, or no persistence)
            return []
        return [q for _key, entries in rows or [] for q in _queued(entries)]

    async def settle(self, done: Sequence[str], retries: Sequence[Retry]) -> None:
        """Acknowledge and delete the entries ``done``; move the ``retries`` to the due set."""
        if not done and not retries:
            return
        args: list[Any] = [DELIVERY_GROUP, len(done), *done]
        for retry in retries:
            q = retry.queued
            member = f"{q.attempt + 1}|{q.webhook_id}|".encode() + q.body
            args += [q.entry_id, retry.due_ms, member]
        await self._settle(keys=[DELIVERIES, DELIVERIES_DUE], args=args)

    async def promote(self, now_ms: int, limit: int = 500) -> int:
        """Put the retries due by ``now_ms`` back onto the stream; how many."""
        moved = 0
        while True:
            keys = [DELIVERIES_DUE, DELIVERIES]
            batch = int(await self._promote(keys=keys, args=[now_ms, limit]))
            moved += batch
            if batch < limit:
                return moved

    async def beat(self, host: str) -> None:
        """This consumer is alive (and a webhook worker runs on ``host``: the probe's)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(worker_alive_key(self.name), "1", ex=ALIVE_SECONDS)
        pipe.set(deliverer_alive_key(host), "1", ex=HOST_ALIVE_SECONDS)
        await pipe.execute()

    async def leave(self) -> None:
        """This consumer stops: what it still holds may be taken over at once."""
        await self.redis.delete(worker_alive_key(self.name))

    async def take_from_dead(self, count: int, dead_idle_ms: int = DEAD_IDLE_MS) -> list[Queued]:
        """The pending entries of dead consumers (no alive beat, no read for
        ``dead_idle_ms``), claimed for this one; dead consumers holding nothing are removed
        from the group."""
        consumers: Any = await self.redis.xinfo_consumers(DELIVERIES, DELIVERY_GROUP)
        taken: list[Queued] = []
        for consumer in consumers:
            name = _text(consumer["name"])
            if name == self.name or int(consumer["idle"]) < dead_idle_ms:
                continue
            if await self.redis.exists(worker_alive_key(name)):
                continue
            if not int(consumer["pending"]):
                # Nothing pending: removing it loses nothing (it never reads again).
                await self.redis.xgroup_delconsumer(DELIVERIES, DELIVERY_GROUP, name)
                continue
            rows: Any = await self.redis.xpending_range(
                DELIVERIES, DELIVERY_GROUP, "-", "+", count, consumername=name
            )
            ids = [row["message_id"] for row in rows]
            # Idle at least this long: another live consumer that claimed them first reset
            # their idle time, so they are not taken twice.
            claimed: Any = await self.redis.xclaim(
                DELIVERIES, DELIVERY_GROUP, self.name, dead_idle_ms // 2, ids
            )
            taken += _queued(claimed)
        return taken

    async def own_strays(self, held: Collection[str], min_idle_ms: int, count: int) -> list[Queued]:
        """Entries this consumer holds in the group but not in memory, pending for at least
        ``min_idle_ms``: read (or claimed) by a command whose answer was lost (the queue
        Redis went away mid-reply). Claimed again, so they are delivered."""
        rows: Any = await self.redis.xpending_range(
            DELIVERIES, DELIVERY_GROUP, "-", "+", count, consumername=self.name, idle=min_idle_ms
        )
        ids: list[Any] = [i for i in (_text(r["message_id"]) for r in rows) if i not in held]
        if not ids:
            return []
        claimed: Any = await self.redis.xclaim(DELIVERIES, DELIVERY_GROUP, self.name, 0, ids)
        return _queued(claimed)

    async def backlog(self) -> tuple[int, int]:
        """Deliveries in the stream (waiting or being made), and retries waiting."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.xlen(DELIVERIES)
        pipe.zcard(DELIVERIES_DUE)
        queued, due = await pipe.execute()
        return int(queued), int(due)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _queued(rows: Any) -> list[Queued]:
    out = []
    for entry_id, fields in rows or []:
        if not fields:  # deleted meanwhile (settled by another holder): nothing to do
            continue
        out.append(
            Queued(_text(entry_id), _text(fields[b"h"]), bytes(fields[b"n"]), int(fields[b"a"]))
        )
    return out


__all__ = [
    "Delivery",
    "DeliveryConsumer",
    "DeliveryQueue",
    "Queued",
    "Retry",
    "deliveries_for",
]
