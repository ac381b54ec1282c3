"""SIGTERM, as Kubernetes sends it: to the API while clients hammer it, to a worker mid-job.

API: every request that got a response got a complete 2xx/4xx one; the process finishes
its in-flight requests and its lifespan shutdown within the grace period; every move it
acknowledged (200 with version V) is in the stream. Worker: a warm shutdown (the running
job finishes, the worker exits cleanly), and after a new worker starts every game still
reaches its end with each bot act made once and the stream intact.
"""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
import msgspec
import redis
from rq import Queue, Worker
from rq.job import Job
from rq.registry import StartedJobRegistry

from domain import registry
from domain.match import SeatSpec
from service.follow_ups.jobs import QUEUES
from service.play.game_service import NewGame
from service.settings import Settings
from service.wiring import open_wiring
from tests.helpers import API_KEY, text
from tests.processes import (
    HumanSeat,
    Processes,
    auth,
    events_key,
    next_request,
    read_seed,
    read_stream,
    service_env,
    verify_stream,
)

SEED = 4242
GRACE = 25.0  # the API's graceful timeout is 20 s; allow for a loaded machine


def _game() -> str:
    return registry.names()[0]


def _create_human_games(base: str, n: int) -> list[list[HumanSeat]]:
    found = registry.get(_game())
    assert found is not None
    out = []
    with httpx.Client(base_url=base, timeout=30) as http:
        for _ in range(n):
            response = http.post(
                "/v1/games",
                json={"game": found.name, "seats": [{"type": "human"}] * found.min_seats},
                headers=auth(API_KEY),
            )
            assert response.status_code == 201, response.text
            created = response.json()
            out.append([HumanSeat(created["id"], g["seat"], g["token"]) for g in created["seats"]])
    return out


# ---- the API ----------------------------------------------------------------------------


@dataclass
class Outcome:
    method: str
    path: str
    sent: float
    status: int | None = None  # None: no response at all (refused, or closed before one)
    error: str | None = None
    truncated: bool = False
    body: Any = None


@dataclass
class Hammer:
    outcomes: list[Outcome] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, http: httpx.Client, method: str, path: str, **kwargs: Any) -> Outcome:
        outcome = Outcome(method, path, time.monotonic())
        try:
            with http.stream(method, path, **kwargs) as response:
                outcome.status = response.status_code
                try:
                    raw = response.read()
                    outcome.body = msgspec.json.decode(raw) if raw else None
                except (httpx.HTTPError, msgspec.DecodeError) as exc:
                    outcome.truncated = True  # a status line, then no whole body
                    outcome.error = repr(exc)
        except httpx.HTTPError as exc:
            outcome.error = type(exc).__name__
        with self.lock:
            self.outcomes.append(outcome)
        return outcome


def _hammer(base: str, table: list[HumanSeat], hammer: Hammer, stop: threading.Event) -> None:
    """Play every seat of one table as fast as possible, with GETs of views and events in
    between, until the server stops answering (or the game ends)."""
    rng = random.Random(f"{SEED}-{table[0].game_id}")
    failures = 0
    with httpx.Client(base_url=base, timeout=30) as http:
        while not stop.is_set() and failures < 3:
            seat = rng.choice(table)
            seen = hammer.send(http, "GET", f"/v1/games/{seat.game_id}", headers=auth(seat.token))
            if seen.status != 200 or seen.truncated:
                failures += seen.status is None
                time.sleep(0.01)
                continue
            if seen.body["status"] == "finished":
                return
            if rng.random() < 0.2:
                hammer.send(http, "GET", f"/v1/games/{seat.game_id}/events", params={"limit": 50})
            request = next_request(seat, seen.body, rng)
            if request is not None:
                path, body = request
                hammer.send(http, "POST", path, json=body, headers=auth(seat.token))


def test_sigterm_to_an_api_under_load_loses_no_acknowledged_move(
    own_redis: str, processes: Processes
) -> None:
    api = processes.api(service_env(own_redis, LOG_LEVEL="INFO"))
    tables = _create_human_games(api.base, 6)
    hammer = Hammer()
    stop = threading.Event()
    with ThreadPoolExecutor(len(tables)) as pool:
        futures = [pool.submit(_hammer, api.base, t, hammer, stop) for t in tables]
        deadline = time.monotonic() + 20
        while sum(o.status == 200 for o in hammer.outcomes) < 150:  # well into the games
            assert time.monotonic() < deadline, "the clients made too little progress"
            time.sleep(0.02)
        signalled = time.monotonic()
        api.proc.send_signal(signal.SIGTERM)
        try:
            code = api.proc.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the API did not exit:\n{processes.tail(api.proc)}") from None
        exited = time.monotonic()
        stop.set()
        for f in futures:
            f.result()

    outcomes = hammer.outcomes
    answered = [o for o in outcomes if o.status is not None]
    assert [o for o in answered if (o.status or 0) >= 500] == []
    assert [o for o in answered if o.truncated] == []
    assert all(o.body is not None for o in answered), "every response has a whole JSON body"
    # The process ran its shutdown (lifespan closed the clients) and exited 0.
    assert code == 0, processes.tail(api.proc)
    log = api.log.read_text(errors="replace")
    assert "Application shutdown complete" in log, processes.tail(api.proc)

    # Every acknowledged act is in its stream, at the version the response named.
    connection = redis.Redis.from_url(own_redis)
    try:
        acked = [o for o in answered if o.method == "POST" and o.status == 200]
        for o in acked:
            game_id = o.path.split("/")[3]
            stream = {e.version: e for e in read_stream(connection, game_id)}
            version = o.body["version"]
            assert version in stream, f"acknowledged v{version} of {game_id} is not stored"
            for record in o.body["events"]:
                stored = msgspec.json.decode(stream[record["version"]].data)
                assert stored["type"] == record["event"]["type"]
        for table in tables:
            game_id = table[0].game_id
            seed = read_seed(connection, game_id)
            verify_stream(read_stream(connection, game_id), seed)
    finally:
        connection.close()

    statuses = Counter(o.status for o in outcomes)
    after = [o for o in outcomes if o.sent >= signalled]
    print(
        f"\nSIGTERM to the API: {len(outcomes)} requests ({len(acked)} acknowledged acts), "
        f"statuses {dict(statuses)}; {len(after)} sent after the signal "
        f"({sum(o.status is not None for o in after)} answered); "
        f"exit {code} after {exited - signalled:.2f} s"
    )


def test_the_api_exits_0_on_sigterm(own_redis: str, processes: Processes) -> None:
    api = processes.api(service_env(own_redis))
    assert httpx.get(api.base + "/readyz", timeout=5).status_code == 200
    api.proc.send_signal(signal.SIGTERM)
    assert api.proc.wait(timeout=GRACE) == 0


# ---- the worker -------------------------------------------------------------------------


def _busy_job(connection: redis.Redis) -> str | None:
    """The bot job a worker is running now (this test's Redis has one worker at a time)."""
    for worker in Worker.all(connection=connection):
        if worker.get_state() == "busy":
            job_id = worker.get_current_job_id()
            if job_id and job_id.startswith("bot-"):
                return job_id
    return None


def _create_bot_games(redis_url: str, n: int) -> list[str]:
    found = registry.get(_game())
    assert found is not None

    async def create() -> list[str]:
        seats = [SeatSpec("bot", "random")] * found.min_seats
        async with open_wiring(Settings(redis_url=redis_url)) as wiring:
            return [
                (await wiring.games.create(NewGame("test", found.name, {}, seats))).game_id
                for _ in range(n)
            ]

    return asyncio.run(create())


def test_sigterm_to_a_busy_worker_is_a_warm_shutdown_and_a_new_worker_finishes_the_games(
    own_redis: str, processes: Processes
) -> None:
    # The job's RQ record is read after it ran: kept an hour here (by default a finished
    # job's records go at once, docs/settings.md).
    # RQ says "warm shut down requested" at info, which shows at LOG_LEVEL=DEBUG only (its
    # per-job lines are debug chatter here, workers/main.py rq_level).
    env = service_env(own_redis, LOG_LEVEL="DEBUG", STAKEOUT_JOB_RESULT_TTL_SECONDS="3600")
    first = processes.worker(env)
    connection = redis.Redis.from_url(own_redis)
    try:
        ids = _create_bot_games(own_redis, 2)

        # Wait until the worker is in the middle of a bot turn, well into the games.
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, processes.tail(first)
            assert first.poll() is None, processes.tail(first)
            progressed = min(connection.xlen(events_key(g)) for g in ids) > 15
            job_id = _busy_job(connection) if progressed else None
            if job_id:
                break
            time.sleep(0.005)
        first.send_signal(signal.SIGTERM)  # the main process only, as the kubelet does
        try:
            code = first.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the worker did not exit:\n{processes.tail(first)}") from None
        log = processes.log_of(first).read_text(errors="replace")
        assert code == 0, processes.tail(first)
        assert "warm shut down requested" in log, processes.tail(first)
        # The job it was running finished (not failed, stopped or abandoned).
        job = Job.fetch(job_id, connection=connection)
        assert job.get_status() == "finished", (job.get_status(), processes.tail(first))
        for name in QUEUES:
            queue = Queue(name, connection=connection)
            assert queue.failed_job_registry.count == 0, processes.tail(first)
            assert StartedJobRegistry(queue=queue).count == 0
        stopped_at = {g: connection.xlen(events_key(g)) for g in ids}

        # No worker: nothing moves. A new worker: every game reaches its end.
        time.sleep(0.3)
        assert {g: connection.xlen(events_key(g)) for g in ids} == stopped_at
        second = processes.worker(service_env(own_redis))
        deadline = time.monotonic() + 150
        for game_id in ids:
            while connection.hget(f"game:{{{game_id}}}:idem", "result") is None:
                assert time.monotonic() < deadline, f"{game_id}: {processes.tail(second)}"
                assert second.poll() is None, processes.tail(second)
                time.sleep(0.1)

        bot_acts = 0
        for game_id in ids:
            seed = read_seed(connection, game_id)
            verified = verify_stream(read_stream(connection, game_id), seed)
            assert verified.results_recorded == 1
            assert connection.xlen(events_key(game_id)) == verified.match.version
            assert verified.match.version > stopped_at[game_id]
            # Every act came through one idempotency key and no key appended twice: the
            # batches and the recorded keys' ranges match one to one.
            batches = [(b.first, b.last) for b in verified.batches[1:]]
            recorded = [
                tuple(int(x) for x in text(v).rsplit("|", 2)[1:])
                for v in connection.hvals(f"game:{{{game_id}}}:idem")
            ]
            assert sorted(recorded) == batches, "an act appended twice, or without its key"
            bot_acts += len(verified.acts_by("bot"))
        for name in QUEUES:
            assert Queue(name, connection=connection).failed_job_registry.count == 0
    finally:
        connection.close()
    print(
        f"\nSIGTERM to a worker running {job_id}: exit {code}; games stopped at "
        f"{sorted(stopped_at.values())} events; a new worker finished them: {bot_acts} bot acts"
    )
