"""How fast requests are answered while Redis is frozen or gone.

    .venv/bin/python bench/redis_faults.py [--freeze 10]

Starts its own embedded Valkey and one `stakeout serve` on loopback, twice: with the rate
limit off and on (1200/min, as shipped). Each time: a game is created, the Valkey is frozen
with SIGSTOP for ``--freeze`` seconds while one client reads the game's view again and again
(each answer's status and time recorded), thawed, then killed (SIGKILL) for a few seconds
of the same, and restarted. Prints, per phase, the statuses seen and the slowest answer.
A measurement, not a test.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.ops.embedded import EmbeddedRedis
from tests.helpers import API_KEY, auth
from tests.processes import running, service_env


def hammer(http: httpx.Client, path: str, seconds: float) -> tuple[collections.Counter[int], float]:
    statuses: collections.Counter[int] = collections.Counter()
    slowest = 0.0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        statuses[http.get(path).status_code] += 1
        slowest = max(slowest, time.monotonic() - started)
    return statuses, slowest


def run(rate_limit: str, freeze: float) -> None:
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        server = EmbeddedRedis(Path(tmp) / "valkey")
        url = server.start()
        stack.callback(server.stop)  # after the API's stop
        procs = stack.enter_context(running(Path(tmp)))
        env = service_env(url, STAKEOUT_RATE_LIMIT_PER_MINUTE=rate_limit, LOG_LEVEL="ERROR")
        api = procs.api(env)
        with httpx.Client(base_url=api.base, timeout=60) as http:
            game = http.post(
                "/v1/games",
                json={"game": "fbi", "seats": [{"type": "human"}, {"type": "human"}]},
                headers=auth(API_KEY),
            ).json()
            path = f"/v1/games/{game['id']}"
            label = "off" if rate_limit == "0" else f"{rate_limit}/min"
            pid = server.pid
            assert pid is not None
            os.kill(pid, signal.SIGSTOP)
            try:
                statuses, slowest = hammer(http, path, freeze)
            finally:
                os.kill(pid, signal.SIGCONT)
            print(
                f"rate limit {label}: frozen {freeze:g} s: {dict(statuses)}, slowest answer"
                f" {slowest:.2f} s"
            )
            time.sleep(1)
            server.kill()
            statuses, slowest = hammer(http, path, 3)
            print(f"rate limit {label}: killed 3 s: {dict(statuses)}, slowest {slowest:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--freeze", type=float, default=10.0)
    freeze = parser.parse_args().freeze
    for rate_limit in ("0", "1200"):
        run(rate_limit, freeze)
