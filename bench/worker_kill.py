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
import socket
import statistics
import sys
import time
from pathlib import Path

import httpx
import redis
from rq import Queue, Worker

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import API_KEY, auth, wait_for
from tests.processes import service_env, valkey_and_processes


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
    stalls: list[float] = []
    with (
        valkey_and_processes() as (url, procs),
        redis.Redis.from_url(url) as connection,
    ):
        env = service_env(url)
        slow_env = {**env, "STAKEOUT_BOT_EFFORT": "100", "STAKEOUT_BOT_SECONDS": "20"}
        api = procs.api(env, timeout=60)
        seats = [{"type": "bot", "level": "expert"}] + [{"type": "bot", "level": "random"}] * 2
        with httpx.Client(base_url=api.base, timeout=30) as http:
            for trial in range(trials):
                slow = procs.worker(slow_env)
                game = http.post(
                    "/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(API_KEY)
                ).json()
                pid = slow.pid
                version = wait_for(lambda pid=pid: running_expert_turn(connection, pid), 120, 0.02)
                # B starts once A has the expert's turn (else B could take it first).
                quick = procs.worker(env)
                b_name = f"{socket.gethostname()}-{quick.pid}-"

                def listening(prefix: str = b_name) -> bool:
                    return any(w.name.startswith(prefix) for w in Worker.all(connection=connection))

                wait_for(listening, 120, 0.1)
                killed = time.monotonic()
                procs.kill(slow)

                def moved(game_id: str = game["id"], v: int = version) -> bool:
                    return int(http.get(f"/v1/games/{game_id}").json()["version"]) > v

                wait_for(moved, 300, 0.02)
                stalls.append(time.monotonic() - killed)
                procs.stop(quick, timeout=60)
                print(f"trial {trial + 1}: the game resumed {stalls[-1]:.1f} s after the kill")
    print(
        f"resume after a worker killed mid-job: median {statistics.median(stalls):.1f} s, "
        f"worst {max(stalls):.1f} s over {len(stalls)} trials"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=5)
    main(parser.parse_args().trials)
