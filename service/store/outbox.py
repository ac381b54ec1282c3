"""The outbox: every change of a game leaves one entry, written by the script that appends it.

A change sets work off: a bot's turn, a deadline, webhook deliveries, account-feed entries,
scoring. The append script and the creation script (service/store/scripts/streams.py) add one
entry to an outbox shard in the same step as the events (the transactional outbox), so the
work is recorded exactly when the change is: an API process that dies right after its
answer loses nothing. Dispatchers on the workers (service/follow_ups/dispatcher.py) read
the shards with a consumer group, do the work and acknowledge it.

An entry: ``g`` the game, ``f`` and ``l`` the first and last versions appended, ``t`` when
(epoch ms), ``s`` the seat that acted ("" for a creation or an act of nobody's seat).

**Shards.** A fixed set of streams (`service.store.keys.OUTBOX_SHARDS`), each with its own
hash tag, at evenly spaced hash slots. A game's entries always go to the same shard, so a
shard's entries of one game are in the order of its versions, and one dispatcher at a time
holds a shard (a lease): a game's changes are followed up in order. On a plain Redis the
shard is the game id's hash. On Redis Cluster a script may only touch keys of the node it
runs on (the game's): the game's shard is chosen among the shards that node holds, so every
master needs one (`NoLocalShard` says when one has none; with slots in ranges of at least a
sixteenth each, every master has). Moving slots between nodes can move a game to another
shard; its entries written before and after the move may then be followed up out of order,
once (the follow-ups are idempotent).

**Leases.** ``outbox:{<shard>}:owner`` holds the dispatcher that reads the shard, for
`LEASE_MS` at a time, renewed while it runs. A dispatcher that dies leaves its lease to
expire, or to be let go sooner by a dispatcher that learns its holder is dead (the
workers' lifelines tell, workers/recovery.py); the next one takes the shard and its
unacknowledged entries (``XAUTOCLAIM``).

**Parked entries.** An entry whose follow-up keeps failing for another reason than a Redis
away (a game that cannot be loaded) is set aside in ``outbox:{<shard>}:parked`` with its
error, so the entries after it are not held up (service/follow_ups/dispatcher.py).

**Consumers.** Each dispatcher reads as a consumer of its own name (its process's) in the
group of every shard it held. A consumer is not removed by Redis, so a dispatcher that stops
cleanly leaves the groups (`Outbox.leave`), and the sweep removes consumers idle for long
with nothing pending (`Outbox.reap`): a SIGKILLed dispatcher's ones, once the next holder
took its entries over. A consumer leaves only with nothing pending (in one script), so no
entry is ever lost to it; the groups hold the dispatchers alive, and a few that just went.

**Trimming.** Entries acknowledged by the group are removed (``XTRIM MINID``) up to the
oldest one still pending, so a shard holds only what is not followed up yet.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import ResponseError

from service.store.clients import AnyRedis
from service.store.keys import (
    OUTBOX_GROUP,
    OUTBOX_SHARDS,
    events_key,
    outbox_key,
    outbox_owner_key,
    outbox_parked_key,
)
from service.store.scripts.leases import DROP_LEASE, LEAVE_GROUP, TAKE_LEASE

LEASE_MS = 5_000


class NoLocalShard(Exception):
    """The Redis Cluster node of a game holds no outbox shard (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    shard: str
    entry_id: str
    game_id: str
    first: int
    last: int
    at_ms: int
    seat: int | None


@dataclass(frozen=True, slots=True)
class Consumer:
    """A consumer of a shard's group: its name, its pending entries, and how long since it
    last read (ms)."""

    name: str
    pending: int
    idle_ms: int


@dataclass(frozen=True, slots=True)
class ShardLag:
    """A shard's backlog: entries not yet read by the group, and read but unacknowledged."""

    shard: str
    lag: int
    pending: int


class Outbox:
    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis
        self._lease = redis.register_script(TAKE_LEASE)
        self._release = redis.register_script(DROP_LEASE)
        self._leave = redis.register_script(LEAVE_GROUP)

    def shard_of(self, game_id: str) -> str:
        """The key of the shard that ``game_id``'s entries go to (see the module docstring)."""
        spread = zlib.crc32(game_id.encode())
        if not isinstance(self.redis, RedisCluster):
            return outbox_key(OUTBOX_SHARDS[spread % len(OUTBOX_SHARDS)])
        nodes = self.redis.nodes_manager
        node = nodes.get_node_from_slot(key_slot(events_key(game_id).encode()))
        local = [
            shard
            for shard in OUTBOX_SHARDS
            if nodes.get_node_from_slot(key_slot(outbox_key(shard).encode())).name == node.name
        ]
        if not local:
            raise NoLocalShard(f"the cluster node {node.name} holds no outbox shard")
        return outbox_key(local[spread % len(local)])

    async def ensure_group(self, shard: str) -> None:
        """The shard's consumer group (made with the shard when missing, from its start)."""
        try:
            await self.redis.xgroup_create(outbox_key(shard), OUTBOX_GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def lease(self, shard: str, owner: str, ttl_ms: int = LEASE_MS) -> bool:
        """Take or renew ``shard``'s lease for ``owner``; False when another holds it."""
        return await self.take(shard, owner, ttl_ms) is None

    async def take(self, shard: str, owner: str, ttl_ms: int = LEASE_MS) -> str | None:
        """`lease`, saying who holds the shard when it is not ``owner`` (None when it is)."""
        taken: Any = await self._lease(keys=[outbox_owner_key(shard)], args=[owner, ttl_ms])
        return None if taken == 1 else bytes(taken).decode()

    async def release(self, shard: str, owner: str) -> None:
        await self._release(keys=[outbox_owner_key(shard)], args=[owner])

    async def leave(self, shard: str, consumer: str) -> bool:
        """``consumer`` leaves ``shard``'s group, unless it holds pending entries (another
        dispatcher takes those over first); False when it stays."""
        try:
            left = await self._leave(keys=[outbox_key(shard)], args=[OUTBOX_GROUP, consumer])
        except ResponseError as exc:
            if "NOGROUP" in str(exc):
                return True  # no group: nobody is in it
            raise
        return int(left) >= 0

    async def consumers(self, shard: str) -> list[Consumer]:
        """The consumers of ``shard``'s group (none without a group)."""
        try:
            rows: Any = await self.redis.xinfo_consumers(outbox_key(shard), OUTBOX_GROUP)
        except ResponseError:  # no stream or no group yet
            return []
        return [Consumer(_text(r["name"]), int(r["pending"]), int(r["idle"])) for r in rows]

    async def reap(self, idle_ms: int) -> int:
        """Remove the consumers idle for ``idle_ms`` or more with nothing pending (dispatchers
        that are gone), never a shard's lease holder; how many."""
        reaped = 0
        for shard in OUTBOX_SHARDS:
            holder = await self.redis.get(outbox_owner_key(shard))
            for consumer in await self.consumers(shard):
                if consumer.pending or consumer.idle_ms < idle_ms:
                    continue
                if holder is not None and _text(holder) == consumer.name:
                    continue
                reaped += await self.leave(shard, consumer.name)
        return reaped

    async def read(
        self, shard: str, consumer: str, count: int, block_ms: int | None
    ) -> list[OutboxEntry]:
        """New entries for ``consumer`` (waiting up to ``block_ms`` for the first)."""
        rows: Any = await self.redis.xreadgroup(
            OUTBOX_GROUP, consumer, {outbox_key(shard): ">"}, count=count, block=block_ms
        )
        return [e for _key, entries in rows or [] for e in _entries(shard, entries)]

    async def take_over(self, shard: str, consumer: str, count: int = 500) -> list[OutboxEntry]:
        """Every entry of ``shard`` read but never acknowledged (by a dispatcher that died),
        now ``consumer``'s, oldest first."""
        taken: list[OutboxEntry] = []
        start = "0-0"
        while True:
            reply: Any = await self.redis.xautoclaim(
                outbox_key(shard), OUTBOX_GROUP, consumer, 0, start_id=start, count=count
            )
            start, entries = _text(reply[0]), reply[1]
            taken += _entries(shard, entries)
            if start == "0-0" or not entries:
                return taken

    async def park(self, entry: OutboxEntry, error: str) -> None:
        """Set ``entry`` aside in its shard's ``parked`` stream, with why (an operator's to
        look at); it is acknowledged with its batch."""
        await self.redis.xadd(
            outbox_parked_key(entry.shard),
            {
                "g": entry.game_id,
                "f": entry.first,
                "l": entry.last,
                "t": entry.at_ms,
                "s": "" if entry.seat is None else entry.seat,
                "entry": entry.entry_id,
                "error": error[:1000],
            },
        )

    async def ack(self, shard: str, entry_ids: Sequence[str]) -> None:
        if entry_ids:
            await self.redis.xack(outbox_key(shard), OUTBOX_GROUP, *entry_ids)

    async def trim(self, shard: str) -> None:
        """Drop the acknowledged entries: those before the oldest pending one, or, with none
        pending, those the group has read."""
        key = outbox_key(shard)
        summary: Any = await self.redis.xpending(key, OUTBOX_GROUP)
        oldest = summary.get("min") if summary and summary.get("pending") else None
        if oldest is None:
            groups: Any = await self.redis.xinfo_groups(key)
            group = next((g for g in groups if _text(g["name"]) == OUTBOX_GROUP), None)
            if group is None:
                return
            last = _text(group["last-delivered-id"])
            if last == "0-0":
                return
            milliseconds, sequence = (int(p) for p in last.split("-"))
            oldest = f"{milliseconds}-{sequence + 1}"
        await self.redis.xtrim(key, minid=_text(oldest), approximate=False)

    async def lag(self) -> list[ShardLag]:
        """Each shard's backlog, in one pipelined round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for shard in OUTBOX_SHARDS:
            pipe.xlen(outbox_key(shard))
            pipe.xinfo_groups(outbox_key(shard))
        replies = await pipe.execute(raise_on_error=False)
        return [
            _lag(shard, replies[2 * i], replies[2 * i + 1]) for i, shard in enumerate(OUTBOX_SHARDS)
        ]


def _lag(shard: str, length: Any, groups: Any) -> ShardLag:
    """A shard's lag from its length and its groups (an error: no shard yet)."""
    if isinstance(groups, Exception) or isinstance(length, Exception):
        return ShardLag(shard, 0, 0)
    group = next((g for g in groups if _text(g["name"]) == OUTBOX_GROUP), None)
    if group is None:  # nobody reads it yet: all of it waits
        return ShardLag(shard, int(length), 0)
    return ShardLag(shard, int(group.get("lag") or 0), int(group["pending"]))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _entries(shard: str, rows: Any) -> list[OutboxEntry]:
    out = []
    for entry_id, fields in rows or []:
        if not fields:  # deleted meanwhile (trimmed): nothing to follow up
            continue
        seat = _text(fields.get(b"s", b""))
        out.append(
            OutboxEntry(
                shard,
                _text(entry_id),
                _text(fields[b"g"]),
                int(fields[b"f"]),
                int(fields[b"l"]),
                int(fields[b"t"]),
                int(seat) if seat else None,
            )
        )
    return out


__all__ = ["LEASE_MS", "Consumer", "NoLocalShard", "Outbox", "OutboxEntry", "ShardLag"]
