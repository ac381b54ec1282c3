"""Webhook deliveries survive their worker and their queue's Redis (service/notify/
delivery_queue.py; docs/follow-ups.md, "Webhook deliveries").

Real processes throughout, each test on a Valkey of its own: webhook workers
(``stakeout worker --queues webhooks``) SIGKILLed again and again while they hold
deliveries; a queue Redis of its own stopped and started again while games are played and
followed up. Afterwards every delivery has arrived, signed, with a delivered attempt
recorded, the queue is empty, and deliveries were repeated only as at-least-once allows.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import msgspec
import redis

from service.notify.deliverer import READ_BATCH
from service.notify.delivery_queue import Delivery, DeliveryQueue
from service.notify.webhooks import Attempt, Notification, verify_signature
from service.ops.embedded import EmbeddedRedis
from service.store.keys import DELIVERIES, DELIVERIES_DUE, DELIVERY_GROUP, webhook_attempts_key
from tests.helpers import API_KEY, fields_of, wait_for
from tests.processes import Processes, auth, service_env
from tests.receiver import Receiver

CONCURRENCY = 8


def _register(http: httpx.Client, url: str, events: list[str]) -> dict[str, Any]:
    response = http.post("/v1/webhooks", json={"url": url, "events": events}, headers=auth(API_KEY))
    assert response.status_code == 201, response.text
    return dict(response.json())


def _hook_of(hooks: list[dict[str, Any]], headers: dict[str, str], body: bytes) -> str:
    """The webhook a request was signed for (each has a secret of its own)."""
    signed = [
        h["id"] for h in hooks if verify_signature(h["secret"], headers["Stakeout-Signature"], body)
    ]
    assert len(signed) == 1, headers
    return str(signed[0])


def _received(receiver: Receiver, hooks: list[dict[str, Any]]) -> Counter[tuple[str, str]]:
    """(webhook, Stakeout-Delivery) of every whole request received, counted; each signed,
    its header the notification's id."""
    seen: Counter[tuple[str, str]] = Counter()
    for headers, body in list(receiver.requests):
        if len(body) != int(headers["Content-Length"]):
            continue  # cut short: its worker was killed while sending it
        note = json.loads(body)
        assert headers["Stakeout-Delivery"] == note["id"]
        seen[(_hook_of(hooks, headers, body), note["id"])] += 1
    return seen


def _delivered_attempts(
    client: redis.Redis, hooks: list[dict[str, Any]]
) -> Counter[tuple[str, str]]:
    """(webhook, delivery id) of every attempt recorded as delivered, counted."""
    found: Counter[tuple[str, str]] = Counter()
    for hook in hooks:
        for raw in client.lrange(webhook_attempts_key(hook["id"]), 0, -1):
            attempt = msgspec.json.decode(raw, type=Attempt)
            if attempt.delivered:
                found[(hook["id"], attempt.delivery_id)] += 1
    return found


def _queue_is_empty(client: redis.Redis) -> bool:
    pending: Any = client.xpending(DELIVERIES, DELIVERY_GROUP)
    return (
        client.xlen(DELIVERIES) == 0
        and client.zcard(DELIVERIES_DUE) == 0
        and not pending["pending"]
    )


def _holding(client: redis.Redis, proc: subprocess.Popen[bytes]) -> int:
    """How many deliveries the webhook worker ``proc`` holds (read, not settled)."""
    name = f"{socket.gethostname()}-{proc.pid}"
    try:
        consumers: Any = client.xinfo_consumers(DELIVERIES, DELIVERY_GROUP)
    except redis.ResponseError:  # no group yet
        return 0
    return sum(int(c["pending"]) for c in consumers if c["name"].decode() == name)


def test_webhook_workers_killed_mid_batch_lose_no_delivery(
    own_redis: str, processes: Processes
) -> None:
    rng = random.Random(4029)
    receiver = Receiver(delay_seconds=0.02)  # answers take a while: batches are under way
    env = service_env(
        own_redis,
        STAKEOUT_WEBHOOK_ALLOW_PRIVATE="1",
        STAKEOUT_WEBHOOK_CONCURRENCY=str(CONCURRENCY),
        STAKEOUT_WORKER_QUEUES="webhooks",
    )
    api = processes.api(env)
    client = redis.Redis.from_url(own_redis)
    queue = DeliveryQueue(lambda: redis.Redis.from_url(own_redis))
    try:
        with httpx.Client(base_url=api.base, timeout=30) as http:
            hooks = [_register(http, receiver.url, ["seat.awaited"]) for _ in range(8)]
        expected: set[tuple[str, str]] = set()
        for game in range(60):
            game_id = f"{game:024x}"
            deliveries = []
            for version in range(2, 52):
                note = Notification(
                    id=f"{game_id}-{version}-awaited-{version % 3}",
                    kind="seat.awaited",
                    game_id=game_id,
                    version=version,
                    at_ms=int(time.time() * 1000),
                    seat=version % 3,
                )
                hook = hooks[(game + version) % len(hooks)]["id"]
                deliveries.append(Delivery(hook, note.id, game_id, msgspec.json.encode(note)))
                expected.add((hook, note.id))
            assert queue.enqueue(deliveries) == len(deliveries)
        kills, held_at_kills = 0, []
        for _ in range(8):
            worker = processes.worker(env)
            wait_for(
                lambda w=worker: _holding(client, w) > 0 or client.xlen(DELIVERIES) == 0, timeout=60
            )
            time.sleep(rng.uniform(0.1, 0.8))
            held = _holding(client, worker)
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
            if held:
                kills += 1
                held_at_kills.append(held)
        processes.worker(env)
        received = wait_for(
            lambda: r if expected <= set(r := _received(receiver, hooks)) else None, timeout=180
        )
        wait_for(lambda: _queue_is_empty(client), timeout=60)
        received = _received(receiver, hooks)
        attempts = _delivered_attempts(client, hooks)
    finally:
        queue.close()
        client.close()
        receiver.close()
    assert kills >= 6, held_at_kills  # killed while holding deliveries, again and again
    assert set(received) == expected
    assert set(attempts) == expected  # every delivery's attempt recorded
    # Repeated only what a killed worker had under way or had just finished: its attempts
    # in flight, and at most one batch it had not settled yet.
    duplicates = sum(received.values()) - len(received)
    assert duplicates <= kills * (CONCURRENCY + READ_BATCH), (duplicates, held_at_kills)
    print(
        f"\n{len(expected)} deliveries, {kills} kills of a webhook worker holding "
        f"{held_at_kills} deliveries: {duplicates} delivered twice or more"
    )


KINDS = ["seat.awaited", "game.started", "game.finished"]
HUMANS_AND_BOT = [{"type": "human"}, {"type": "human"}, {"type": "bot", "level": "random"}]


def _act(http: httpx.Client, game_id: str, tokens: list[str], rng: random.Random) -> bool:
    """One move of whichever human seat is awaited; whether one moved."""
    for token in tokens:
        view = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        if view["status"] != "active":
            return False
        if view["legal"] and any(
            a["seat"] == view["you"] and a["action"] == "move" for a in view["awaiting"]
        ):
            move = rng.choice(view["legal"])
            answer = http.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(token))
            assert answer.status_code in (200, 409), answer.text
            return answer.status_code == 200
    return False


def _play(
    http: httpx.Client,
    game_id: str,
    tokens: list[str],
    rng: random.Random,
    acts: int,
    seconds: float,
) -> None:
    """Up to ``acts`` human moves within ``seconds`` (the bot moves in between, when its
    job can be queued)."""
    deadline = time.monotonic() + seconds
    while acts and time.monotonic() < deadline:
        if _act(http, game_id, tokens, rng):
            acts -= 1
        else:
            time.sleep(0.1)


def _fed_ids(events_url: str) -> set[str]:
    """The ids of the API key's account-feed entries (written by the same follow-ups)."""
    client = redis.Redis.from_url(events_url)
    try:
        keys: Any = client.keys("owner:*:feed")
        if not keys:  # nothing fed yet
            return set()
        assert len(keys) == 1, keys
        return {json.loads(fields[b"n"])["id"] for fields in fields_of(client.xrange(keys[0]))}
    finally:
        client.close()


def _made_and_aborted(http: httpx.Client) -> str:
    """A game made and aborted at once (its start and its end are notified); its id."""
    created = http.post(
        "/v1/games", json={"game": "fbi", "seats": HUMANS_AND_BOT}, headers=auth(API_KEY)
    )
    assert created.status_code == 201, created.text
    game_id = str(created.json()["id"])
    assert http.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY)).is_success
    return game_id


def _probe_until_followed(http: httpx.Client, receiver: Receiver, events_url: str) -> None:
    """Games made and aborted until one of them reaches both the webhook and the account
    feed (what the probes set off is left out of the count)."""
    probes: list[str] = []

    def followed() -> bool:
        probes.append(_made_and_aborted(http))
        wanted = f"{probes[-1]}-aborted"
        try:
            wait_for(
                lambda: (
                    f"{wanted}-" in _fed_ids(events_url)  # a feed entry's id: its note's and a dash
                    and any(json.loads(b)["id"] == wanted for _, b in list(receiver.requests))
                ),
                timeout=5,
            )
        except AssertionError:
            return False
        return True

    wait_for(followed, timeout=60)


def test_a_queue_redis_restarted_loses_no_delivery(
    own_redis: str, processes: Processes, tmp_path: Path
) -> None:
    """Games are played while the queue's Redis is stopped (SIGTERM) and started again: the
    follow-ups wait for it, the webhook worker waits for it, and the deliveries it held, the
    retries it had scheduled (every delivery's first attempt is answered 500) and what was
    set off while it was down are delivered once it is back."""
    rng = random.Random(2904)
    receiver = Receiver(fail_first_attempts=True, delay_seconds=0.2)
    queue_server = EmbeddedRedis(tmp_path / "queue-valkey")
    queue_url = queue_server.start()
    env = service_env(
        own_redis,
        QUEUE_REDIS_URL=queue_url,
        STAKEOUT_WEBHOOK_ALLOW_PRIVATE="1",
        STAKEOUT_WEBHOOK_BACKOFF="2,2,2,2,2,2",
    )
    api = processes.api(env)
    processes.worker(env)
    deliverer = processes.worker({**env, "STAKEOUT_WORKER_QUEUES": "webhooks"})
    games: list[str] = []
    at_stop = (0, 0)
    try:
        with httpx.Client(base_url=api.base, timeout=30) as http:
            hook = _register(http, receiver.url, KINDS)
            assert http.post("/v1/feed/tickets", headers=auth(API_KEY)).is_success
            # The follow-ups learn of the webhook and the feed within a second (they cache
            # them): games are played once a probe game has reached both.
            _probe_until_followed(http, receiver, own_redis)
            for round_ in range(6):
                body = {"game": "fbi", "seats": HUMANS_AND_BOT}
                created = http.post("/v1/games", json=body, headers=auth(API_KEY))
                assert created.status_code == 201, created.text
                game_id = created.json()["id"]
                games.append(game_id)
                tokens = [s["token"] for s in created.json()["seats"][:2]]
                _play(http, game_id, tokens, rng, acts=4, seconds=5.0)
                if round_ == 1:
                    # Stopped while it holds a retry, due later.
                    with redis.Redis.from_url(queue_url) as queue:

                        def a_retry_due(q: redis.Redis = queue) -> int:
                            due = int(q.zcard(DELIVERIES_DUE))
                            if not due:  # a game more: its first deliveries fail, retries due
                                games.append(_made_and_aborted(http))
                            return due

                        wait_for(a_retry_due, timeout=60, interval=1.0)
                        at_stop = (queue.zcard(DELIVERIES_DUE), queue.xlen(DELIVERIES))
                    queue_server.stop()  # SIGTERM: its AOF is written out
                if round_ == 3:
                    queue_server.restart()  # same port, same data
                ended = http.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY))
                assert ended.status_code == 200, ended.text
            # Every change followed up (the feed has each game's end), so the feed holds
            # every turn the webhook is told of.
            fed = wait_for(
                lambda: (
                    f if {f"{g}-aborted-" for g in games} <= (f := _fed_ids(own_redis)) else None
                ),
                timeout=120,
            )
            expected = {i for i in fed if "-awaited-" in i and i.split("-")[0] in games}
            expected |= {f"{g}-{end}" for g in games for end in ("started", "aborted")}
            assert len(expected) > 3 * len(games)

            def arrived() -> set[str] | None:
                ids = {json.loads(b)["id"] for _, b in list(receiver.requests)}
                return ids if expected <= ids else None

            try:
                wait_for(arrived, timeout=180)
            except AssertionError:
                ids = {json.loads(b)["id"] for _, b in list(receiver.requests)}
                raise AssertionError(
                    f"never delivered: {sorted(expected - ids)}\n{processes.tail(deliverer)}"
                ) from None
        queue = redis.Redis.from_url(queue_url)
        events = redis.Redis.from_url(own_redis)
        try:
            wait_for(lambda: _queue_is_empty(queue), timeout=60)
            attempts = _delivered_attempts(events, [hook])
        finally:
            queue.close()
            events.close()
    finally:
        receiver.close()
        queue_server.stop()
    assert at_stop[0] >= 1, at_stop
    print(f"\nat the queue Redis's stop: {at_stop[0]} retries due, {at_stop[1]} in the stream")
    # Every notification delivered, and (one webhook worker, never killed) exactly once.
    assert {i for _, i in attempts if i.split("-")[0] in games} == expected
    assert all(n == 1 for n in attempts.values()), attempts.most_common(3)
