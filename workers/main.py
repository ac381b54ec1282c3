"""The RQ worker processes: ``stakeout worker`` and ``stakeout worker --queues webhooks``.

Two kinds, never mixed, so that one tenant's slow webhook receiver cannot stall anyone's
game: ``stakeout worker`` takes bot turns, deadlines and scoring (and runs the sweep);
``stakeout worker --queues webhooks`` takes webhook deliveries only. Each runs RQ's
scheduler too (for retries with intervals; a scheduler moves due jobs of the queues its
worker serves). RQ needs a plain, non-cluster Redis: ``QUEUE_REDIS_URL``, defaulting to
``REDIS_URL``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time

import redis
from rq import Queue, SimpleWorker, Worker
from rq.exceptions import DuplicateJobError

from service.context import queue_url
from service.scheduling import BOT_QUEUE, QUEUES, SCORING_QUEUE, WEBHOOK_QUEUE
from service.settings import Settings

# Bots first: deliveries have workers of their own (the module docstring says why).
GAME_QUEUES = (BOT_QUEUE, SCORING_QUEUE)
DELIVERY_QUEUES = (WEBHOOK_QUEUE,)


def parse_queues(raw: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in raw.split(",") if name.strip())
    unknown = [name for name in names if name not in QUEUES]
    if not names or unknown:
        raise ValueError(f"--queues takes names among {', '.join(QUEUES)}")
    return names


def run_worker(
    settings: Settings, burst: bool = False, queue_names: tuple[str, ...] = GAME_QUEUES
) -> None:
    connection = redis.Redis.from_url(queue_url(settings))
    queues = [Queue(name, connection=connection) for name in queue_names]
    # A short TTL makes an idle worker heartbeat at least every ~45 s, so the liveness
    # probe below can tell a live idle worker from a stuck one.
    # SimpleWorker runs jobs in this process (no fork per job): jobs are short and share a
    # warm context (workers/jobs.py). A killed worker loses its job, which RQ retries.
    worker = SimpleWorker(
        queues,
        connection=connection,
        name=_worker_name(),
        worker_ttl=HEARTBEAT_TTL,
        # Look for jobs abandoned by a killed worker every 15 s (RQ's default is 10 min).
        maintenance_interval=15,
    )
    if not burst and BOT_QUEUE in queue_names:  # the sweep's jobs run on the bots queue
        threading.Thread(target=_sweep_timer, args=(settings,), daemon=True).start()
    worker.work(burst=burst, with_scheduler=True, logging_level=settings.log_level)


def _sweep_timer(settings: Settings) -> None:
    """Every ``sweep_seconds``, enqueue one sweep job (one per period across all workers)."""
    every = max(1, settings.sweep_seconds)
    connection = redis.Redis.from_url(queue_url(settings))
    queue = Queue(QUEUES[0], connection=connection)
    while True:
        period = int(time.time()) // every
        with contextlib.suppress(DuplicateJobError, redis.RedisError):
            queue.enqueue_call(
                "workers.jobs.sweep_games",
                job_id=f"sweep-{every}-{period}",
                unique=True,
                result_ttl=2 * every,
            )
        time.sleep(every - time.time() % every + 0.05)


HEARTBEAT_TTL = 60


def _worker_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


def worker_healthy(settings: Settings, max_age_seconds: float = 2.0 * HEARTBEAT_TTL) -> bool:
    """True when a worker on this host has sent a heartbeat recently (for an exec probe)."""
    connection = redis.Redis.from_url(queue_url(settings))
    now = time.time()
    host = socket.gethostname() + "-"
    for worker in Worker.all(connection=connection):
        beat = worker.last_heartbeat
        fresh = beat is not None and now - beat.timestamp() < max_age_seconds
        if worker.name.startswith(host) and fresh:
            return True
    return False
