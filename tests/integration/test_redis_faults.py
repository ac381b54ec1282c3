"""A Redis that is frozen (SIGSTOP) or gone (SIGKILL) under a real API process: every
request that needs it answers 503 `unavailable` with `Retry-After`, never a 500, and the
service answers normally again once Redis is back. Real processes, real signals."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.ops.embedded import EmbeddedRedis
from tests.helpers import API_KEY, auth, wait_for
from tests.processes import Processes, processes, service_env

__all__ = ["processes"]

HUMANS2 = [{"type": "human"}, {"type": "human"}]
# A guard against a hang, far above the short Redis timeouts the service uses; the answer
# time itself is measured by bench/redis_faults.py, not asserted here.
CLIENT_TIMEOUT = 30.0


@pytest.fixture
def valkey(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path / "valkey")
    server.start()
    try:
        yield server
    finally:
        pid = server.pid
        if pid is not None and not server.exited():
            os.kill(pid, signal.SIGCONT)
        server.stop()


def _requests(game_id: str, token: str, move: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """One of each kind: a seat's view, a spectator's view, a move, the events, the key's
    games, a creation, the readiness probe."""
    return [
        ("GET", f"/v1/games/{game_id}", {"headers": auth(token)}),
        ("GET", f"/v1/games/{game_id}", {}),
        (
            "POST",
            f"/v1/games/{game_id}/moves",
            {"headers": {**auth(token), "Idempotency-Key": "move-in-a-fault"}, "json": move},
        ),
        ("GET", f"/v1/games/{game_id}/events", {}),
        ("GET", "/v1/games", {"headers": auth(API_KEY)}),
        (
            "POST",
            "/v1/games",
            {"headers": auth(API_KEY), "json": {"game": "fbi", "seats": HUMANS2}},
        ),
        ("GET", "/readyz", {}),
    ]


def _assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == "urn:stakeout:problem:unavailable"
    assert int(response.headers["retry-after"]) >= 1


def test_a_frozen_then_dead_redis_answers_503_unavailable_then_recovers(
    processes: Processes, valkey: EmbeddedRedis
) -> None:
    api = processes.api(service_env(valkey.url))
    with httpx.Client(base_url=api.base, timeout=CLIENT_TIMEOUT) as http:
        created = http.post(
            "/v1/games", json={"game": "fbi", "seats": HUMANS2}, headers=auth(API_KEY)
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        tokens = [s["token"] for s in created.json()["seats"]]
        seat = http.get(f"/v1/games/{game_id}").json()["awaiting"][0]["seat"]
        seen = http.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json()
        version, move = seen["version"], seen["legal"][0]
        requests = _requests(game_id, tokens[seat], move)

        pid = valkey.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # frozen: connections open, nothing answers
        try:
            for method, path, options in requests:
                _assert_unavailable(http.request(method, path, **options))
        finally:
            os.kill(pid, signal.SIGCONT)
        assert http.get("/healthz").status_code == 200  # liveness never needs Redis

        # Back: the service answers again, and the move retried with its Idempotency-Key is
        # applied exactly once (a command queued in the frozen server may have run on thaw).
        def ready() -> bool:
            return http.get("/readyz").status_code == 200

        wait_for(ready, timeout=30)
        method, path, options = requests[2]
        retried = http.request(method, path, **options)
        assert retried.status_code == 200, retried.text
        moved_to = retried.json()["version"]
        assert moved_to > version
        assert http.get(f"/v1/games/{game_id}").json()["version"] == moved_to
        again = http.request(method, path, **options)
        assert again.status_code == 200, again.text
        assert again.json()["version"] == moved_to

        valkey.kill()  # gone: connections refused
        for method, path, options in requests:
            _assert_unavailable(http.request(method, path, **options))

        valkey.restart()  # same port, same AOF
        wait_for(ready, timeout=30)
        assert http.get(f"/v1/games/{game_id}").json()["version"] == moved_to
