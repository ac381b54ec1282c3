"""Turn deadlines, the sweep that finds lost work, and workers killed mid-job — with real
worker processes and a real Redis, killing processes for real."""

from __future__ import annotations

import itertools
import os
import random
import signal
import subprocess
import sys
import time
from typing import Any

import msgspec
import redis

from domain.sealed import commitment
from domain.verify import ReplayDocument, verify
from tests.conftest import start_worker, stop_worker
from tests.helpers import API_KEY, auth, text, view, wait_for

HUMANS2 = [{"type": "human"}, {"type": "human"}]


def _events(client: Any, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        page = client.get(
            f"/v1/games/{game_id}/events",
            params={"after": after, "limit": 500},
            headers=auth(token) if token else {},
        ).json()
        out += page["events"]
        if not page["has_more"]:
            return out
        after = page["next_after"]


def test_a_seat_that_misses_its_deadline_is_played_by_a_bot_and_the_event_says_so(
    client: Any, worker: subprocess.Popen[bytes]
) -> None:
    response = client.post(
        "/v1/games",
        json={"game": "fbi", "seats": HUMANS2, "turn_seconds": 5},
        headers=auth(API_KEY),
    )
    assert response.status_code == 201, response.text
    created = response.json()
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    seen = view(client, game_id)
    action = seen["awaiting"][0]
    now_ms = time.time() * 1000
    assert action["deadline"] is not None
    assert now_ms < action["deadline"] <= now_ms + 5_500
    # Nobody moves: at the deadline a bot moves for the seat, with a turn.timed_out event.
    timed_out = wait_for(
        lambda: [e for e in _events(client, game_id) if e["event"]["type"] == "turn.timed_out"],
        timeout=30,
    )
    assert timed_out[0]["event"]["seat"] == action["seat"]

    # A sealed step: seat 0 commits in time, seat 1 does not and forfeits its choice.
    def at_sealed_step() -> dict[str, Any] | None:
        seen = view(client, game_id)
        return seen if any(a["action"] == "commit" for a in seen["awaiting"]) else None

    sealed = wait_for(at_sealed_step, timeout=60)
    step = next(a["step"] for a in sealed["awaiting"] if a["action"] == "commit")
    move = view(client, game_id, tokens[0])["legal"][0]
    salt = "ab" * 16
    digest = commitment(game_id, step, 0, move, salt)
    committed = client.post(
        f"/v1/games/{game_id}/commitments", json={"commitment": digest}, headers=auth(tokens[0])
    )
    assert committed.status_code == 200, committed.text
    forfeits = wait_for(
        lambda: [e for e in _events(client, game_id) if e["event"]["type"] == "seal.forfeited"],
        timeout=30,
    )
    assert forfeits[0]["event"]["seat"] == 1
    assert "deadline" in forfeits[0]["event"]["reason"]
    revealed = client.post(
        f"/v1/games/{game_id}/reveals", json={"move": move, "salt": salt}, headers=auth(tokens[0])
    )
    assert revealed.status_code == 200, revealed.text
    # The step resolved: a bot's choice stood in for seat 1, and seat 0's move was applied.
    assert all(a["step"] != step for a in view(client, game_id)["awaiting"])


_CRASHING_CREATOR = """
import asyncio, os, signal, sys
import redis.asyncio
from domain.match import SeatSpec
from service.play.game_service import GameService, NewGame
from service.store.event_store import EventStore

async def main():
    store = EventStore(redis.asyncio.Redis.from_url(sys.argv[1]))
    games = GameService(store)
    seats = [SeatSpec("bot", "random") for _ in range(3)]
    created = await games.create(NewGame("crash-test", "fbi", {}, seats))
    # The process dies right after the append, before it could enqueue any job.
    print(created.game_id, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


def test_a_creator_killed_right_after_its_append_loses_no_follow_up(
    settings: Any, client: Any
) -> None:
    url = settings.redis_url
    crashed = subprocess.run(
        [sys.executable, "-c", _CRASHING_CREATOR, url],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crashed.returncode == -signal.SIGKILL
    game_id = crashed.stdout.strip()
    queued = redis.Redis.from_url(url)
    try:
        assert queued.llen("rq:queue:bots") == 0  # nothing was enqueued
    finally:
        queued.close()
    worker = start_worker(url)
    try:
        final = wait_for(
            lambda: v if (v := view(client, game_id))["status"] == "finished" else None,
            timeout=240,
        )
    finally:
        stop_worker(worker)
    assert final["result"] is not None


def test_workers_killed_mid_job_lead_to_exactly_one_move_per_bot_turn(
    settings: Any, client: Any
) -> None:
    seats = [{"type": "bot", "level": "random"} for _ in range(3)]
    response = client.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(API_KEY))
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    rng = random.Random(11)
    url = settings.redis_url
    for _ in range(4):  # kill the worker (and its job's work horse) at seeded moments
        worker = start_worker(url)
        time.sleep(rng.uniform(1.0, 3.0))
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()
    worker = start_worker(url)
    try:
        wait_for(
            lambda: any(
                e["event"]["type"] == "game.result_recorded" for e in _events(client, game_id)
            ),
            timeout=300,
        )
    finally:
        stop_worker(worker)
    replay = client.get(f"/v1/games/{game_id}/replay").json()
    verify(msgspec.convert(replay, ReplayDocument))  # every move legal, every deal honest
    acts = [e["act"] for e in replay["events"] if e["act"] and e["act"]["kind"] != "result"]
    store = redis.Redis.from_url(url)
    try:
        keys = store.hgetall(f"game:{{{game_id}}}:idem")
    finally:
        store.close()
    bot_keys = [k for k in keys if text(k).startswith("bot:")]
    # Each bot act was appended under exactly one job key, and each key appended once.
    assert len(acts) == len(bot_keys)
    ranges = sorted(tuple(int(x) for x in text(v).rsplit("|", 2)[1:]) for v in keys.values())
    assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges))
    results = [e for e in replay["events"] if e["event"]["type"] == "game.result_recorded"]
    assert len(results) == 1
