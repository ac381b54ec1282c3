"""Work of a dead worker, found in seconds.

RQ 3 learns that a started job was abandoned only when the job's entry in the
StartedJobRegistry expires: its TTL is the job's timeout (or the monitoring interval) plus a
fixed 60 s, so a worker killed mid-job stalled its game for about 90 s; and a killed
worker that held RQ's scheduler lock (61 s TTL) held up every scheduled job as long. The
sweep could not help: the job still says "started", and ``enqueue(unique=True)`` refuses its
id.

So each worker process keeps a lifeline: a thread that renews a short-lived key
(``stakeout:worker-alive:<host>-<pid>``, ``ALIVE_SECONDS``) every second, also while a job
runs, on a connection of its own named after the process (``stakeout-lifeline-<process>``).
A process is dead when its key has expired, or at once when its lifeline's connection is
gone: the kernel closes a killed process's sockets, so Redis's client list drops it within
moments, while a process that is only frozen keeps its connection and is told by its key.
(A Redis that refuses ``CLIENT LIST`` leaves only the key.) Every ``REAP_SECONDS`` the
lifeline looks for

- jobs taken off a queue by a worker that died before starting them (left in RQ's
  intermediate list): put back after ``STRANDED_SECONDS``;
- started jobs whose worker's key has expired: the worker is dead, so the job is put back
  at the front of its queue at once (one retry spent; with none left it is failed, and
  the sweep enqueues the work again). Bot turns, deadlines and scoring are idempotent, so a
  worker that was only frozen past ``ALIVE_SECONDS`` costs a duplicate run, not a
  duplicate move;
- scheduler locks whose holder is dead: the lock is released, and this worker's scheduler
  takes it over. A scheduler is named after its worker (`scheduler_name`), so one of a
  dead process is known dead at once, as its jobs are (a killed worker's scheduler held
  every flag due meanwhile for the 5 s of the heartbeat rule, measured by
  bench/flag_lateness.py); one named otherwise (by RQ itself) once it has not sent a
  heartbeat for ``ALIVE_SECONDS`` (RQ's scheduler beats every second).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Queue, SimpleWorker
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.exceptions import DequeueTimeout, NoSuchJobError
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job, JobStatus
from rq.job_lifecycle import record_job_failure
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, SCHEDULER_LOCKING_KEY_TEMPLATE, RQScheduler

from service.store.keys import worker_alive_key, worker_reaped_key, worker_stranded_key

log = logging.getLogger("stakeout.worker")

# How long a worker's command-channel thread waits for a message at a time (`subscribe`).
PUBSUB_WAIT_SECONDS = 1.0

BEAT_SECONDS = 1.0
ALIVE_SECONDS = 5
REAP_SECONDS = 2.0
STRANDED_SECONDS = 3.0

# Delete a key only if it still holds the value we read (another scheduler may have it now).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def process_name() -> str:
    """This process's identity: the prefix of every RQ worker name it uses."""
    return f"{socket.gethostname()}-{os.getpid()}"


def process_of(worker_name: str) -> str:
    """The process part of a worker name ``<host>-<pid>-<generation>``."""
    return worker_name.rsplit("-", 1)[0]


SCHEDULER_SUFFIX = "-scheduler"


def scheduler_name(worker_name: str) -> str:
    """The name of the scheduler worker ``worker_name`` starts (the value of its locks)."""
    return worker_name + SCHEDULER_SUFFIX


def scheduler_process(holder: str) -> str | None:
    """The worker process whose scheduler holds a lock as ``holder``; None for a scheduler
    not named by `scheduler_name`."""
    if not holder.endswith(SCHEDULER_SUFFIX):
        return None
    return process_of(holder.removesuffix(SCHEDULER_SUFFIX))


def beat(connection: redis.Redis, process: str) -> None:
    connection.set(worker_alive_key(process), "1", ex=ALIVE_SECONDS)


def lifeline_client_name(process: str) -> str:
    """The name of ``process``'s lifeline connection, as Redis's client list shows it."""
    return LIFELINE_CLIENT + process


LIFELINE_CLIENT = "stakeout-lifeline-"


class Liveness:
    """Which worker processes are alive, as one look at the queue Redis tells: the key a
    process renews, and its lifeline's connection. The client list is read once, when
    first needed, so every answer of one `Liveness` is of the same moment or later than
    what the caller read before asking."""

    def __init__(self, connection: redis.Redis) -> None:
        self._connection = connection
        self._connected: frozenset[str] | None = None
        self._listed = False

    def alive(self, process: str) -> bool:
        if not self._connection.exists(worker_alive_key(process)):
            return False
        connected = self._lifelines()
        return connected is None or process in connected

    def _lifelines(self) -> frozenset[str] | None:
        if not self._listed:
            self._listed = True
            try:
                clients: list[dict[str, Any]] = self._connection.client_list()
            except redis.ResponseError:  # CLIENT LIST refused (an ACL, a managed Redis)
                return None
            self._connected = frozenset(
                str(c.get("name", ""))[len(LIFELINE_CLIENT) :]
                for c in clients
                if str(c.get("name", "")).startswith(LIFELINE_CLIENT)
            )
        return self._connected


def reap_abandoned(connection: redis.Redis, queues: Sequence[str]) -> list[str]:
    """Put back the started jobs of dead workers; returns their ids."""
    reaped: list[str] = []
    liveness = Liveness(connection)
    for name in queues:
        queue = Queue(name, connection=connection)
        registry = queue.started_job_registry
        entries: list[Any] = list(connection.zrange(registry.key, 0, -1))
        for entry in entries:
            job_id = bytes(entry).decode().rsplit(":", 1)[0]
            try:
                job = Job.fetch(job_id, connection=connection)
            except NoSuchJobError:
                connection.zrem(registry.key, entry)
                continue
            worker = job.worker_name
            if job.get_status(refresh=False) != JobStatus.STARTED or not worker:
                continue
            if liveness.alive(process_of(worker)):
                continue
            # One reaper acts on this (job, dead worker), however many workers look.
            if not connection.set(worker_reaped_key(job_id, worker), "1", nx=True, ex=3600):
                continue
            connection.zrem(registry.key, entry)  # else RQ calls it abandoned again later
            if job.retries_left:
                job.retries_left -= 1
                queue.enqueue_job(job, at_front=True)  # saves the job, retries_left too
            else:
                with connection.pipeline() as pipe:
                    record_job_failure(job, f"its worker {worker} died", pipe)
                    pipe.execute()
            log.warning("job %s was running on %s, which died: enqueued again", job_id, worker)
            reaped.append(job_id)
    return reaped


def reap_stranded(connection: redis.Redis, queues: Sequence[str]) -> list[str]:
    """Put back jobs a worker took off its queue and died before starting.

    RQ moves a job to ``<queue>:intermediate`` as it takes it, then marks it started; a
    worker killed in between leaves it there, and RQ returns it only after a minute or
    more. A job still queued there after ``STRANDED_SECONDS`` (the step takes milliseconds)
    goes back to the front of its queue.
    """
    reaped: list[str] = []
    now = time.time()
    for name in queues:
        queue = Queue(name, connection=connection)
        key = queue.intermediate_queue_key
        entries: list[Any] = list(connection.lrange(key, 0, -1))
        for raw in entries:
            job_id = bytes(raw).decode()
            seen_key = worker_stranded_key(job_id)
            try:
                job = Job.fetch(job_id, connection=connection)
            except NoSuchJobError:
                connection.lrem(key, 1, job_id)
                continue
            if job.get_status(refresh=False) != JobStatus.QUEUED:
                connection.delete(seen_key)  # started (RQ cleans its entry up) or done
                continue
            connection.set(seen_key, str(now), nx=True, ex=3600)
            seen: Any = connection.get(seen_key)
            if seen is None or now - float(seen) < STRANDED_SECONDS:
                continue
            if not connection.lrem(key, 1, job_id):
                continue  # another reaper (or RQ) got there first
            connection.delete(seen_key)
            queue.enqueue_job(job, at_front=True)
            log.warning("job %s was taken by a worker that died before starting it", job_id)
            reaped.append(job_id)
    return reaped


def release_dead_scheduler_locks(connection: redis.Redis, queues: Sequence[str]) -> list[str]:
    """Release scheduler locks whose holder is dead (its worker process, else its
    heartbeat stopped); returns their queues."""
    released = []
    now = datetime.now(UTC).timestamp()
    liveness = Liveness(connection)
    for name in queues:
        lock = SCHEDULER_LOCKING_KEY_TEMPLATE % name
        raw: Any = connection.get(lock)
        if raw is None:
            continue
        holder = bytes(raw).decode()
        process = scheduler_process(holder)
        if process is not None:
            if liveness.alive(process):
                continue
        else:
            beat_raw: Any = connection.hget(SCHEDULER_KEY_TEMPLATE % holder, "last_heartbeat")
            if beat_raw is not None and now - _timestamp(bytes(beat_raw).decode()) < ALIVE_SECONDS:
                continue
        if connection.eval(_RELEASE, 1, lock, holder):
            log.warning("scheduler %s of queue %s stopped: lock released", holder, name)
            released.append(name)
    return released


def _timestamp(text: str) -> float:
    # RQ's utcformat: '%Y-%m-%dT%H:%M:%S.%fZ'
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()


POLL_SECONDS = 0.5


class ReliableQueue(Queue):
    """Takes a job from several queues by moving it (LMOVE) to the queue's intermediate
    list, as RQ does for a single queue, instead of popping it (RQ's BLPOP over several
    queues): a worker killed between taking a job and starting it then leaves the job
    where `reap_stranded` finds it, rather than losing it. Blocks on the first (highest
    priority) queue for at most ``POLL_SECONDS`` at a time, then looks at all again."""

    @classmethod
    def dequeue_any(  # type: ignore[override]
        cls,
        queues: Sequence[Queue],
        timeout: int | None,
        connection: redis.Redis,
        job_class: Any = None,
        serializer: Any = None,
        death_penalty_class: Any = None,
    ) -> tuple[Job, Queue] | None:
        keys = [queue.key for queue in queues]
        options = {
            "job_class": job_class,
            "serializer": serializer,
            "death_penalty_class": death_penalty_class,
        }
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            for key in keys:
                raw: Any = connection.lmove(key, IntermediateQueue.get_intermediate_queue_key(key))
                if raw is not None:
                    found = cls._fetch_dequeued_job(connection, key, bytes(raw).decode(), **options)
                    if found is not None:
                        return found
                    break  # a vanished job: look again from the top
            else:
                if deadline is None:
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DequeueTimeout(timeout, keys)
                first = keys[0]
                wait: Any = min(POLL_SECONDS, left)  # Redis takes a float; redis-py says int
                raw = connection.blmove(
                    first, IntermediateQueue.get_intermediate_queue_key(first), wait
                )
                if raw is not None:
                    found = cls._fetch_dequeued_job(
                        connection, first, bytes(raw).decode(), **options
                    )
                    if found is not None:
                        return found


class ReliableWorker(SimpleWorker):
    """A SimpleWorker taking jobs through `ReliableQueue`, which drops a job's entry in its
    queue's intermediate list as the job starts (RQ does so only for single-queue workers)."""

    queue_class = ReliableQueue
    # Set by the process's own SIGTERM/SIGINT handler, which is in place until RQ installs
    # its own in `work` (after registering the worker and starting its scheduler).
    stopping: threading.Event | None = None

    def _install_signal_handlers(self) -> None:
        super()._install_signal_handlers()  # type: ignore[no-untyped-call]
        # A signal that came while RQ bootstrapped went to the process's handler: without
        # this the worker would take jobs until it was killed (seen as a 15 s stop in CI).
        if self.stopping is not None and self.stopping.is_set():
            log.info("worker %s: asked to stop while starting; stopping", self.name)
            self._shutdown_requested_date = datetime.now(UTC)
            self._stop_requested = True

    def subscribe(self) -> None:
        """As RQ subscribes a worker to its command channel, but its thread waits at most
        `PUBSUB_WAIT_SECONDS` a turn (RQ: 60). Stopping the worker waits for that thread
        (redis-py's stop joins it); the thread wakes at the reply to the unsubscribe, but a
        worker stopped as it starts may unsubscribe before the thread saw its subscription,
        and the thread then waited the whole 60 s for one (a stop of a minute, seen in tests)."""
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]
            sleep_time=PUBSUB_WAIT_SECONDS,
            daemon=True,
            exception_handler=self._pubsub_exception_handler,
        )

    def prepare_job_execution(self, job: Job, remove_from_intermediate_queue: bool = False) -> None:
        super().prepare_job_execution(job, remove_from_intermediate_queue=True)

    def _start_scheduler(
        self,
        burst: bool = False,
        logging_level: str | None = "INFO",
        date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
        log_format: str = DEFAULT_LOGGING_FORMAT,
    ) -> None:
        """As RQ starts a worker's scheduler (a process of its own, when it gets the
        queues' locks), but named after this worker (`scheduler_name`) rather than at
        random, so its locks say which process holds them."""
        self.scheduler = RQScheduler(
            self.queues,
            connection=self.connection,
            logging_level=logging_level if logging_level is not None else self.log.level,
            date_format=date_format,
            log_format=log_format,
            serializer=self.serializer,
            name=scheduler_name(self.name),
        )
        self.scheduler.acquire_locks()  # type: ignore[no-untyped-call]
        if not self.scheduler.acquired_locks:
            return
        if not burst:
            self.scheduler.start()  # type: ignore[no-untyped-call]
            return
        try:  # a burst worker enqueues what is due once, in this process
            self.scheduler.register_birth()
            self.scheduler.enqueue_scheduled_jobs()  # type: ignore[no-untyped-call]
        finally:
            self.scheduler.release_locks()  # type: ignore[no-untyped-call]
            self.scheduler.register_death()


class Lifeline(threading.Thread):
    """The beat and the reaper of one worker process (a daemon thread)."""

    def __init__(self, url: str, queues: Sequence[str]) -> None:
        super().__init__(name="stakeout-lifeline", daemon=True)
        self._url = url
        self._queues = tuple(queues)
        self.process = process_name()
        self.worker: Any = None  # the current RQ worker: its scheduler takes freed locks
        self.connected = threading.Event()  # its named connection has beaten once
        self._halt = threading.Event()
        self._connection = redis.Redis.from_url(
            url,
            socket_timeout=2.0,
            socket_connect_timeout=2.0,
            client_name=lifeline_client_name(self.process),
        )

    def stop(self) -> None:
        self._halt.set()

    def dead(self, processes: frozenset[str]) -> frozenset[str]:
        """Those of ``processes`` that are dead now (blocking; for the dispatcher)."""
        liveness = Liveness(self._connection)
        return frozenset(p for p in processes if not liveness.alive(p))

    def run(self) -> None:
        connection = self._connection
        next_reap = 0.0
        while not self._halt.is_set():
            try:
                beat(connection, self.process)
                self.connected.set()
                if time.monotonic() >= next_reap:
                    next_reap = time.monotonic() + REAP_SECONDS
                    reap_abandoned(connection, self._queues)
                    reap_stranded(connection, self._queues)
                    if release_dead_scheduler_locks(connection, self._queues):
                        self._take_scheduler()
            except redis.RedisError as exc:
                log.warning("lifeline: queue Redis unavailable (%s: %s)", type(exc).__name__, exc)
            except Exception:
                log.exception("lifeline: unexpected error")
            self._halt.wait(BEAT_SECONDS)
        connection.close()

    def _take_scheduler(self) -> None:
        scheduler = getattr(self.worker, "scheduler", None)
        if scheduler is None:
            return
        process = scheduler._process
        if process is None or not process.is_alive():
            scheduler.acquire_locks(auto_start=True)
