"""How long a game stalls when the worker running its bot's turn is SIGKILLed mid-job.

    .venv/bin/python bench/worker_kill.py [--trials 5]

Starts its own embedded Valkey, one `stakeout serve` and two `stakeout worker` processes on
loopback. Each trial: a game with an expert bot (worker A thinks long: effort 100, 20 s
cap, so its job is surely running) and two random bots; once A has started the expert's
turn, worker B is started and, once B is listening, A is killed (SIGKILL, its whole
process group), and the clock runs until the game's version moves past that turn (B's
lifeline finds the dead worker's job and B plays it). Both are started again for the next
trial. Prints each resume time, the median and the worst. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import redis
from rq import Queue, Worker

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.ops.embedded import EmbeddedRedis
from tests.conftest import free_port

KEY = "bench-key"
ROOT = Path(__file__).resolve().parents[1]


def spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "stakeout.cli", *args],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def wait(predicate, timeout: float, interval: float = 0.02):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError("condition not reached")


def running_expert_turn(connection: redis.Redis, pid: int) -> int | None:
    """The version of seat 0's bot turn, if worker process ``pid`` is running it."""
    prefix = f"{socket.gethostname()}-{pid}-"
    queue = Queue("bots", connection=connection)
    for job_id in queue.started_job_registry.get_job_ids(cleanup=False):
        job = queue.fetch_job(job_id)
        if job is None or not (job.worker_name or "").startswith(prefix):
            continue
        if (job.func_name or "").endswith("bot_turn") and job.args[1] == 0:
            return int(job.args[2])
    return None


def main(trials: int) -> None:
    work = Path(tempfile.mkdtemp())
    server = EmbeddedRedis(work / "valkey")
    url = server.start()
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": url,
        "STAKEOUT_API_KEYS": KEY,
        "STAKEOUT_RATE_LIMIT_PER_MINUTE": "0",
        "LOG_LEVEL": "WARNING",
    }
    slow_env = {**env, "STAKEOUT_BOT_EFFORT": "100", "STAKEOUT_BOT_SECONDS": "20"}
    api = spawn(["serve"], {**env, "PORT": str(port)}, work / "api.log")
    quick: subprocess.Popen[bytes] | None = None
    connection = redis.Redis.from_url(url)
    stalls: list[float] = []
    slow: subprocess.Popen[bytes] | None = None
    try:
        base = f"http://127.0.0.1:{port}"

        def ready() -> bool:
            try:
                return httpx.get(base + "/readyz").status_code == 200
            except httpx.HTTPError:
                return False

        wait(ready, 60, 0.2)
        seats = [{"type": "bot", "level": "expert"}] + [{"type": "bot", "level": "random"}] * 2
        with httpx.Client(base_url=base, timeout=30) as http:
            for trial in range(trials):
                slow = spawn(["worker"], slow_env, work / "worker-a.log")
                game = http.post(
                    "/v1/games",
                    json={"game": "fbi", "seats": seats},
                    headers={"Authorization": f"Bearer {KEY}"},
                ).json()
                pid = slow.pid
                version = wait(lambda pid=pid: running_expert_turn(connection, pid), 120)
                # B starts once A has the expert's turn (else B could take it first).
                quick = spawn(["worker"], env, work / "worker-b.log")
                b_name = f"{socket.gethostname()}-{quick.pid}-"

                def listening(prefix: str = b_name) -> bool:
                    return any(w.name.startswith(prefix) for w in Worker.all(connection=connection))

                wait(listening, 120, 0.1)
                killed = time.monotonic()
                os.killpg(slow.pid, signal.SIGKILL)
                slow.wait()

                def moved(game_id: str = game["id"], v: int = version) -> bool:
                    return int(http.get(f"/v1/games/{game_id}").json()["version"]) > v

                wait(moved, 300)
                stalls.append(time.monotonic() - killed)
                quick.send_signal(signal.SIGTERM)
                quick.wait(timeout=60)
                print(f"trial {trial + 1}: the game resumed {stalls[-1]:.1f} s after the kill")
        print(
            f"resume after a worker killed mid-job: median {statistics.median(stalls):.1f} s, "
            f"worst {max(stalls):.1f} s over {len(stalls)} trials"
        )
    finally:
        for proc in (api, quick, slow):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
        connection.close()
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=5)
    main(parser.parse_args().trials)
