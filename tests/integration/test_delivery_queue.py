"""The webhook deliveries' queue (service/notify/delivery_queue.py) against a real Valkey: a
delivery is queued once however often its change is followed up, is always in exactly one
place (the stream or the due set), and a dead consumer's deliveries are taken over."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import redis
import redis.asyncio
from prometheus_client.parser import text_string_to_metric_families

from service.notify.delivery_queue import Delivery, DeliveryConsumer, DeliveryQueue, Retry
from service.notify.webhooks import Notification
from service.store.keys import DELIVERIES, DELIVERIES_DUE, DELIVERY_GROUP, worker_alive_key


def _deliveries(game: str, hooks: list[str], versions: range) -> list[Delivery]:
    out = []
    for version in versions:
        note = Notification(
            id=f"{game}-{version}-awaited-0",
            kind="seat.awaited",
            game_id=game,
            version=version,
            at_ms=1,
            seat=0,
        )
        out += [Delivery(h, note.id, game, msgspec.json.encode(note)) for h in hooks]
    return out


def _run(scenario: Callable[[redis.asyncio.Redis], Awaitable[None]], url: str) -> None:
    """``scenario`` with an asyncio client of the queue Redis at ``url``."""

    async def with_client() -> None:
        client = redis.asyncio.Redis.from_url(url)
        try:
            await scenario(client)
        finally:
            await client.aclose()

    asyncio.run(with_client())


def test_a_change_followed_up_twice_queues_its_deliveries_once(clean_redis: str) -> None:
    queue = DeliveryQueue(lambda: redis.Redis.from_url(clean_redis))
    try:
        first = _deliveries("g1", ["h1", "h2"], range(2, 5))
        assert queue.enqueue(first) == 6
        assert queue.enqueue(first) == 0  # the dispatcher followed the same change up again
        # ...and a later change of the same game, with one delivery of before in it
        assert queue.enqueue(_deliveries("g1", ["h1"], range(4, 6))) == 1
        assert queue.enqueue(_deliveries("g2", ["h1"], range(4, 5))) == 1  # another game
        check = redis.Redis.from_url(clean_redis)
        rows: Any = check.xrange(DELIVERIES)
        fields = [f for _, f in rows]
        check.close()
        assert [(f[b"h"], msgspec.json.decode(f[b"n"])["id"], f[b"a"]) for f in fields] == [
            (b"h1", "g1-2-awaited-0", b"1"),
            (b"h2", "g1-2-awaited-0", b"1"),
            (b"h1", "g1-3-awaited-0", b"1"),
            (b"h2", "g1-3-awaited-0", b"1"),
            (b"h1", "g1-4-awaited-0", b"1"),
            (b"h2", "g1-4-awaited-0", b"1"),
            (b"h1", "g1-5-awaited-0", b"1"),
            (b"h1", "g2-4-awaited-0", b"1"),
        ]
    finally:
        queue.close()


def test_a_delivery_is_settled_or_retried_in_one_place(clean_redis: str) -> None:
    async def scenario(queue_redis: redis.asyncio.Redis) -> None:
        DeliveryQueue(lambda: redis.Redis.from_url(clean_redis)).enqueue(
            _deliveries("g1", ["h1"], range(2, 5))
        )
        consumer = DeliveryConsumer(queue_redis, "c1")
        await consumer.ensure_group()
        taken = await consumer.read(10, 100)
        assert [q.attempt for q in taken] == [1, 1, 1]
        due = int(time.time() * 1000) + 300
        await consumer.settle([taken[0].entry_id], [Retry(taken[1], due)])
        # The third is still pending (this consumer's), the first gone, the second due later.
        assert await queue_redis.xlen(DELIVERIES) == 1
        pending = await queue_redis.xpending(DELIVERIES, DELIVERY_GROUP)
        assert pending["pending"] == 1
        assert await queue_redis.zcard(DELIVERIES_DUE) == 1
        assert await consumer.promote(due - 1) == 0
        assert await consumer.promote(due) == 1
        assert await queue_redis.zcard(DELIVERIES_DUE) == 0
        again = await consumer.read(10, 100)
        assert [(q.webhook_id, q.body, q.attempt) for q in again] == [
            (taken[1].webhook_id, taken[1].body, 2)
        ]
        # Settling an entry twice (two holders after a takeover) schedules its retry once.
        await consumer.settle([], [Retry(again[0], due)])
        await consumer.settle([], [Retry(again[0], due)])
        assert await queue_redis.zcard(DELIVERIES_DUE) == 1
        assert await consumer.read(10, 100) == []

    _run(scenario, clean_redis)


def test_a_dead_consumers_deliveries_are_taken_over_once(clean_redis: str) -> None:
    async def scenario(queue_redis: redis.asyncio.Redis) -> None:
        DeliveryQueue(lambda: redis.Redis.from_url(clean_redis)).enqueue(
            _deliveries("g1", ["h1"], range(2, 6))
        )
        dead, alive, other = (DeliveryConsumer(queue_redis, n) for n in ("dead", "alive", "other"))
        await dead.ensure_group()
        await dead.beat("host")
        await alive.beat("host")
        held = await dead.read(10, 100)
        assert len(held) == 4
        await asyncio.sleep(0.3)
        # Still beating: nothing is taken.
        assert await alive.take_from_dead(100, dead_idle_ms=200) == []
        await queue_redis.delete(worker_alive_key("dead"))
        # Not idle for long enough yet: nothing either.
        assert await alive.take_from_dead(100, dead_idle_ms=60_000) == []
        taken = await alive.take_from_dead(100, dead_idle_ms=200)
        assert [q.entry_id for q in taken] == [q.entry_id for q in held]
        # Another live consumer looking at the same moment gets none of them.
        assert await other.take_from_dead(100, dead_idle_ms=200) == []
        consumers = await queue_redis.xinfo_consumers(DELIVERIES, DELIVERY_GROUP)
        by_name = {c["name"].decode(): c["pending"] for c in consumers}
        assert by_name["alive"] == 4
        await asyncio.sleep(0.3)
        # The dead consumer, holding nothing now, is removed from the group.
        await other.take_from_dead(100, dead_idle_ms=200)
        consumers = await queue_redis.xinfo_consumers(DELIVERIES, DELIVERY_GROUP)
        assert "dead" not in {c["name"].decode() for c in consumers}

    _run(scenario, clean_redis)


def test_entries_whose_reading_was_lost_are_found_again(clean_redis: str) -> None:
    """A read the queue Redis ran but whose answer never arrived leaves entries pending for
    a consumer that does not know it holds them."""

    async def scenario(queue_redis: redis.asyncio.Redis) -> None:
        DeliveryQueue(lambda: redis.Redis.from_url(clean_redis)).enqueue(
            _deliveries("g1", ["h1"], range(2, 5))
        )
        consumer = DeliveryConsumer(queue_redis, "c1")
        await consumer.ensure_group()
        lost = await consumer.read(10, 100)  # its answer "lost": not held
        kept = {lost[0].entry_id}
        assert await consumer.own_strays(kept, 60_000, 100) == []  # not pending for long yet
        strays = await consumer.own_strays(kept, 0, 100)
        assert [q.entry_id for q in strays] == [q.entry_id for q in lost[1:]]
        # A process starting under the same name finds them too.
        again = await consumer.own_pending("0", 100)
        assert [q.entry_id for q in again] == [q.entry_id for q in lost]

    _run(scenario, clean_redis)


def test_a_lost_group_is_made_again(clean_redis: str) -> None:
    """The queue Redis emptied (or restarted without its data): reading makes the group."""

    async def scenario(queue_redis: redis.asyncio.Redis) -> None:
        consumer = DeliveryConsumer(queue_redis, "c1")
        await consumer.ensure_group()
        await queue_redis.flushdb()
        assert await consumer.read(10, 10) == []
        DeliveryQueue(lambda: redis.Redis.from_url(clean_redis)).enqueue(
            _deliveries("g1", ["h1"], range(2, 3))
        )
        assert len(await consumer.read(10, 100)) == 1

    _run(scenario, clean_redis)


def test_the_delivery_backlog_is_in_the_metrics(client: Any, clean_redis: str) -> None:
    """``stakeout_webhook_deliveries``: queued (in the stream) and due (retries waiting)."""

    def backlog() -> dict[str, float]:
        text = client.get("/metrics").text
        return {
            s.labels["state"]: s.value
            for family in text_string_to_metric_families(text)
            if family.name == "stakeout_webhook_deliveries"
            for s in family.samples
        }

    assert backlog() == {"queued": 0, "due": 0}
    DeliveryQueue(lambda: redis.Redis.from_url(clean_redis)).enqueue(
        _deliveries("g1", ["h1"], range(2, 5))
    )

    async def retry_one(queue_redis: redis.asyncio.Redis) -> None:
        consumer = DeliveryConsumer(queue_redis, "c1")
        await consumer.ensure_group()
        first = (await consumer.read(1, 100))[0]
        await consumer.settle([], [Retry(first, int(time.time() * 1000) + 60_000)])

    _run(retry_one, clean_redis)
    assert backlog() == {"queued": 2, "due": 1}
