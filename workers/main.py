"""The RQ worker process: ``stakeout worker``.

It runs RQ's scheduler too (for retries with intervals). RQ needs a plain, non-cluster
Redis: ``QUEUE_REDIS_URL``, defaulting to ``REDIS_URL``.
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
from service.scheduling import QUEUES
from service.settings import Settings


def run_worker(settings: Settings, burst: bool = False) -> None:
    connection = redis.Redis.from_url(queue_url(settings))
    queues = [Queue(name, connection=connection) for name in QUEUES]
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
    if not burst:
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
