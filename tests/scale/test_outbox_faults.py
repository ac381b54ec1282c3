"""Nothing an act sets off is lost (issue 29): every change's follow-up comes from the outbox
entry written with it (service/store/outbox.py), followed up by the workers' dispatchers.

Real processes throughout: two API processes, a game worker (its dispatcher and its bots), a
webhook delivery worker, a signed-webhook receiver, on a Valkey of the test's own. Processes
are SIGKILLed right after they answered, or in the middle of their work; afterwards every
game's lifecycle notifications (started, finished or aborted, result recorded) and every
seat-awaited notification have been delivered to the webhook and written to the account feed
exactly once by id, every game played to its end was scored, and every stream verifies (no
act twice, no gap).
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections import Counter
from typing import Any

import httpx
import redis

from tests.helpers import API_KEY, fields_of, wait_for
from tests.processes import (
    Api,
    Processes,
    auth,
    read_seed,
    read_stream,
    service_env,
    verify_stream,
)
from tests.receiver import Receiver

KINDS = ["seat.awaited", "game.started", "game.finished", "result.recorded"]
HUMANS_AND_BOT = [{"type": "human"}, {"type": "human"}, {"type": "bot", "level": "random"}]


def _feed_notes(redis_url: str) -> list[dict[str, Any]]:
    """Every entry of the API key's account feed, read from its stream."""
    connection = redis.Redis.from_url(redis_url)
    try:
        keys = connection.keys("owner:*:feed")
        assert len(keys) == 1, keys
        return [json.loads(fields[b"n"]) for fields in fields_of(connection.xrange(keys[0]))]
    finally:
        connection.close()


def _kinds(http: httpx.Client, base: str, game_id: str) -> list[str]:
    events = http.get(f"{base}/v1/games/{game_id}/events", params={"limit": 500}).json()
    return [e["event"]["type"] for e in events["events"]]


def _expected(kinds: list[str], game_id: str) -> tuple[set[str], set[str]]:
    """The lifecycle notification ids a game's log calls for: the webhook's, the feed's.
    An abort is ``game.finished`` (status aborted) for webhooks, ``game.aborted`` in the
    feed; results are not in the feed."""
    hooked, fed = {f"{game_id}-started"}, {f"{game_id}-started"}
    if "game.aborted" in kinds:
        hooked.add(f"{game_id}-aborted")
        fed.add(f"{game_id}-aborted-")
    if "game.result_recorded" in kinds:
        hooked |= {f"{game_id}-finished", f"{game_id}-recorded"}
        fed.add(f"{game_id}-finished")
    return hooked, fed


def _verify(redis_url: str, game_id: str) -> None:
    connection = redis.Redis.from_url(redis_url)
    try:
        verify_stream(read_stream(connection, game_id), read_seed(connection, game_id))
    finally:
        connection.close()


def _act(http: httpx.Client, base: str, game_id: str, token: str, rng: random.Random) -> bool:
    """One public move of the seat ``token`` if it is awaited; whether it acted."""
    view = http.get(f"{base}/v1/games/{game_id}", headers=auth(token)).json()
    if view["status"] != "active" or not view["legal"]:
        return False
    if not any(a["seat"] == view["you"] and a["action"] == "move" for a in view["awaiting"]):
        return False
    key = f"k{rng.getrandbits(48)}"
    move = rng.choice(view["legal"])
    answer = http.post(
        f"{base}/v1/games/{game_id}/moves",
        json=move,
        headers={**auth(token), "Idempotency-Key": key},
    )
    assert answer.status_code in (200, 409), answer.text
    return answer.status_code == 200


def _restart(processes: Processes, env: dict[str, str], api: Api) -> Api:
    """SIGKILL an API process (its answer is already out) and start another in its place."""
    api.proc.send_signal(signal.SIGKILL)
    api.proc.wait()
    return processes.api(env)


def test_apis_killed_right_after_their_answers_lose_no_notification(
    own_redis: str, processes: Processes
) -> None:
    rng = random.Random(29)
    receiver = Receiver()
    env = service_env(own_redis, STAKEOUT_WEBHOOK_ALLOW_PRIVATE="1")
    apis = [processes.api(env), processes.api(env)]
    processes.worker(env)
    processes.worker({**env, "STAKEOUT_WORKER_QUEUES": "webhooks"})
    games: list[str] = []
    kills = 0
    try:
        with httpx.Client(timeout=30) as http:
            base = apis[0].base
            hook = {"url": receiver.url, "events": KINDS}
            assert http.post(f"{base}/v1/webhooks", json=hook, headers=auth(API_KEY)).is_success
            assert http.post(f"{base}/v1/feed/tickets", headers=auth(API_KEY)).is_success
            time.sleep(1.2)  # every process knows the webhook and the feed (cached 1 s)
            for round_ in range(6):
                i = round_ % 2
                body = {"game": "fbi", "seats": HUMANS_AND_BOT}
                created = http.post(f"{apis[i].base}/v1/games", json=body, headers=auth(API_KEY))
                assert created.status_code == 201, created.text
                game_id = created.json()["id"]
                tokens = [s["token"] for s in created.json()["seats"][:2]]
                games.append(game_id)
                apis[i] = _restart(processes, env, apis[i])
                kills += 1
                for step in range(4):  # a few moves, each answer followed by a kill
                    j = (round_ + step) % 2
                    acted = any(_act(http, apis[j].base, game_id, token, rng) for token in tokens)
                    if acted:
                        apis[j] = _restart(processes, env, apis[j])
                        kills += 1
                base = apis[0].base
                if round_ % 3 == 2:  # an abort...
                    ended = http.post(f"{base}/v1/games/{game_id}/abort", headers=auth(API_KEY))
                else:  # ...or both humans resign: the bots play the game out
                    for token in tokens:
                        ended = http.post(f"{base}/v1/games/{game_id}/resign", headers=auth(token))
                assert ended.status_code == 200, ended.text
            base = apis[0].base
            hooked: set[str] = set()
            fed: set[str] = set()
            for game_id in games:
                # Played out and scored (the scoring job's result), or aborted.
                kinds = wait_for(
                    lambda g=game_id: (
                        k
                        if {"game.result_recorded", "game.aborted"}
                        & set(k := _kinds(http, base, g))
                        else None
                    ),
                    timeout=240,
                )
                assert kinds.count("game.result_recorded") <= 1, game_id
                hooks, feed = _expected(kinds, game_id)
                hooked |= hooks
                fed |= feed

            def delivered() -> Counter[str] | None:
                ids = Counter(json.loads(b)["id"] for _, b in receiver.requests)
                return ids if hooked <= set(ids) else None

            ids = wait_for(delivered, timeout=120)

            def written() -> list[dict[str, Any]] | None:
                notes = _feed_notes(own_redis)
                return notes if fed <= {n["id"] for n in notes} else None

            notes = wait_for(written, timeout=60)
        assert kills >= 12
        assert all(count == 1 for count in ids.values()), ids.most_common(3)
        fed_ids = Counter(n["id"] for n in notes)
        assert all(count == 1 for count in fed_ids.values()), fed_ids.most_common(3)
        # The feed and the webhook were told of the same turns.
        turns = {i for i in ids if "-awaited-" in i}
        assert turns == {i for i in fed_ids if "-awaited-" in i}
        assert len(turns) >= len(games)
        for game_id in games:
            _verify(own_redis, game_id)
    finally:
        receiver.close()


def test_game_workers_killed_mid_batch_lose_no_follow_up_and_repeat_none(
    own_redis: str, processes: Processes
) -> None:
    """The game worker (its dispatcher mid-batch, its bots mid-turn) SIGKILLed again and
    again while bot games play: every game is played out and scored, every notification
    delivered and fed once by id, no act stored twice."""
    rng = random.Random(2929)
    receiver = Receiver()
    env = service_env(own_redis, STAKEOUT_WEBHOOK_ALLOW_PRIVATE="1")
    api = processes.api(env)
    processes.worker({**env, "STAKEOUT_WORKER_QUEUES": "webhooks"})
    bots = [{"type": "bot", "level": "random"}] * 3
    try:
        with httpx.Client(base_url=api.base, timeout=30) as http:
            hook = {"url": receiver.url, "events": KINDS}
            assert http.post("/v1/webhooks", json=hook, headers=auth(API_KEY)).is_success
            assert http.post("/v1/feed/tickets", headers=auth(API_KEY)).is_success
            time.sleep(1.2)  # the API knows the webhook and the feed (cached 1 s)
            games = [
                http.post(
                    "/v1/games", json={"game": "fbi", "seats": bots}, headers=auth(API_KEY)
                ).json()["id"]
                for _ in range(6)
            ]
            for _ in range(6):  # kill the game worker at seeded moments
                worker = processes.worker(env)
                time.sleep(rng.uniform(1.0, 2.5))
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()
            processes.worker(env)
            hooked: set[str] = set()
            fed: set[str] = set()
            for game_id in games:
                kinds = wait_for(
                    lambda g=game_id: (
                        k if "game.result_recorded" in (k := _kinds(http, api.base, g)) else None
                    ),
                    timeout=300,
                )
                assert kinds.count("game.result_recorded") == 1, game_id
                hooks, feed = _expected(kinds, game_id)
                hooked |= hooks
                fed |= feed

            def delivered() -> Counter[str] | None:
                ids = Counter(json.loads(b)["id"] for _, b in receiver.requests)
                return ids if hooked <= set(ids) else None

            ids = wait_for(delivered, timeout=120)

            def written() -> list[dict[str, Any]] | None:
                notes = _feed_notes(own_redis)
                return notes if fed <= {n["id"] for n in notes} else None

            notes = wait_for(written, timeout=60)
        assert all(count == 1 for count in ids.values()), ids.most_common(3)
        fed_ids = Counter(n["id"] for n in notes)
        assert all(count == 1 for count in fed_ids.values()), fed_ids.most_common(3)
        for game_id in games:
            _verify(own_redis, game_id)
    finally:
        receiver.close()
