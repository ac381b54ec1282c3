"""RQ's records of a game's jobs, on a real worker: gone as each job finishes (a bot game's
turns were most of the queue Redis's memory while they lived an hour), a failed job's kept
a day; a job asked for again after its records are gone runs and changes nothing."""

from __future__ import annotations

from typing import Any

import redis
from rq import Queue
from rq.job import Job, JobStatus

from service.follow_ups.jobs import BOT_QUEUE, FAILURE_TTL_SECONDS, QUEUES, JobQueue, JobRequest
from tests.helpers import create, text, view, wait_for

BOTS3 = [{"type": "bot", "level": "random"}] * 3


def _records_of(connection: redis.Redis, game_id: str) -> list[bytes]:
    """RQ's keys of the game's bot turns and scoring (its archive job waits, scheduled,
    for the end of its window), and their entries in the queues' registries."""
    keys: list[bytes] = []
    for job in (f"bot-{game_id}-*", f"score-{game_id}"):
        for pattern in (f"rq:job:{job}", f"rq:results:{job}", f"rq:execution*:{job}*"):
            keys += connection.scan_iter(match=pattern, count=1000)
    for name in QUEUES:
        queue = Queue(name, connection=connection)
        for registry in (queue.finished_job_registry, queue.started_job_registry):
            for entry in connection.zrange(registry.key, 0, -1):
                assert isinstance(entry, bytes), entry
                if game_id.encode() in entry:
                    keys.append(entry)
    return keys


def _queues_idle(connection: redis.Redis) -> bool:
    return all(
        Queue(name, connection=connection).count == 0
        and not connection.zcard(Queue(name, connection=connection).started_job_registry.key)
        for name in QUEUES
    )


def test_a_bot_games_job_records_are_gone_once_its_jobs_have_run(
    client: Any, worker: Any, clean_redis: str
) -> None:
    game = create(client, "fbi", BOTS3)
    game_id = game["id"]
    connection = redis.Redis.from_url(clean_redis)
    try:
        wait_for(lambda: view(client, game_id)["result"], timeout=120)
        # Every bot turn, the scoring job and the follow-ups' duplicates ran; their records
        # went with them (they lived STAKEOUT_JOB_RESULT_TTL_SECONDS, an hour, before).
        wait_for(lambda: not _records_of(connection, game_id), timeout=30)
        # A bot turn asked for again (an outbox entry followed up twice) is a new job
        # (its id is free), runs, and makes no move: the move's idempotency key is in
        # the game's stream, not in RQ.
        moved = [
            text(key).split(":")
            for key in connection.hkeys(f"game:{{{game_id}}}:idem")
            if text(key).startswith("bot:")
        ]
        again = [
            JobRequest(
                BOT_QUEUE,
                "workers.jobs.bot_turn",
                (game_id, int(seat), int(version)),
                f"bot-{game_id}-{seat}-{version}",
            )
            for _, seat, _, version in moved[:20]
        ]
        version = view(client, game_id)["version"]
        jobs = JobQueue(lambda: redis.Redis.from_url(clean_redis))
        try:
            assert jobs.enqueue(again) == len(again) == 20
        finally:
            jobs.close()
        wait_for(lambda: _queues_idle(connection) and not _records_of(connection, game_id))
        assert view(client, game_id)["version"] == version
    finally:
        connection.close()


def test_a_failed_job_is_kept_a_day_for_an_operator_to_read(worker: Any, clean_redis: str) -> None:
    failing = JobRequest(
        BOT_QUEUE,
        "workers.jobs.bot_turn",
        ("no-such-game", 0, 1),
        "bot-no-such-game-0-1",
        retry_intervals=(1,),
    )
    jobs = JobQueue(lambda: redis.Redis.from_url(clean_redis))
    connection = redis.Redis.from_url(clean_redis)
    try:
        assert jobs.enqueue([failing]) == 1

        def failed() -> Job | None:
            job = Job.fetch(failing.job_id, connection=connection)
            return job if job.get_status() == JobStatus.FAILED else None

        job = wait_for(failed, timeout=60)
        registry = Queue(BOT_QUEUE, connection=connection).failed_job_registry
        assert failing.job_id in registry.get_job_ids()
        ttl = connection.ttl(job.key)
        assert FAILURE_TTL_SECONDS - 120 < ttl <= FAILURE_TTL_SECONDS, ttl
        result = job.latest_result()
        assert result is not None
        assert result.exc_string  # its traceback, to read
    finally:
        jobs.close()
        connection.close()
