"""The outbox's consumer groups hold the dispatchers alive, not every one ever started,
against real worker processes: a worker stopped cleanly leaves every group at once; a
SIGKILLed one's consumers are reaped by a live worker's sweep once idle with nothing
pending; a consumer with pending entries is never removed."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from typing import Any

import redis

from service.settings import Settings
from service.store.keys import OUTBOX_GROUP, OUTBOX_SHARDS, outbox_key
from service.store.outbox import Outbox
from tests.conftest import start_worker, stop_worker
from tests.helpers import wait_for


def _consumers(connection: redis.Redis) -> dict[str, set[str]]:
    """Each shard's consumers (shards without a group left out)."""
    out: dict[str, set[str]] = {}
    for shard in OUTBOX_SHARDS:
        try:
            rows: Any = connection.xinfo_consumers(outbox_key(shard), OUTBOX_GROUP)
        except redis.ResponseError:
            continue
        out[shard] = {r["name"].decode() for r in rows}
    return out


def _name(worker: Any) -> str:
    """A worker's dispatcher's consumer name (its process: host and pid)."""
    return f"{socket.gethostname()}-{worker.pid}"


def _in_groups(connection: redis.Redis, name: str) -> int:
    return sum(name in names for names in _consumers(connection).values())


def test_a_worker_stopped_cleanly_leaves_every_group(settings: Settings) -> None:
    connection = redis.Redis.from_url(settings.redis_url or "")
    # A long idle time: only the clean stop can remove the consumers here.
    worker = start_worker(settings.redis_url or "", STAKEOUT_CONSUMER_IDLE_SECONDS="3600")
    try:
        # Alone, it holds every shard and reads each as its consumer.
        wait_for(lambda: _in_groups(connection, _name(worker)) == len(OUTBOX_SHARDS))
    finally:
        stop_worker(worker)
    assert worker.returncode == 0
    assert _in_groups(connection, _name(worker)) == 0


def test_a_killed_workers_consumers_are_reaped(settings: Settings) -> None:
    connection = redis.Redis.from_url(settings.redis_url or "")
    url, idle = settings.redis_url or "", {"STAKEOUT_CONSUMER_IDLE_SECONDS": "1"}
    killed = start_worker(url, **idle)
    try:
        wait_for(lambda: _in_groups(connection, _name(killed)) == len(OUTBOX_SHARDS))
    finally:
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait()
    assert _in_groups(connection, _name(killed)) == len(OUTBOX_SHARDS)  # nobody left them
    live = start_worker(url, **idle)
    try:
        # The live one takes the shards over as the leases expire; its sweep (every 2 s)
        # removes the dead one's idle consumers, and only those.
        wait_for(lambda: _in_groups(connection, _name(killed)) == 0, timeout=60)
        wait_for(lambda: _in_groups(connection, _name(live)) == len(OUTBOX_SHARDS))
    finally:
        stop_worker(live)


def test_a_consumer_with_pending_entries_stays(settings: Settings) -> None:
    """Leaving a group is refused while entries read by the consumer are pending (they
    would become unclaimable); once they are acknowledged it leaves."""
    connection = redis.Redis.from_url(settings.redis_url or "")
    shard = OUTBOX_SHARDS[0]
    connection.xgroup_create(outbox_key(shard), OUTBOX_GROUP, id="0", mkstream=True)
    entry = connection.xadd(outbox_key(shard), {"g": "x", "f": 1, "l": 1, "t": 0, "s": ""})
    connection.xreadgroup(OUTBOX_GROUP, "gone", {outbox_key(shard): ">"})

    async def attempt() -> tuple[bool, int]:
        client = redis.asyncio.Redis.from_url(settings.redis_url or "")
        try:
            outbox = Outbox(client)
            return await outbox.leave(shard, "gone"), await outbox.reap(0)
        finally:
            await client.aclose()

    assert asyncio.run(attempt()) == (False, 0)
    assert _consumers(connection)[shard] == {"gone"}
    connection.xack(outbox_key(shard), OUTBOX_GROUP, entry)
    assert asyncio.run(attempt()) == (True, 0)  # left: nothing more to reap
    assert _consumers(connection)[shard] == set()
