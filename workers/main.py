"""The worker processes: ``stakeout worker`` and ``stakeout worker --queues webhooks``.

Two kinds, never mixed, so that one tenant's slow webhook receiver cannot stall anyone's
game: ``stakeout worker`` takes bot turns, deadlines and scoring from RQ (and runs the
sweep), with RQ's scheduler (for retries with intervals); ``stakeout worker --queues
webhooks`` makes webhook deliveries only, many at once, from the delivery queue
(workers/deliveries.py, service/notify/delivery_queue.py). RQ and the delivery queue need a
plain, non-cluster Redis: ``QUEUE_REDIS_URL``, defaulting to ``REDIS_URL``.

A game worker (one that takes the bots queue) also runs the outbox's dispatcher on a thread
of its own (service/follow_ups/dispatcher.py): it follows up every change of a game, which
is what puts the jobs and the deliveries on their queues in the first place. A worker given
``matchmaking`` runs the matchmaker on another (service/matchmaking/matcher.py; one works at
a time, by lease): `stakeout run` gives it a process of its own (``--queues matchmaking``),
so that no pass takes the interpreter from a bot turn.

A worker never exits because its Redis is away: at start, and whenever RQ's loop gives up
on a lost connection, it waits for the Redis to answer (logging, with backoff up to
``MAX_WAIT_SECONDS``) and starts working again; the deliveries wait it out likewise. Only
SIGTERM/SIGINT stop it. A game worker's lifeline thread (workers/recovery.py) marks it
alive every second and puts back the jobs of dead workers within seconds; the deliveries
beat for themselves, and take over a dead webhook worker's deliveries within seconds.
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

from service.follow_ups.dispatcher import DeadHolders, Dispatcher
from service.follow_ups.jobs import BOT_QUEUE, MATCH_QUEUE, QUEUES, WEBHOOK_QUEUE
from service.matchmaking.matcher import Matcher, MatchNotifier
from service.settings import Settings
from service.store.clients import WORKER_TIMEOUT_SECONDS, queue_url
from service.store.keys import deliverer_alive_key
from service.wiring import open_wiring
from workers.deliveries import run_deliveries
from workers.loops import run_until_done
from workers.recovery import Lifeline, ReliableQueue, ReliableWorker, beat, process_name

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
    """Serve ``queues``: the RQ jobs of bots and scoring; when ``webhooks`` is among them,
    webhook deliveries (on a thread of their own, workers/deliveries.py); when
    ``matchmaking`` is, the matchmaker (on another)."""
    names = tuple(queues or settings.worker_queues)
    jobs = tuple(name for name in names if name not in (WEBHOOK_QUEUE, MATCH_QUEUE))
    done = threading.Event()  # the loops' stop: once this worker is done
    loops: list[threading.Thread] = []
    if WEBHOOK_QUEUE in names:
        loops.append(
            threading.Thread(
                target=run_deliveries,
                args=(settings, process_name(), done),
                name="stakeout-deliveries",
                daemon=True,
            )
        )
    if MATCH_QUEUE in names and not burst:
        loops.append(
            threading.Thread(
                target=_match,
                args=(settings, process_name(), done),
                name="stakeout-matchmaker",
                daemon=True,
            )
        )
    for loop in loops:
        loop.start()
    try:
        if jobs:
            _run_jobs(settings, burst, jobs)
        elif loops:
            _wait_for_stop(loops)
    finally:
        done.set()
        for loop in loops:  # the deliveries finish the attempts under way (their deadline)
            loop.join(timeout=settings.webhook_timeout_seconds + 10)


def _wait_for_stop(loops: Sequence[threading.Thread]) -> None:
    """A worker of its own loops only (deliveries, the matchmaker): until SIGTERM or
    SIGINT, or until a loop ends."""
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while not stopping.wait(1.0) and all(loop.is_alive() for loop in loops):
        pass


def _run_jobs(settings: Settings, burst: bool, names: tuple[str, ...]) -> None:
    """An RQ worker for ``names``, started again whenever its Redis goes away."""
    url = queue_url(settings)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    lifeline = Lifeline(url, names)
    dispatching = threading.Event()  # the dispatcher's stop: once this worker is done
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
                dispatcher = _start_bot_queue_duties(settings, lifeline, dispatching)
        generation += 1
        worker = _worker(connection, names, f"{lifeline.process}-{generation}")
        worker.stopping = stopping  # a signal before RQ's handlers are in place stops it too
        lifeline.worker = worker
        if stopping.is_set():  # SIGTERM before RQ's own handlers are in place
            break
        try:
            worker.work(burst=burst, with_scheduler=True, logging_level=rq_level(settings))
        except redis.RedisError as exc:  # e.g. registering its death on a lost Redis
            log.warning("worker %s: %s: %s", worker.name, type(exc).__name__, exc)
        if burst or worker._shutdown_requested_date is not None:
            break
        log.warning("worker %s stopped (queue Redis lost?); starting again", worker.name)
        connection.close()
    dispatching.set()
    if dispatcher is not None:  # it gives its shards back (the next holder needs no wait)
        dispatcher.join(timeout=5.0)
    lifeline.stop()


def _start_bot_queue_duties(
    settings: Settings, lifeline: Lifeline, dispatching: threading.Event
) -> threading.Thread:
    """The sweep's timer and the outbox dispatcher, which run beside the bots queue's
    worker; the dispatcher's thread (it stops once ``dispatching`` is set)."""
    threading.Thread(target=_sweep_timer, args=(settings,), daemon=True).start()
    # A dispatcher takes leases only once its lifeline is listed: a peer that finds this
    # process holding a shard then finds its connection too.
    lifeline.connected.wait(timeout=FIRST_WAIT_SECONDS * 4)
    dispatcher = threading.Thread(
        target=_dispatch,
        args=(settings, lifeline.process, dispatching, lifeline.dead),
        daemon=True,
    )
    dispatcher.start()
    return dispatcher


def _worker(connection: redis.Redis, names: tuple[str, ...], name: str) -> ReliableWorker:
    # A SimpleWorker runs jobs in this process (no fork per job): jobs are short and share a
    # warm context (workers/jobs.py). A killed worker's job is put back by a live worker's
    # lifeline within seconds (workers/recovery.py).
    return ReliableWorker(
        [ReliableQueue(queue, connection=connection) for queue in names],
        connection=connection,
        name=name,
        # A short TTL makes an idle worker heartbeat at least every ~45 s, so the liveness
        # probe (`worker_healthy`) can tell a live idle worker from a stuck one.
        worker_ttl=HEARTBEAT_TTL,
        maintenance_interval=15,
    )


def rq_level(settings: Settings) -> str:
    """RQ's own loggers' level: its lines of every job taken and done ("bots: job OK",
    "Result is kept for ...") are debug chatter here, a few a second while games are played,
    so they show at ``LOG_LEVEL=DEBUG`` only; its warnings and errors always do."""
    return "DEBUG" if settings.log_level.upper() == "DEBUG" else "WARNING"


def _dispatch(
    settings: Settings, name: str, done: threading.Event, dead: DeadHolders | None = None
) -> None:
    """The outbox's dispatcher of this worker process, on its own event loop, until
    ``done``; it starts again if its Redis goes away. ``dead``, its process's lifeline, tells
    it which holders of shards are dead, so it takes their shards without waiting."""

    async def dispatch(stop: asyncio.Event) -> None:
        async with open_wiring(settings, timeout=WORKER_TIMEOUT_SECONDS) as wiring:
            outbox, games = wiring.store.outbox, wiring.games
            await Dispatcher(outbox, games, wiring.follow_up, name, dead=dead).run(stop)

    run_until_done(done, dispatch, "the outbox's dispatcher", FIRST_WAIT_SECONDS * 4)


def _match(settings: Settings, name: str, done: threading.Event) -> None:
    """The matchmaker of this worker process, on its own event loop, until ``done``."""

    async def match(stop: asyncio.Event) -> None:
        async with open_wiring(settings, timeout=WORKER_TIMEOUT_SECONDS) as wiring:
            notifier = MatchNotifier(wiring.webhooks, wiring.account_feed, wiring.deliveries)
            await Matcher(wiring.match_tickets, wiring.maker, notifier, name).run(stop)

    run_until_done(done, match, "the matchmaker", FIRST_WAIT_SECONDS * 4)


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
    """True when a worker on this host has sent a heartbeat recently (for an exec probe):
    an RQ worker's, or the webhook deliveries' (service/notify/delivery_queue.py)."""
    connection = redis.Redis.from_url(
        queue_url(settings), socket_timeout=2.0, socket_connect_timeout=1.0
    )
    if connection.exists(deliverer_alive_key(socket.gethostname())):
        return True
    now = time.time()
    host = socket.gethostname() + "-"
    for worker in Worker.all(connection=connection):
        beat_at = worker.last_heartbeat
        fresh = beat_at is not None and now - beat_at.timestamp() < max_age_seconds
        if worker.name.startswith(host) and fresh:
            return True
    return False
