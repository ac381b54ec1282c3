"""Matchmaking between API keys (issue 35), through HTTP against a real API process and a
real matchmaking worker: the caps on waiting tickets (per key, per player), a matcher that
makes another key's game without waiting for a key's backlog of games, and a guessed secret
that cannot tell a real ticket id from an unknown one."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import httpx
import pytest
import redis

from service.play.access import ApiKeys
from service.store.keys import mm_player_key, mm_pool_key
from tests.helpers import API_KEY, auth, wait_for
from tests.processes import Processes, own_redis, processes, service_env

__all__ = ["own_redis", "processes"]

OTHER_KEY = "another-tenants-key"
PROBLEM = "application/problem+json"
TYPE = "urn:stakeout:problem:"


def _env(redis_url: str, **extra: str) -> dict[str, str]:
    return service_env(redis_url, STAKEOUT_API_KEYS=f"{API_KEY},{OTHER_KEY}", **extra)


def _matchmaker(processes: Processes, env: dict[str, str]) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "stakeout.cli", "worker", "--queues", "matchmaking"]
    return processes.spawn("matchmaker", args, env)


def _open(http: httpx.Client, player: str, key: str = API_KEY, **body: Any) -> httpx.Response:
    payload = {"game": "fbi", "player": {"external_id": player}, "seats": [5], **body}
    return http.post("/v1/matchmaking/tickets", json=payload, headers=auth(key))


def _status(http: httpx.Client, ticket: dict[str, Any], key: str = API_KEY) -> str:
    read = http.get(f"/v1/matchmaking/tickets/{ticket['id']}", headers=auth(key))
    assert read.status_code == 200, read.text
    return str(read.json()["status"])


def _refused(response: httpx.Response, code: str) -> None:
    assert response.status_code == 409, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    assert response.json()["type"] == TYPE + code


def _owner(key: str) -> str:
    return ApiKeys((key,)).identify(key) or ""


def test_a_player_waits_in_a_few_queues_at_most(own_redis: str, processes: Processes) -> None:
    api = processes.api(_env(own_redis, STAKEOUT_MAX_PLAYER_TICKETS="2"))
    store = redis.Redis.from_url(own_redis)
    with httpx.Client(base_url=api.base, timeout=30) as http:
        first = _open(http, "ann").json()
        assert _open(http, "ann", game="feds", seats=[3]).status_code == 201
        before = store.zrange(mm_pool_key(_owner(API_KEY)), 0, -1)
        _refused(_open(http, "ann", seats=[2]), "player-ticket-limit")
        # Refused, nothing changed: no third ticket waits, the player's set holds two.
        assert store.zrange(mm_pool_key(_owner(API_KEY)), 0, -1) == before
        assert store.zcard(mm_player_key(_owner(API_KEY), "ann")) == 2
        # Other players, and the same external id of another API key, are not held back.
        assert _open(http, "bob").status_code == 201
        assert _open(http, "ann", key=OTHER_KEY).status_code == 201
        # The cap counts waiting tickets: once one is cancelled, another may wait.
        cancelled = http.delete(
            f"/v1/matchmaking/tickets/{first['id']}", headers=auth(first["secret"])
        )
        assert cancelled.status_code == 200, cancelled.text
        assert _open(http, "ann", seats=[2]).status_code == 201
        _refused(_open(http, "ann", seats=[2]), "player-ticket-limit")


def test_an_api_key_has_so_many_waiting_tickets_and_its_matches_free_them(
    own_redis: str, processes: Processes
) -> None:
    env = _env(own_redis, STAKEOUT_MAX_WAITING_TICKETS="5")
    api = processes.api(env)
    with httpx.Client(base_url=api.base, timeout=30) as http:
        made = [_open(http, f"p{i}").json() for i in range(5)]  # a table of five
        _refused(_open(http, "p5"), "ticket-limit")
        assert _open(http, "p5", key=OTHER_KEY).status_code == 201  # per key
        _matchmaker(processes, env)
        wait_for(lambda: all(_status(http, t) == "matched" for t in made), interval=0.2)
        assert _open(http, "p5").status_code == 201


def test_a_key_with_a_queue_of_games_to_make_does_not_hold_back_another_keys_game(
    own_redis: str, processes: Processes
) -> None:
    """Key A's 30 tables and key B's one are all waiting when the matcher's first pass
    starts (B's the newest). The pass makes one game of each key in turn: B's game is made
    after one of A's at most, not after all thirty."""
    env = _env(own_redis)
    api = processes.api(env)
    with httpx.Client(base_url=api.base, timeout=30) as http:
        for i in range(60):
            assert _open(http, f"a{i}", seats=[2]).status_code == 201
        b_tickets = [_open(http, f"b{i}", key=OTHER_KEY, seats=[2]).json() for i in range(2)]
        _matchmaker(processes, env)
        wait_for(
            lambda: all(_status(http, t, OTHER_KEY) == "matched" for t in b_tickets),
            interval=0.2,
        )

        def games(key: str) -> list[dict[str, Any]]:
            listed = http.get("/v1/games", params={"limit": 100}, headers=auth(key))
            assert listed.status_code == 200, listed.text
            return list(listed.json()["games"])

        a_games = wait_for(lambda: len(g := games(API_KEY)) == 30 and g, interval=0.2)
        (b_game,) = games(OTHER_KEY)
        before_b = [g for g in a_games if g["created_ms"] < b_game["created_ms"]]
        assert len(before_b) <= 1, (len(before_b), "of A's games were made before B's")


@pytest.mark.parametrize("credential", ["guessed-secret", "not-a-secret"])
def test_a_guessed_secret_cannot_tell_a_real_ticket_from_an_unknown_one(
    own_redis: str, processes: Processes, credential: str
) -> None:
    api = processes.api(_env(own_redis))
    token = "mmt_" + "A" * 43 if credential == "guessed-secret" else "sk_" + "B" * 40
    with httpx.Client(base_url=api.base, timeout=30) as http:
        real = _open(http, "ann").json()["id"]
        answers = []
        for ticket_id in (real, "0123456789abcdef01234567"):
            for method in ("GET", "DELETE"):
                response = http.request(
                    method, f"/v1/matchmaking/tickets/{ticket_id}", headers=auth(token)
                )
                body = response.json()
                answers.append((response.status_code, body["type"], body["detail"]))
        assert answers[0][0] == 401, answers
        assert answers[2:] == answers[:2], "the real ticket's answers differ from an unknown's"
        assert _status(http, {"id": real}) == "waiting"  # nothing was cancelled
