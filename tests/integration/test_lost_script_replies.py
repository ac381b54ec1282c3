"""An act or a new game whose script ran in Redis but whose reply never came back.

The request path's script calls are sent once more when their connection breaks
(service/store/scripts.py). For an act without an Idempotency-Key that second call used to
find the stream past the version it expected, take it for a lost race and decide the act
again on a state that already held it: a 409 for an act that was stored, or the act twice.
A creation's second call found its own game and answered that the id was taken. The
append now carries a nonce of its own and the creation its game's seed
(service/store/game_streams.py), so the second call knows its own work and is answered as
the first would have been.

The fault is real: a TCP proxy between the app and Valkey lets the script call through,
drops its reply and closes the connection.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from service.store.scripts.streams import APPEND, CREATE
from tests.helpers import API_KEY, act, auth, create, view
from tests.processes import read_seed, read_stream, verify_stream
from tests.reply_dropper import ReplyDropper


@pytest.fixture
def dropper(clean_redis: str) -> Iterator[ReplyDropper]:
    url = urlsplit(clean_redis)
    proxy = ReplyDropper((url.hostname or "127.0.0.1", url.port or 6379))
    try:
        yield proxy
    finally:
        proxy.close()


def _sha(script: str) -> bytes:
    """What a call of the script names it by (EVALSHA)."""
    return hashlib.sha1(script.encode()).hexdigest().encode()


def _through(dropper: ReplyDropper, settings: Settings) -> Settings:
    url = urlsplit(settings.redis_url or "")
    return replace(settings, redis_url=url._replace(netloc=f"127.0.0.1:{dropper.port}").geturl())


def test_an_act_whose_reply_was_lost_is_answered_as_stored_once(
    settings: Settings, clean_redis: str, dropper: ReplyDropper
) -> None:
    with TestClient(app=create_app(_through(dropper, settings))) as client:
        created = create(client, "fbi", [{"type": "human"}] * 4)
        game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        kept: dict[int, tuple[dict[str, Any], str]] = {}
        answered = []
        for number in range(12):
            seen = view(client, game_id)
            action = seen["awaiting"][0]
            seat = action["seat"]
            legal = view(client, game_id, tokens[seat])["legal"]
            before = seen["version"]
            if number % 2:  # every other act loses its reply (no Idempotency-Key either way)
                dropper.arm(_sha(APPEND))
            move = legal[0] if legal else {}  # a reveal sends what was committed
            response = act(client, game_id, tokens[seat], seat, action, move, kept)
            assert response.status_code == 200, response.text
            assert not dropper.is_armed(), "the act sent no append"
            body = response.json()
            answered.append((before, body["version"]))
            assert body["version"] > before
        assert dropper.dropped == 6
        # Each act once, at the versions its answer gave.
        events = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[0])).json()
        versions = [e["version"] for e in events["events"]]
        for before, after in answered:
            expected = list(range(before + 1, after + 1))
            assert [v for v in versions if before < v <= after] == expected
        assert answered[-1][1] == versions[-1]
    sync = redis.Redis.from_url(clean_redis)
    try:
        verified = verify_stream(read_stream(sync, game_id), read_seed(sync, game_id))
    finally:
        sync.close()
    assert len(verified.batches) == 1 + len(answered)  # the opening, then one batch an act


def test_a_game_whose_creation_reply_was_lost_is_created_once(
    settings: Settings, clean_redis: str, dropper: ReplyDropper
) -> None:
    with TestClient(app=create_app(_through(dropper, settings))) as client:
        create(client, "fbi", [{"type": "human"}] * 4)  # the script is loaded
        dropper.arm(_sha(CREATE))
        created = create(client, "fbi", [{"type": "human"}] * 4)  # asserts a 201
        assert dropper.dropped == 1
        game_id = created["id"]
        listed = client.get("/v1/games", headers=auth(API_KEY)).json()["games"]
        assert [g["id"] for g in listed].count(game_id) == 1
        assert len(listed) == 2
        seen = view(client, game_id, created["seats"][0]["token"])
        assert seen["version"] == created["version"]
    sync = redis.Redis.from_url(clean_redis)
    try:
        verified = verify_stream(read_stream(sync, game_id), read_seed(sync, game_id))
    finally:
        sync.close()
    assert len(verified.batches) == 1  # the opening, once
