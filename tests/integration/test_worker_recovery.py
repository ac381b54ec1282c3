"""Workers and their Redis, for real: a worker started before its Redis waits for it, and a
bot job whose worker is SIGKILLed mid-job is put back and played by another worker, long
before RQ itself would call the job abandoned (about 90 s), and without waiting for the
dead worker's keys to expire."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import httpx
import redis
from rq import Queue

from service.follow_ups.jobs import BOT_QUEUE
from service.ops.embedded import EmbeddedRedis
from service.store.keys import OUTBOX_SHARDS, outbox_owner_key, worker_alive_key
from tests.helpers import API_KEY, auth, wait_for
from tests.processes import Processes, free_port, own_redis, processes, service_env

__all__ = ["own_redis", "processes"]

BOTS3 = [{"type": "bot", "level": "random"} for _ in range(3)]


def test_a_worker_started_before_its_redis_waits_for_it_then_plays(
    processes: Processes, tmp_path: Path
) -> None:
    port = free_port()  # nothing listens here yet
    url = f"redis://127.0.0.1:{port}/0"
    worker = processes.worker(service_env(url, LOG_LEVEL="INFO"))
    # It keeps trying (and says so) instead of exiting.
    wait_for(lambda: "queue Redis unreachable" in processes.log_of(worker).read_text(), 60)
    wait_for(lambda: processes.log_of(worker).read_text().count("retrying in") >= 3, 60)
    assert worker.poll() is None, processes.tail(worker)

    server = EmbeddedRedis(tmp_path / "valkey", port=port)
    server.start()
    try:
        api = processes.api(service_env(url))
        with httpx.Client(base_url=api.base, timeout=30) as http:
            created = http.post(
                "/v1/games", json={"game": "fbi", "seats": BOTS3}, headers=auth(API_KEY)
            )
            assert created.status_code == 201, created.text
            game_id = created.json()["id"]
            # The worker that waited plays the bots' turns.
            wait_for(lambda: http.get(f"/v1/games/{game_id}").json()["version"] > 10, 120)
        assert worker.poll() is None, processes.tail(worker)
    finally:
        processes.stop(worker)
        server.stop()


def _started_on(connection: redis.Redis, pid: int, seat: int) -> tuple[str, int] | None:
    """``seat``'s bot job, if the worker process ``pid`` runs it: (job id, game version)."""
    host = socket.gethostname()
    queue = Queue(BOT_QUEUE, connection=connection)
    for job_id in queue.started_job_registry.get_job_ids(cleanup=False):
        job = queue.fetch_job(job_id)
        name = "" if job is None else job.worker_name or ""
        mine = name == f"{host}-{pid}" or name.startswith(f"{host}-{pid}-")
        if (
            job is not None
            and mine
            and (job.func_name or "").endswith("bot_turn")
            and job.args[1] == seat
        ):
            return job.id, int(job.args[2])
    return None


KEEP_RECORDS = {"STAKEOUT_JOB_RESULT_TTL_SECONDS": "3600"}


@dataclass(frozen=True)
class _Killed:
    """A bot's job whose worker was SIGKILLed mid-job, and the worker left to take it."""

    game_id: str
    job_id: str
    version: int  # the game's version when the job started
    dead: str  # the killed worker's process name (host-pid)
    quick: subprocess.Popen[bytes]


def _kill_mid_job(
    processes: Processes, own_redis: str, http: httpx.Client, connection: redis.Redis
) -> _Killed:
    """Worker A thinks long (an expert with a large effort and a 20 s cap), so its job is
    surely still running when it is killed; worker B plays quickly and starts while A holds
    the job. Which worker ran a job is read from its RQ record after it ran: records are
    kept an hour here, by whoever enqueues (by default a finished job's records go at once)."""
    slow = processes.worker(
        service_env(own_redis, STAKEOUT_BOT_EFFORT="100", STAKEOUT_BOT_SECONDS="20", **KEEP_RECORDS)
    )
    seats = [{"type": "bot", "level": "expert"}, *BOTS3[:2]]
    created = http.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(API_KEY))
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    job_id, version = wait_for(lambda: _started_on(connection, slow.pid, 0), 120)
    quick = processes.worker(service_env(own_redis, **KEEP_RECORDS))
    os.killpg(slow.pid, signal.SIGKILL)
    slow.wait()
    return _Killed(game_id, job_id, version, f"{socket.gethostname()}-{slow.pid}", quick)


def test_a_bot_job_whose_worker_is_killed_mid_job_is_played_by_another_worker(
    processes: Processes, own_redis: str
) -> None:
    api = processes.api(service_env(own_redis, **KEEP_RECORDS))
    connection = redis.Redis.from_url(own_redis)
    try:
        with httpx.Client(base_url=api.base, timeout=30) as http:
            killed = _kill_mid_job(processes, own_redis, http, connection)
            # B's lifeline finds the job of the dead worker and puts it back; B plays it.
            game = f"/v1/games/{killed.game_id}"
            wait_for(lambda: http.get(game).json()["version"] > killed.version, 60)
            assert killed.quick.poll() is None, processes.tail(killed.quick)
            job = Queue(BOT_QUEUE, connection=connection).fetch_job(killed.job_id)
            assert job is not None
            assert not (job.worker_name or "").startswith(killed.dead + "-")
    finally:
        connection.close()


def test_a_killed_worker_is_known_dead_by_its_closed_connection_not_only_by_its_keys(
    processes: Processes, own_redis: str
) -> None:
    """The kill as above, but the dead worker's liveness key and its outbox leases are
    pinned for an hour after it dies, as if it were only frozen: its peer must learn of the
    death from Redis's client list (the lifeline's connection is gone) to take its job and
    its shards; waiting for the keys would stall the game for the hour."""
    api = processes.api(service_env(own_redis, **KEEP_RECORDS))
    connection = redis.Redis.from_url(own_redis)
    try:
        with httpx.Client(base_url=api.base, timeout=30) as http:
            killed = _kill_mid_job(processes, own_redis, http, connection)
            dead, game_id, version, quick = (
                killed.dead,
                killed.game_id,
                killed.version,
                killed.quick,
            )
            connection.set(worker_alive_key(dead), "1", ex=3600)
            held = [
                s for s in OUTBOX_SHARDS if connection.get(outbox_owner_key(s)) == dead.encode()
            ]
            assert held, "the dead worker held no outbox shard"
            for shard in held:
                connection.pexpire(outbox_owner_key(shard), 3_600_000)
            # Its job is played again, and the follow-ups of what comes after run: the
            # bots play on through several changes (each one followed up by a shard).
            wait_for(lambda: http.get(f"/v1/games/{game_id}").json()["version"] > version + 5, 90)
            assert quick.poll() is None, processes.tail(quick)
            assert all(connection.get(outbox_owner_key(s)) != dead.encode() for s in held)
    finally:
        connection.close()
