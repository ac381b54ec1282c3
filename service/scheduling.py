"""After every append: enqueue the RQ jobs the new state calls for.

Bot seats that must act get a bot-turn job; a finished game without a recorded result gets
a scoring job; human seats in games with turn deadlines get a deadline job scheduled for
the moment their time runs out. Job ids are deterministic (``bot-<game>-<seat>-<version>``)
and enqueued with ``unique=True``, so the API, the workers and the sweep may all ask for the
same job safely; the jobs are idempotent besides, so a duplicate would be harmless.

No stuck games: if a process dies between an append and the enqueue, the periodic sweep
(`sweep`) finds the games whose awaited work has no live job and enqueues it again.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import anyio.to_thread
import msgspec
from redis import Redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job, JobStatus

from service import deadlines, webhooks
from service.games import Change, GameNotFound, GameService, Loaded
from service.store import EventStore
from service.webhooks import WebhookStore

BOT_QUEUE = "bots"
SCORING_QUEUE = "scoring"
WEBHOOK_QUEUE = "webhooks"
# Workers take jobs in this order: deliveries never hold up a bot's turn.
QUEUES = (BOT_QUEUE, SCORING_QUEUE, WEBHOOK_QUEUE)
JOB_TIMEOUT_SECONDS = 30

# Finished or failed jobs whose work is still awaited are enqueued again by the sweep.
_DEAD = {JobStatus.FINISHED, JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


@dataclass(frozen=True)
class JobRequest:
    queue: str
    func: str
    args: tuple[Any, ...]
    job_id: str
    at_ms: int | None = None  # scheduled for this moment (epoch ms), else now
    retry_intervals: tuple[int, ...] = (1, 2, 5)


def jobs_for(loaded: Loaded) -> list[JobRequest]:
    """The bot and scoring jobs a game's current state calls for (pure)."""
    match, rules = loaded.match, loaded.rules
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
        for action in rules.awaiting(match)
        if match.seats[action.seat].type == "bot"  # resigned seats included
    ]


def deadline_job(game_id: str, deadline: deadlines.Deadline) -> JobRequest:
    return JobRequest(
        BOT_QUEUE,
        "workers.jobs.deadline_passed",
        (game_id, deadline.seat, deadline.at_ms),
        f"deadline-{game_id}-{deadline.seat}-{deadline.at_ms}",
        at_ms=deadline.at_ms,
    )


class RqScheduler:
    """Enqueues onto a plain (non-cluster) Redis; RQ's client is synchronous."""

    def __init__(
        self,
        connect: Callable[[], Redis],
        store: EventStore,
        webhook_backoff: tuple[int, ...] = (5, 30, 120, 600, 1800),
    ) -> None:
        self._connect = connect
        self._redis: Redis | None = None
        self.store = store
        self.webhooks = WebhookStore(store.redis)
        self.webhook_backoff = webhook_backoff

    def _connection(self) -> Redis:
        if self._redis is None:
            self._redis = self._connect()
        return self._redis

    def enqueue(self, requests: list[JobRequest], revive: bool = False) -> int:
        """Enqueue each job unless it already exists; ``revive`` replaces dead ones."""
        connection = self._connection()
        made = 0
        for request in requests:
            if revive:
                with contextlib.suppress(NoSuchJobError):
                    job = Job.fetch(request.job_id, connection=connection)
                    if job.get_status() in _DEAD:
                        job.delete()
            queue = Queue(request.queue, connection=connection)
            options: dict[str, Any] = {
                "args": request.args,
                "job_id": request.job_id,
                # Short: a job whose worker died is found abandoned (and retried) once its
                # timeout has passed, by the worker's frequent maintenance (workers/main.py).
                "timeout": JOB_TIMEOUT_SECONDS,
                "result_ttl": 3600,
                "failure_ttl": 86400,
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

    async def _deliveries(
        self, loaded: Loaded, change: Change, fresh: list[deadlines.Deadline]
    ) -> list[JobRequest]:
        hooks = await self.webhooks.of(loaded.meta.owner)
        if not hooks:
            return []
        match, rules = loaded.match, loaded.rules
        result = rules.result(match)
        finished = (result.scores, result.winners) if result and match.recorded is None else None
        recorded = match.recorded
        notes = webhooks.notifications(
            loaded.game_id,
            match.version,
            change.at_ms,
            [(d.seat, d.action, d.step, d.at_ms or None) for d in fresh],
            finished,
            (recorded.scores, recorded.winners) if recorded is not None else None,
            aborted=match.aborted,
        )
        return [
            JobRequest(
                WEBHOOK_QUEUE,
                "workers.jobs.deliver_webhook",
                (hook.id, msgspec.json.encode(note).decode()),
                f"wh-{hook.id}-{note.id}",
                retry_intervals=self.webhook_backoff,
            )
            for note in notes
            for hook in hooks
            if webhooks.wanted(hook, note)
        ]

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()
            self._redis = None

    async def on_change(self, loaded: Loaded, change: Change) -> None:
        requests = jobs_for(loaded)
        fresh = await deadlines.refresh(self.store.redis, loaded, change.at_ms, change.acted_seat)
        requests += [deadline_job(loaded.game_id, d) for d in fresh if d.at_ms]
        requests += await self._deliveries(loaded, change, fresh)
        if loaded.match.recorded is not None or loaded.match.aborted:
            await self.store.retire_game(loaded.game_id)
        if requests:
            await anyio.to_thread.run_sync(self.enqueue, requests)


async def sweep(games: GameService, scheduler: RqScheduler, now_ms: int, batch: int = 500) -> int:
    """Re-enqueue the work of every active game; returns how many jobs it (re)made."""
    made = 0
    after = ""
    while True:
        ids = await games.store.active_games(after, batch)
        if not ids:
            return made
        for game_id in ids:
            try:
                loaded = await games.load(game_id)
            except GameNotFound:
                await games.store.retire_game(game_id)
                continue
            requests = jobs_for(loaded)
            if loaded.meta.turn_seconds is not None:
                known = await deadlines.current(games.store.redis, game_id)
                fresh = await deadlines.refresh(games.store.redis, loaded, now_ms, None)
                turns = [*known.values(), *fresh]
                requests += [deadline_job(game_id, d) for d in turns if d.at_ms]
            if loaded.match.recorded is not None or loaded.match.aborted:
                await games.store.retire_game(game_id)
            if requests:
                made += await anyio.to_thread.run_sync(
                    functools.partial(scheduler.enqueue, requests, revive=True)
                )
        after = ids[-1]
