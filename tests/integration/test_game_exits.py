"""Nobody gets stuck, over HTTP: a commitment replaced before reveals open, a reveal
mismatch that shows the preimage, a seat that resigns (a bot on a real worker plays it
on), and a game its creator aborts (status, events, live feed, webhooks, replay)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis
from litestar.testing import TestClient

from domain import sealed
from service.app import create_app
from service.settings import Settings
from tests.helpers import API_KEY, auth, create, view, wait_for
from tests.receiver import Receiver

OTHER_KEY = "another-api-key"
HUMANS2 = [{"type": "human"}, {"type": "human"}]


@pytest.fixture
def keys_client(settings: Settings) -> Iterator[TestClient[Any]]:
    two_keys = replace(settings, api_keys=(API_KEY, OTHER_KEY), webhook_allow_private=True)
    with TestClient(app=create_app(two_keys)) as client:
        yield client


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["type"] == f"urn:stakeout:problem:{code}", body
    return body


def _length(redis_url: str, game_id: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return int(client.xlen(f"game:{{{game_id}}}:events"))
    finally:
        client.close()


def _to_sealed_step(client: Any, game_id: str, tokens: list[str]) -> str:
    for _ in range(50):
        actions = view(client, game_id)["awaiting"]
        if actions[0]["action"] == "commit":
            return str(actions[0]["step"])
        token = tokens[actions[0]["seat"]]
        move = view(client, game_id, token)["legal"][0]
        response = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(token))
        assert response.status_code == 200, response.text
    raise AssertionError("no sealed step reached")


def _commit(client: Any, game_id: str, token: str, digest: str) -> Any:
    return client.post(
        f"/v1/games/{game_id}/commitments", json={"commitment": digest}, headers=auth(token)
    )


def test_a_commitment_is_replaced_until_reveals_open_and_a_mismatch_shows_the_preimage(
    keys_client: Any, clean_redis: str
) -> None:
    client = keys_client
    created = create(client, "fbi", HUMANS2)
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    step = _to_sealed_step(client, game_id, tokens)
    move = view(client, game_id, tokens[0])["legal"][0]
    salt = "ab" * 16
    # The likeliest first mistake: Python's default JSON spacing.
    spaced = f"sealed-v1|{game_id}|{step}|0|{json.dumps(move)}|{salt}"
    wrong = hashlib.sha256(spaced.encode()).hexdigest()
    assert _commit(client, game_id, tokens[0], wrong).status_code == 200
    # Still committed-only: the seat keeps its legal list and may commit again.
    mine = view(client, game_id, tokens[0])
    assert mine["legal"]
    assert all(a["seat"] != 0 for a in mine["awaiting"])
    right = sealed.commitment(game_id, step, 0, move, salt)
    assert _commit(client, game_id, tokens[0], right).status_code == 200
    # The table sees two commitments of seat 0, never a move.
    log = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[1])).json()
    commits = [e["event"] for e in log["events"] if e["event"]["type"] == "seal.committed"]
    assert [c["seat"] for c in commits] == [0, 0]
    # Seat 1 commits with the default spacing: reveals open, and its commitment is fixed.
    move1 = view(client, game_id, tokens[1])["legal"][0]
    spaced1 = f"sealed-v1|{game_id}|{step}|1|{json.dumps(move1)}|{salt}"
    wrong1 = hashlib.sha256(spaced1.encode()).hexdigest()
    assert _commit(client, game_id, tokens[1], wrong1).status_code == 200
    before = _length(clean_redis, game_id)
    late = _commit(client, game_id, tokens[0], wrong)
    assert "reveals have opened" in _problem(late, 409, "commitment-rejected")["detail"]
    # The replacement counts for seat 0; seat 1's reveal shows what the server hashed.
    ok = client.post(
        f"/v1/games/{game_id}/reveals", json={"move": move, "salt": salt}, headers=auth(tokens[0])
    )
    assert ok.status_code == 200, ok.text
    refused = client.post(
        f"/v1/games/{game_id}/reveals", json={"move": move1, "salt": salt}, headers=auth(tokens[1])
    )
    body = _problem(refused, 422, "reveal-mismatch")
    canonical = json.dumps(move1, sort_keys=True, separators=(",", ":"))
    assert body["preimage"] == f"sealed-v1|{game_id}|{step}|1|{canonical}|{salt}"
    assert body["preimage"] != spaced1
    assert _length(clean_redis, game_id) == before + 1  # only seat 0's reveal


def test_a_resigned_seat_is_played_by_a_bot_and_its_token_may_only_look(
    keys_client: Any, worker: subprocess.Popen[bytes]
) -> None:
    client = keys_client
    created = create(client, "fbi", HUMANS2)
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    step = _to_sealed_step(client, game_id, tokens)
    move = view(client, game_id, tokens[0])["legal"][0]
    salt = "cd" * 16
    digest = sealed.commitment(game_id, step, 0, move, salt)
    assert _commit(client, game_id, tokens[0], digest).status_code == 200
    resigned = client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[1]))
    assert resigned.status_code == 200, resigned.text
    kinds = [e["event"]["type"] for e in resigned.json()["events"]]
    assert kinds[:2] == ["seat.resigned", "seal.forfeited"]
    seen = view(client, game_id, tokens[1])
    assert seen["seats"][1] == {
        "seat": 1,
        "type": "bot",
        "level": "random",
        "resigned": True,
        "name": None,
        "external_id": None,
        "open": False,
        "presence": None,  # a bot plays it: nobody is there to be present
        "substituted": None,
        "clock": None,
    }
    assert seen["seats"][0]["resigned"] is False
    assert seen["legal"] == []
    # Seat 0 reveals; the step resolves with a bot's choice for seat 1.
    revealed = client.post(
        f"/v1/games/{game_id}/reveals", json={"move": move, "salt": salt}, headers=auth(tokens[0])
    )
    assert revealed.status_code == 200, revealed.text

    # From now on the worker plays seat 1: seat 0 plays its first legal moves, and every
    # time only seat 1 is awaited the game moves on without anyone posting for it.
    kept: tuple[Any, str] | None = None
    bot_turns = 0
    for _ in range(200):
        current = view(client, game_id, tokens[0])
        if current["status"] != "active" or bot_turns >= 3:
            break
        mine = [a for a in current["awaiting"] if a["seat"] == 0]
        if not mine:
            wait_for(lambda v=current["version"]: view(client, game_id)["version"] > v, timeout=60)
            bot_turns += 1
        elif mine[0]["action"] == "move":
            posted = client.post(
                f"/v1/games/{game_id}/moves", json=current["legal"][0], headers=auth(tokens[0])
            )
            assert posted.status_code == 200, posted.text
        elif mine[0]["action"] == "commit":
            kept = (current["legal"][0], sealed.new_salt())
            digest = sealed.commitment(game_id, mine[0]["step"], 0, *kept)
            assert _commit(client, game_id, tokens[0], digest).status_code == 200
        else:
            assert kept is not None
            body = {"move": kept[0], "salt": kept[1]}
            posted = client.post(f"/v1/games/{game_id}/reveals", json=body, headers=auth(tokens[0]))
            assert posted.status_code == 200, posted.text
    assert bot_turns >= 3 or view(client, game_id)["status"] == "finished"
    # The resigned token may look but no longer act.
    refused = client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[1]))
    _problem(refused, 403, "forbidden")
    legal0 = view(client, game_id, tokens[0])["legal"]
    if legal0:
        moved = client.post(f"/v1/games/{game_id}/moves", json=legal0[0], headers=auth(tokens[1]))
        _problem(moved, 403, "forbidden")


def test_a_bot_seat_cannot_resign_and_a_spectator_needs_a_seat_token(keys_client: Any) -> None:
    created = create(keys_client, "fbi", HUMANS2)
    game_id = created["id"]
    _problem(keys_client.post(f"/v1/games/{game_id}/resign"), 401, "unauthorized")
    with_key = keys_client.post(f"/v1/games/{game_id}/resign", headers=auth(API_KEY))
    _problem(with_key, 403, "forbidden")


def test_the_creator_aborts_a_game_and_every_channel_says_so(
    keys_client: Any,
    clean_redis: str,
    worker: subprocess.Popen[bytes],
    webhook_worker: subprocess.Popen[bytes],
) -> None:
    client = keys_client
    receiver = Receiver()
    try:
        hook = client.post(
            "/v1/webhooks",
            json={"url": receiver.url, "events": ["game.finished"]},
            headers=auth(API_KEY),
        )
        assert hook.status_code == 201, hook.text
        created = create(client, "fbi", HUMANS2)
        game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        before = _length(clean_redis, game_id)
        # Only the creating key may abort: not a seat, not another key, not nobody.
        _problem(client.post(f"/v1/games/{game_id}/abort"), 401, "unauthorized")
        _problem(
            client.post(f"/v1/games/{game_id}/abort", headers=auth(OTHER_KEY)), 403, "forbidden"
        )
        _problem(
            client.post(f"/v1/games/{game_id}/abort", headers=auth(tokens[0])), 401, "unauthorized"
        )
        assert _length(clean_redis, game_id) == before
        aborted = client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY))
        assert aborted.status_code == 200, aborted.text
        assert [e["event"]["type"] for e in aborted.json()["events"]] == ["game.aborted"]
        seen = view(client, game_id, tokens[0])
        assert (seen["status"], seen["result"], seen["awaiting"], seen["legal"]) == (
            "aborted",
            None,
            [],
            [],
        )
        _problem(
            client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY)), 409, "game-finished"
        )
        _problem(
            client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[0])),
            409,
            "game-finished",
        )
        listed = client.get("/v1/games", params={"status": "aborted"}, headers=auth(API_KEY)).json()
        assert [g["id"] for g in listed["games"]] == [game_id]
        # The live feed sends the backlog and ends with game.aborted.
        with client.stream("GET", f"/v1/games/{game_id}/stream") as response:
            text = "".join(response.iter_text())
        assert text.rstrip().splitlines()[-1].startswith("data:")
        assert "event: game.aborted" in text
        # The replay opens (nobody plays any more), with the seed.
        replay = client.get(f"/v1/games/{game_id}/replay")
        assert replay.status_code == 200, replay.text
        assert replay.json()["events"][-1]["event"] == {"type": "game.aborted"}
        # The webhook tells the backend.
        wait_for(lambda: receiver.requests, timeout=60)
        note = json.loads(receiver.requests[0][1])
        assert (note["kind"], note["game_id"], note["status"]) == (
            "game.finished",
            game_id,
            "aborted",
        )
        assert note["scores"] is None
    finally:
        receiver.close()
