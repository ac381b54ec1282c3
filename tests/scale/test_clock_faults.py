"""A clock's flag falls whatever happens to the worker that should make it fall (issue 34).

Real processes: an API, game workers SIGKILLed while a seat's flag is due, on a Valkey of
the test's own. The time-out is made once, never before the bank was empty by the log's
own times, and the finished game's replay verifies (every bank re-derived).
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import httpx
import msgspec

from domain.verify import ReplayDocument, verify
from tests.helpers import API_KEY, wait_for
from tests.processes import Processes, auth, service_env

BOTS = [{"type": "bot", "level": "random"}] * 3
CLOCK = {"initial_seconds": 5, "increment_seconds": 0, "on_time_out": "bot_seat"}


def _events(http: httpx.Client, game_id: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        page = http.get(f"/v1/games/{game_id}/events", params={"after": after}).json()
        out += page["events"]
        if not page["has_more"]:
            return out
        after = page["next_after"]


def test_a_flag_due_while_its_worker_is_killed_falls_once_on_the_next_worker(
    own_redis: str, processes: Processes
) -> None:
    env = service_env(own_redis)
    api = processes.api(env)
    with httpx.Client(base_url=api.base, timeout=30) as http:
        worker = processes.worker(env)
        body = {"game": "fbi", "seats": [{"type": "human"}, *BOTS], "clock": CLOCK}
        created = http.post("/v1/games", json=body, headers=auth(API_KEY))
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]

        def seat_0_due() -> int | None:
            awaiting = http.get(f"/v1/games/{game_id}").json()["awaiting"]
            return next((a["deadline"] for a in awaiting if a["seat"] == 0), None)

        due = wait_for(seat_0_due, timeout=30)  # once the bots before it have moved
        # The worker holds the armed time-out; it dies a moment before the flag falls,
        # and the next one starts only after it was due.
        wait_for(lambda: time.time() * 1000 >= due - 1_000, timeout=30, interval=0.02)
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
        wait_for(lambda: time.time() * 1000 >= due, timeout=30, interval=0.02)
        processes.worker(env)

        def flags() -> list[dict[str, Any]]:
            return [e for e in _events(http, game_id) if e["event"]["type"] == "clock.flagged"]

        flag = wait_for(flags, timeout=60)[0]
        assert flag["at_ms"] >= due  # by the log's own times, never early
        print(f"flag fell {flag['at_ms'] - due} ms after it was due (worker killed)")
        wait_for(
            lambda: http.get(f"/v1/games/{game_id}").json()["status"] == "finished", timeout=120
        )
        assert len(flags()) == 1  # once, whatever ran twice
        replay = http.get(f"/v1/games/{game_id}/replay")
        assert replay.status_code == 200, replay.text
        verified = verify(msgspec.json.decode(replay.content, type=ReplayDocument))
        assert verified.game_id == game_id
