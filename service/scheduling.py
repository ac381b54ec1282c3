"""After every append: enqueue the RQ jobs the new state calls for.

Bot seats that must act get a bot-turn job; a finished game without a recorded result gets
a scoring job. Job ids are deterministic (``bot-<game>-<seat>-<version>``) and enqueued
with ``unique=True``, so the API and the workers may both ask for the same job safely; the
jobs themselves are idempotent, so a duplicate would be harmless anyway.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from redis import Redis
from rq import Queue, Retry
from rq.exceptions import DuplicateJobError

from service.games import Loaded

BOT_QUEUE = "bots"
SCORING_QUEUE = "scoring"
QUEUES = (BOT_QUEUE, SCORING_QUEUE)


@dataclass(frozen=True)
class JobRequest:
    queue: str
    func: str
    args: tuple[Any, ...]
    job_id: str


def jobs_for(loaded: Loaded) -> list[JobRequest]:
    """The jobs a game's current state calls for (pure: used by the sweep too)."""
    match, rules, meta = loaded.match, loaded.rules, loaded.meta
    game_id = loaded.game_id
    if rules.result(match) is not None:
        if match.recorded is None:
            return [
                JobRequest(SCORING_QUEUE, "workers.jobs.score_game", (game_id,), f"score-{game_id}")
            ]
        return []
    out: list[JobRequest] = []
    for action in rules.awaiting(match):
        if meta.seats[action.seat].type == "bot":
            out.append(
                JobRequest(
                    BOT_QUEUE,
                    "workers.jobs.bot_turn",
                    (game_id, action.seat, match.version),
                    f"bot-{game_id}-{action.seat}-{match.version}",
                )
            )
    return out


class RqScheduler:
    """Enqueues onto a plain (non-cluster) Redis; RQ's client is synchronous."""

    def __init__(self, connect: Callable[[], Redis]) -> None:
        self._connect = connect
        self._redis: Redis | None = None

    def _queue(self, name: str) -> Queue:
        if self._redis is None:
            self._redis = self._connect()
        return Queue(name, connection=self._redis)

    def enqueue(self, requests: list[JobRequest]) -> None:
        for request in requests:
            with contextlib.suppress(DuplicateJobError):
                self._queue(request.queue).enqueue_call(
                    request.func,
                    args=request.args,
                    job_id=request.job_id,
                    unique=True,
                    result_ttl=3600,
                    failure_ttl=86400,
                    # A worker killed mid-job: the job runs again; its idempotency key
                    # makes sure the move is made exactly once.
                    retry=Retry(max=3, interval=[1, 2, 5]),
                )

    def close(self) -> None:
        if self._redis is not None:
            self._redis.close()
            self._redis = None

    async def on_change(self, loaded: Loaded) -> None:
        requests = jobs_for(loaded)
        if requests:
            await anyio.to_thread.run_sync(self.enqueue, requests)
