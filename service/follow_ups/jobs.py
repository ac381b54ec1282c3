"""The RQ jobs a game's state calls for, and the queue they go on.

Bot seats that must act get a bot-turn job; a finished game without a recorded result gets
a scoring job; human seats in games with turn deadlines get a deadline job scheduled for
the moment their time runs out. Job ids are deterministic (``bot-<game>-<seat>-<version>``)
and enqueued with ``unique=True``, so a job asked for again while it is queued, scheduled or
running is not queued twice. A finished job's records are deleted at once (``JobQueue``), so
its id is free again: the jobs are idempotent, and a duplicate that runs later is harmless.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from redis import Redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError

from service.play import deadlines
from service.play.away import AwayCheck
from service.play.records import Loaded

BOT_QUEUE = "bots"
SCORING_QUEUE = "scoring"
# Not an RQ queue since deliveries have their own (service/notify/delivery_queue.py): the
# name a worker is given to deliver webhooks (`stakeout worker --queues webhooks`).
WEBHOOK_QUEUE = "webhooks"
# Not a queue either: the name a worker is given to run the matchmaker (its own process
# under `stakeout run`: `stakeout worker --queues matchmaking`; service/matchmaking/matcher.py).
MATCH_QUEUE = "matchmaking"
# The RQ queues; workers take jobs in this order.
QUEUES = (BOT_QUEUE, SCORING_QUEUE)
JOB_TIMEOUT_SECONDS = 30
# A job that failed its last retry is kept this long, with its traceback, for an operator
# to read (RQ's failed-job registry of its queue).
FAILURE_TTL_SECONDS = 86400


@dataclass(frozen=True)
class JobRequest:
    queue: str
    func: str
    args: tuple[Any, ...]
    job_id: str
    at_ms: int | None = None  # scheduled for this moment (epoch ms), else now
    # Long enough to outlast a short outage of the event store (a job that gives up leaves
    # its game waiting: nothing enqueues it again).
    retry_intervals: tuple[int, ...] = (1, 2, 5, 15, 30, 60, 120, 300)


def jobs_for(loaded: Loaded) -> list[JobRequest]:
    """The bot and scoring jobs a game's current state calls for (pure)."""
    match, rules = loaded.match, loaded.engine
    game_id = loaded.game_id
    if rules.result(match) is not None:
        if match.recorded is None:
            return [
                JobRequest(SCORING_QUEUE, "workers.jobs.score_game", (game_id,), f"score-{game_id}")
            ]
        return []
    return [
        JobRequest(
            BOT_QUEUE,
            "workers.jobs.bot_turn",
            (game_id, action.seat, match.version),
            f"bot-{game_id}-{action.seat}-{match.version}",
        )
        for action in loaded.awaited
        if match.seats[action.seat].type == "bot"  # resigned seats included
    ]


def archive_job(game_id: str, version: int, at_ms: int, again: bool = False) -> JobRequest:
    """Archive an ended game once its window has passed (service/follow_ups/archiving.py);
    one job per version, so a later change (a rematch) schedules its own; ``again``: a job
    that found it too early asks for another (an id of its own: its own id is still in
    use). RQ schedules by whole seconds, rounded down: the time is rounded up to one."""
    at_ms = -(-at_ms // 1000) * 1000
    job_id = f"archive-{game_id}-{version}" + (f"-{at_ms}" if again else "")
    return JobRequest(SCORING_QUEUE, "workers.jobs.archive_game", (game_id,), job_id, at_ms=at_ms)


def deadline_job(game_id: str, deadline: deadlines.Deadline) -> JobRequest:
    return JobRequest(
        BOT_QUEUE,
        "workers.jobs.deadline_passed",
        (game_id, deadline.seat, deadline.at_ms),
        f"deadline-{game_id}-{deadline.seat}-{deadline.at_ms}",
        at_ms=deadline.at_ms,
    )


def away_job(game_id: str, check: AwayCheck) -> JobRequest:
    """An away check of a seat's turn (service/play/away.py), at its due moment rounded up
    to a whole second (RQ schedules by seconds); one job per turn and moment."""
    at_ms = -(-check.due_ms // 1000) * 1000
    return JobRequest(
        BOT_QUEUE,
        "workers.jobs.away_check",
        (game_id, check.seat, check.action, check.step),
        # A job id is letters, digits, dashes and underscores; a step may be more.
        f"away-{game_id}-{check.seat}-{re.sub(r'[^A-Za-z0-9_-]', '_', check.step)}-{at_ms}",
        at_ms=at_ms,
    )


class JobQueue:
    """Enqueues onto a plain (non-cluster) Redis; RQ's client is synchronous."""

    def __init__(self, connect: Callable[[], Redis], result_ttl: int = 0) -> None:
        """``result_ttl``: seconds RQ keeps a finished job and its result; 0 (the
        default): deleted as the job finishes. A game's bot turns were most of the queue
        Redis's memory while their records lived an hour (about 1 MB an FBI game with
        bots), and nothing needs them: what a job does is idempotent in the event store
        (a bot turn's idempotency key, the result recorded once, the archive guarded by
        its version), so a duplicate enqueued after the job finished (an outbox entry
        followed up twice) runs and changes nothing. A failed job's records are kept
        ``FAILURE_TTL_SECONDS``."""
        self._connect = connect
        self.result_ttl = result_ttl
        self._redis: Redis | None = None

    def _connection(self) -> Redis:
        if self._redis is None:
            self._redis = self._connect()
        return self._redis

    def enqueue(self, requests: list[JobRequest]) -> int:
        """Enqueue each job unless it already exists; how many were new."""
        connection = self._connection()
        made = 0
        for request in requests:
            queue = Queue(request.queue, connection=connection)
            options: dict[str, Any] = {
                "args": request.args,
                "job_id": request.job_id,
                # Short: a job whose worker died is found abandoned (and retried) once its
                # timeout has passed, by the worker's frequent maintenance (workers/main.py).
                "timeout": JOB_TIMEOUT_SECONDS,
                "result_ttl": self.result_ttl,
                "failure_ttl": FAILURE_TTL_SECONDS,
                # A worker killed mid-job: the job runs again; its idempotency key makes
                # sure the move is made exactly once.
                "retry": Retry(
                    max=len(request.retry_intervals), interval=list(request.retry_intervals)
                ),
            }
            with contextlib.suppress(DuplicateJobError):
                if request.at_ms is None:
                    queue.enqueue_call(request.func, unique=True, **options)
                else:
                    when = datetime.fromtimestamp(request.at_ms / 1000, tz=UTC)
                    job = queue.create_job(request.func, **options)
                    queue.schedule_job(job, when, unique=True)
                made += 1
        return made

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()
            self._redis = None
