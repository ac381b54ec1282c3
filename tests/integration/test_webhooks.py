"""Webhooks with a real local receiver and real workers: signed deliveries, retries with
backoff, every attempt recorded, and a game never slowed by an unreachable receiver."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.notify.webhooks import sign, verify_signature
from service.settings import Settings
from tests.conftest import free_port, start_worker, stop_worker
from tests.helpers import API_KEY, auth, view, wait_for
from tests.receiver import Receiver


@pytest.fixture
def fast_client(settings: Settings) -> Iterator[TestClient[Any]]:
    # Receivers listen on loopback: private targets allowed (test_egress.py covers the rule).
    quick = replace(settings, webhook_backoff=(1, 1, 2), webhook_allow_private=True)
    with TestClient(app=create_app(quick)) as client:
        yield client


def _register(client: Any, url: str, events: list[str], game_id: str | None = None) -> Any:
    body: dict[str, Any] = {"url": url, "events": events}
    if game_id:
        body["game_id"] = game_id
    response = client.post("/v1/webhooks", json=body, headers=auth(API_KEY))
    assert response.status_code == 201, response.text
    return response.json()


def _bot_game(client: Any) -> str:
    seats = [{"type": "bot", "level": "random"} for _ in range(2)]
    response = client.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(API_KEY))
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


@pytest.mark.usefixtures("webhook_worker")
def test_deliveries_are_signed_retried_with_backoff_and_recorded(
    fast_client: Any, worker: subprocess.Popen[bytes]
) -> None:
    receiver = Receiver(failures=2)
    try:
        hook = _register(fast_client, receiver.url, ["game.finished", "result.recorded"])
        game_id = _bot_game(fast_client)
        wait_for(lambda: len(receiver.requests) >= 4, timeout=120)
        # Every delivery carries a valid signature over timestamp and body.
        for headers, body in receiver.requests:
            assert verify_signature(hook["secret"], headers["Stakeout-Signature"], body)
            assert json.loads(body)["game_id"] == game_id
        kinds = sorted({json.loads(b)["kind"] for _, b in receiver.requests})
        assert kinds == ["game.finished", "result.recorded"]
        # The first two attempts failed (500) and were retried; all attempts are listed.
        attempts = wait_for(
            lambda: (
                page["attempts"]
                if len(
                    (
                        page := fast_client.get(
                            f"/v1/webhooks/{hook['id']}/deliveries", headers=auth(API_KEY)
                        ).json()
                    )["attempts"]
                )
                >= 4
                else None
            ),
            timeout=30,
        )
        failed = [a for a in attempts if not a["delivered"]]
        assert len(failed) == 2
        assert all(a["status_code"] == 500 for a in failed)
        retried = [a for a in attempts if a["delivered"] and a["attempt"] > 1]
        assert retried, attempts
    finally:
        receiver.close()


def test_a_bad_signature_or_an_old_timestamp_is_rejected_by_the_recipe() -> None:
    secret = "whsec_test"
    body = b'{"kind":"game.finished"}'
    now = int(time.time())
    header = sign(secret, now, body)
    assert verify_signature(secret, header, body)
    assert not verify_signature("whsec_other", header, body)
    assert not verify_signature(secret, header, body + b" ")
    assert not verify_signature(secret, header.replace("v1=", "v1=0"), body)
    assert not verify_signature(secret, sign(secret, now - 3600, body), body)
    assert not verify_signature(secret, "garbage", body)


@pytest.mark.usefixtures("webhook_worker")
def test_an_unreachable_receiver_never_slows_the_game(
    fast_client: Any, worker: subprocess.Popen[bytes]
) -> None:
    dead = f"http://127.0.0.1:{free_port()}/nobody-listens"
    hook = _register(fast_client, dead, ["seat.awaited", "game.finished"])
    game_id = _bot_game(fast_client)
    finished = wait_for(
        lambda: v if (v := view(fast_client, game_id))["status"] == "finished" else None,
        timeout=120,
    )
    assert finished["result"] is not None
    attempts = wait_for(
        lambda: fast_client.get(
            f"/v1/webhooks/{hook['id']}/deliveries", headers=auth(API_KEY)
        ).json()["attempts"],
        timeout=30,
    )
    assert all(not a["delivered"] and a["error"] for a in attempts)


def test_webhooks_belong_to_their_api_key(fast_client: Any) -> None:
    hook = _register(fast_client, "http://127.0.0.1:9/x", ["seat.awaited"])
    listed = fast_client.get("/v1/webhooks", headers=auth(API_KEY)).json()["webhooks"]
    assert [h["id"] for h in listed] == [hook["id"]]
    assert "secret" not in listed[0]
    assert fast_client.get("/v1/webhooks").status_code == 401
    bad = fast_client.post(
        "/v1/webhooks", json={"url": "ftp://x", "events": ["seat.awaited"]}, headers=auth(API_KEY)
    )
    assert bad.status_code == 400
    gone = fast_client.delete(f"/v1/webhooks/{hook['id']}", headers=auth(API_KEY))
    assert gone.status_code == 204
    again = fast_client.delete(f"/v1/webhooks/{hook['id']}", headers=auth(API_KEY))
    assert again.status_code == 404
    assert again.json()["type"] == "urn:stakeout:problem:not-found"


# ---- a slow or hostile receiver holds nobody up ------------------------------------------

OTHER_KEY = "other-test-key"


def _attempts(client: Any, hook_id: str) -> list[dict[str, Any]]:
    page = client.get(f"/v1/webhooks/{hook_id}/deliveries", headers=auth(API_KEY)).json()
    return list(page["attempts"])


def _human_game(client: Any, key: str = API_KEY) -> str:
    """A game whose first turn is a human seat's: a ``seat.awaited`` delivery at creation."""
    seats = [{"type": "human"}, {"type": "human"}]
    response = client.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(key))
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def test_a_trickling_receiver_delays_no_other_keys_bots_or_scoring(settings: Settings) -> None:
    """One key's receiver answers a byte a second and holds its delivery open for the whole
    attempt (25 s); another key's bots move meanwhile, and its game is played to a recorded
    result. (With deliveries on the game worker, no bot could move until the attempt ended.)
    """
    receiver = Receiver(trickle_seconds=1.0, hold_seconds=90)
    two_keys = replace(settings, api_keys=(API_KEY, OTHER_KEY), webhook_allow_private=True)
    url = settings.redis_url or ""
    game_worker = start_worker(url)
    deliveries = start_worker(url, queues="webhooks", STAKEOUT_WEBHOOK_TIMEOUT_SECONDS="25")
    try:
        with TestClient(app=create_app(two_keys)) as api:
            _register(api, receiver.url, ["seat.awaited"])
            _human_game(api)
            assert receiver.trickling.wait(60), "the delivery never reached the receiver"
            started = time.monotonic()
            seats = [{"type": "bot", "level": "random"} for _ in range(2)]
            created = api.post(
                "/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(OTHER_KEY)
            )
            assert created.status_code == 201, created.text
            game_id, at_creation = created.json()["id"], created.json()["version"]
            first_bot_move = wait_for(
                lambda: time.monotonic() if view(api, game_id)["version"] > at_creation else None,
                timeout=60,
            )
            # The hostile attempt was still open when the other key's bot moved.
            assert receiver.trickles_ended == [], "the bot moved only after the delivery ended"
            wait_for(
                lambda: (
                    api.get(
                        f"/v1/games/{game_id}/events", params={"after": 0, "limit": 500}
                    ).json()["events"][-1]["event"]["type"]
                    == "game.result_recorded"
                ),
                timeout=120,
            )
        print(
            f"\nanother key's first bot move came {first_bot_move - started:.2f} s after its "
            "game was created, while a delivery was held open by a trickling receiver"
        )
    finally:
        receiver.close()
        stop_worker(game_worker)
        stop_worker(deliveries)


def test_one_attempt_has_one_overall_deadline(settings: Settings) -> None:
    """A byte a second never trips a per-read timeout; the attempt's deadline cuts it."""
    receiver = Receiver(trickle_seconds=1.0, hold_seconds=60)
    lenient = replace(settings, webhook_allow_private=True, webhook_backoff=(600,))
    deliveries = start_worker(
        settings.redis_url or "", queues="webhooks", STAKEOUT_WEBHOOK_TIMEOUT_SECONDS="2"
    )
    games = start_worker(settings.redis_url or "")  # its dispatcher enqueues the delivery
    try:
        with TestClient(app=create_app(lenient)) as api:
            hook = _register(api, receiver.url, ["seat.awaited"])
            _human_game(api)
            attempts = wait_for(lambda: _attempts(api, hook["id"]), timeout=60)
        assert attempts[0]["delivered"] is False
        assert attempts[0]["error"] == "no answer within 2 s"
        # Cut at its deadline, far sooner than the 38 s the receiver would take.
        assert attempts[0]["duration_ms"] < 10_000, attempts[0]
    finally:
        receiver.close()
        stop_worker(deliveries)
        stop_worker(games)


def test_a_receiver_that_floods_its_answer_is_not_read(settings: Settings) -> None:
    receiver = Receiver(flood_bytes=256 * 1024 * 1024)
    lenient = replace(settings, webhook_allow_private=True)
    deliveries = start_worker(settings.redis_url or "", queues="webhooks")
    games = start_worker(settings.redis_url or "")  # its dispatcher enqueues the delivery
    try:
        with TestClient(app=create_app(lenient)) as api:
            hook = _register(api, receiver.url, ["seat.awaited"])
            _human_game(api)
            attempts = wait_for(lambda: _attempts(api, hook["id"]), timeout=60)
        assert attempts[0]["delivered"] is True
        assert attempts[0]["status_code"] == 200
        # The worker hung up after the status: most of the 256 MiB was never taken.
        wait_for(lambda: receiver.requests, timeout=5)
        assert receiver.sent < 64 * 1024 * 1024, receiver.sent
    finally:
        receiver.close()
        stop_worker(deliveries)
        stop_worker(games)
