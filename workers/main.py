"""The RQ worker process: ``stakeout worker``.

It runs RQ's scheduler too (for retries with intervals). RQ needs a plain, non-cluster
Redis: ``QUEUE_REDIS_URL``, defaulting to ``REDIS_URL``.
"""

from __future__ import annotations

import time

import redis
from rq import Queue, Worker

from service.context import queue_url
from service.scheduling import QUEUES
from service.settings import Settings


def run_worker(settings: Settings, burst: bool = False) -> None:
    connection = redis.Redis.from_url(queue_url(settings))
    queues = [Queue(name, connection=connection) for name in QUEUES]
    worker = Worker(queues, connection=connection)
    worker.work(burst=burst, with_scheduler=True, logging_level=settings.log_level)


def worker_healthy(settings: Settings, max_age_seconds: float = 120.0) -> bool:
    """True when some worker has sent a heartbeat recently (for an exec probe)."""
    connection = redis.Redis.from_url(queue_url(settings))
    now = time.time()
    for worker in Worker.all(connection=connection):
        beat = worker.last_heartbeat
        if beat is not None and now - beat.timestamp() < max_age_seconds:
            return True
    return False
