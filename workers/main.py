"""The RQ worker processes: ``stakeout worker`` and ``stakeout worker --queues webhooks``.

Two kinds, never mixed, so that one tenant's slow webhook receiver cannot stall anyone's
game: ``stakeout worker`` takes bot turns, deadlines and scoring (and runs the sweep);
``stakeout worker --queues webhooks`` takes webhook deliveries only. Each runs RQ's
scheduler too (for retries with intervals). RQ needs a plain, non-cluster Redis:
``QUEUE_REDIS_URL``, defaulting to ``REDIS_URL``.

A game worker (one that takes the bots queue) also runs the outbox's dispatcher on a thread
of its own (service/follow_ups/dispatcher.py): it follows up every change of a game, which
is what puts the jobs on the queues in the first place.

A worker never exits because its Redis is away: at start, and whenever RQ's loop gives up
on a lost connection, it waits for the Redis to answer (logging, with backoff up to
``MAX_WAIT_SECONDS``) and starts working again. Only SIGTERM/SIGINT stop it. Its lifeline
thread (workers/recovery.py) marks it alive every second and puts back the jobs of dead
workers within seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import threading
import time
from collections.abc import Sequence
from types import FrameType

import redis
from rq import Queue, Worker
from rq.exceptions import DuplicateJobError

from service.follow_ups.dispatcher import Dispatcher
from service.follow_ups.jobs import BOT_QUEUE, QUEUES
from service.settings import Settings
from service.store.clients import WORKER_TIMEOUT_SECONDS, queue_url
from service.wiring import open_wiring
from workers.recovery import Lifeline, ReliableQueue, ReliableWorker, beat

log = logging.getLogger("stakeout.worker")

HEARTBEAT_TTL = 60
FIRST_WAIT_SECONDS = 0.5
MAX_WAIT_SECONDS = 10.0


def wait_for_redis(url: str, stopping: threading.Event) -> redis.Redis | None:
    """A connection once the Redis at ``url`` answers PING; None if asked to stop first."""
    delay = FIRST_WAIT_SECONDS
    while not stopping.is_set():
        connection = redis.Redis.from_url(url, socket_connect_timeout=2.0, socket_timeout=5.0)
        try:
            connection.ping()
            return connection
        except redis.RedisError as exc:
            connection.close()
            log.warning(
                "queue Redis unreachable (%s: %s); retrying in %.1f s",
                type(exc).__name__,
                exc,
                delay,
            )
        stopping.wait(delay)
        delay = min(delay * 2, MAX_WAIT_SECONDS)
    return None


def run_worker(
    settings: Settings, burst: bool = False, queues: Sequence[str] | None = None
) -> None:
    names = tuple(queues or settings.worker_queues)
    url = queue_url(settings)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    lifeline = Lifeline(url, names)
    done = threading.Event()  # the dispatcher's stop: once this worker is done
    dispatcher: threading.Thread | None = None
    generation = 0
    while not stopping.is_set():
        # Ours while waiting; RQ installs its own (warm, then cold shutdown) in work().
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        connection = wait_for_redis(url, stopping)
        if connection is None:
            break
        beat(connection, lifeline.process)  # alive before the first job is taken
        if not lifeline.is_alive():
            lifeline.start()
            if not burst and BOT_QUEUE in names:  # the sweep's jobs run on the bots queue
                threading.Thread(target=_sweep_timer, args=(settings,), daemon=True).start()
                dispatcher = threading.Thread(
                    target=_dispatch, args=(settings, lifeline.process, done), daemon=True
                )
                dispatcher.start()
        generation += 1
        # A SimpleWorker runs jobs in this process (no fork per job): jobs are short and
        # share a warm context (workers/jobs.py). A killed worker's job is put back by a
        # live worker's lifeline within seconds (workers/recovery.py).
        worker = ReliableWorker(
            [ReliableQueue(name, connection=connection) for name in names],
            connection=connection,
            name=f"{lifeline.process}-{generation}",
            # A short TTL makes an idle worker heartbeat at least every ~45 s, so the
            # liveness probe below can tell a live idle worker from a stuck one.
            worker_ttl=HEARTBEAT_TTL,
            maintenance_interval=15,
        )
        lifeline.worker = worker
        if stopping.is_set():  # SIGTERM before RQ's own handlers are in place
            break
        try:
            worker.work(burst=burst, with_scheduler=True, logging_level=settings.log_level)
        except redis.RedisError as exc:  # e.g. registering its death on a lost Redis
            log.warning("worker %s: %s: %s", worker.name, type(exc).__name__, exc)
        if burst or worker._shutdown_requested_date is not None:
            break
        log.warning("worker %s stopped (queue Redis lost?); starting again", worker.name)
        connection.close()
    done.set()
    if dispatcher is not None:  # it gives its shards back (the next holder needs no wait)
        dispatcher.join(timeout=5.0)
    lifeline.stop()


def _dispatch(settings: Settings, name: str, done: threading.Event) -> None:
    """The outbox's dispatcher of this worker process, on its own event loop, until
    ``done``; it starts again if its Redis goes away."""

    async def dispatch() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        watcher = threading.Thread(
            target=lambda: (done.wait(), loop.call_soon_threadsafe(stop.set)), daemon=True
        )
        watcher.start()
        while not stop.is_set():
            try:
                async with open_wiring(settings, timeout=WORKER_TIMEOUT_SECONDS) as wiring:
                    outbox, games = wiring.store.outbox, wiring.games
                    await Dispatcher(outbox, games, wiring.follow_up, name).run(stop)
            except Exception:
                log.warning("the outbox's dispatcher stopped; starting again", exc_info=True)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), FIRST_WAIT_SECONDS * 4)

    asyncio.run(dispatch())


def _sweep_timer(settings: Settings) -> None:
    """Every ``sweep_seconds``, enqueue one sweep job (one per period across all workers)."""
    every = max(1, settings.sweep_seconds)
    connection = redis.Redis.from_url(
        queue_url(settings), socket_connect_timeout=2.0, socket_timeout=5.0
    )
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


def worker_healthy(settings: Settings, max_age_seconds: float = 2.0 * HEARTBEAT_TTL) -> bool:
    """True when a worker on this host has sent a heartbeat recently (for an exec probe)."""
    connection = redis.Redis.from_url(
        queue_url(settings), socket_timeout=2.0, socket_connect_timeout=1.0
    )
    now = time.time()
    host = socket.gethostname() + "-"
    for worker in Worker.all(connection=connection):
        beat_at = worker.last_heartbeat
        fresh = beat_at is not None and now - beat_at.timestamp() < max_age_seconds
        if worker.name.startswith(host) and fresh:
            return True
    return False
