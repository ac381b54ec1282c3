"""Webhook deliveries in a worker process: ``stakeout worker --queues webhooks``.

The delivery loop (service/notify/deliverer.py) runs on an event loop of its own (uvloop),
on the thread that calls `run_deliveries`, with the process's clients: the queue Redis
(asyncio), the event store's (the webhooks and their attempt logs), and one delivery HTTP
client (service/notify/delivery_client.py). Anything unexpected that stops it is logged and it
starts again.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator

import redis.asyncio
import uvloop

from service.notify import delivery_client
from service.notify.deliverer import BLOCK_MS, Deliverer, DeliveryRules
from service.notify.delivery_queue import DeliveryConsumer
from service.settings import Settings
from service.store.clients import CONNECT_TIMEOUT_SECONDS, WORKER_TIMEOUT_SECONDS, queue_url
from service.wiring import open_wiring
from workers.loops import run_until_done

RESTART_SECONDS = 2.0


def run_deliveries(settings: Settings, name: str, done: threading.Event) -> None:
    """Deliver as consumer ``name`` until ``done`` is set (then finish what is under way)."""

    async def deliver(stop: asyncio.Event) -> None:
        async with _deliverer(settings, name) as deliverer:
            await deliverer.run(stop)

    run_until_done(done, deliver, "webhook deliveries", RESTART_SECONDS, run=uvloop.run)


@contextlib.asynccontextmanager
async def _deliverer(settings: Settings, name: str) -> AsyncIterator[Deliverer]:
    queue = redis.asyncio.Redis.from_url(
        queue_url(settings),
        socket_timeout=WORKER_TIMEOUT_SECONDS + BLOCK_MS / 1000,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
    )
    client = delivery_client.DeliveryClient(
        settings.webhook_allow_private, max_idle=settings.webhook_concurrency
    )
    rules = DeliveryRules(
        backoff=settings.webhook_backoff,
        timeout=settings.webhook_timeout_seconds,
        concurrency=settings.webhook_concurrency,
    )
    try:
        async with open_wiring(settings, timeout=WORKER_TIMEOUT_SECONDS) as wiring, client:
            consumer = DeliveryConsumer(queue, name)
            yield Deliverer(consumer, wiring.webhooks, client, rules, socket.gethostname())
    finally:
        await queue.aclose()
