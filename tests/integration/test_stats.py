"""An API key's statistics: counted by the scoring job, once per game, retries included."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

import redis
import redis.asyncio
from rq import Queue
from rq.job import Job

from domain.match import SeatSpec
from service.follow_ups.jobs import SCORING_QUEUE
from service.play.stats import StatsStore
from service.settings import Settings
from tests.helpers import API_KEY, auth, create, view, wait_for


def test_a_game_is_counted_once_however_often_it_is_counted(clean_redis: str) -> None:
    seats = [SeatSpec("human"), SeatSpec("bot", "expert"), SeatSpec("bot", "random")]

    async def scenario() -> tuple[list[bool], Any, Any]:
        client = redis.asyncio.Redis.from_url(clean_redis)
        stats = StatsStore(client)
        counted = [
            await stats.count_result("alice", "g1", "fbi", seats, [0, 1]),
            await stats.count_result("alice", "g1", "fbi", seats, [0, 1]),
            await stats.count_result("alice", "g2", "fbi", seats, [2]),
        ]
        mine, theirs = await stats.of("alice"), await stats.of("bob")
        await client.aclose()
        return counted, mine, theirs

    counted, mine, theirs = asyncio.run(scenario())
    assert counted == [True, False, True]
    assert theirs.games == []
    (fbi,) = mine.games
    assert fbi.finished == 2
    assert {(s.kind, s.played, s.won) for s in fbi.seats} == {
        ("human", 2, 1),
        ("expert", 2, 1),
        ("random", 2, 1),
    }


def test_the_scoring_job_counts_a_finished_game_once(
    client: Any, settings: Settings, worker: subprocess.Popen[bytes]
) -> None:
    assert client.get("/v1/stats", headers=auth(API_KEY)).json() == {"games": []}
    assert client.get("/v1/stats").status_code == 401
    seats = [{"type": "bot", "level": "random"}, {"type": "bot", "level": "greedy"}]
    game_id = create(client, "fbi", seats)["id"]
    result = wait_for(lambda: view(client, game_id)["result"], timeout=120)

    def stats() -> Any:
        return client.get("/v1/stats", headers=auth(API_KEY)).json()

    expected = {
        "games": [
            {
                "game": "fbi",
                "finished": 1,
                "seats": [
                    {"kind": "greedy", "played": 1, "won": int(1 in result["winners"])},
                    {"kind": "random", "played": 1, "won": int(0 in result["winners"])},
                ],
            }
        ]
    }
    assert wait_for(lambda: stats() == expected or None, timeout=30)
    # The scoring job again, as a retry would run it: the result stands, nothing is recounted.
    connection = redis.Redis.from_url(settings.redis_url or "")
    job = Queue(SCORING_QUEUE, connection=connection).enqueue_call(
        "workers.jobs.score_game", args=(game_id,), job_id=f"score-again-{game_id}"
    )
    wait_for(lambda: Job.fetch(job.id, connection=connection).is_finished, timeout=30)
    assert Job.fetch(job.id, connection=connection).return_value() == (
        "already recorded; already rated"
    )
    connection.close()
    assert stats() == expected
