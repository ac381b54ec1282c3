"""The HTTP API against the real app and a real Redis: the contract a client relies on."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from domain.sealed import commitment
from tests.helpers import API_KEY, auth, create, view

HUMANS2 = [{"type": "human"}, {"type": "human"}]


def _snapshot(redis_url: str, game_id: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return int(client.xlen(f"game:{{{game_id}}}:events"))
    finally:
        client.close()


def _problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["type"] == f"urn:stakeout:problem:{code}", body
    assert body["status"] == status


def test_creating_a_game_returns_tokens_for_humans_only_and_a_seed_commitment(client: Any) -> None:
    created = create(client, "fbi", [{"type": "human"}, {"type": "bot", "level": "random"}])
    assert len(created["id"]) == 24
    assert created["version"] >= 1
    assert len(created["seed_commitment"]) == 64
    assert created["seats"][0]["token"]
    assert created["seats"][1]["token"] is None
    seen = view(client, created["id"], created["seats"][0]["token"])
    assert seen["you"] == 0
    assert seen["game"] == "fbi"
    assert seen["status"] == "active"
    assert seen["state"]["game"] == "fbi"


def test_creating_needs_an_api_key(client: Any) -> None:
    body = {"game": "fbi", "seats": HUMANS2}
    _problem(client.post("/v1/games", json=body), 401, "unauthorized")
    _problem(client.post("/v1/games", json=body, headers=auth("forged")), 401, "unauthorized")


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/v1/games"), ("GET", "/v1/games"), ("GET", "/v1/webhooks"), ("GET", "/v1/stats")],
)
def test_no_key_and_a_wrong_key_are_told_apart(client: Any, method: str, path: str) -> None:
    """Both 401 `unauthorized`, each saying which it is: nothing was sent, or what was sent
    is no API key (a mistyped or stale key looks like neither a missing header)."""
    body = {"json": {"game": "fbi", "seats": HUMANS2}} if method == "POST" else {}
    missing = client.request(method, path, **body)
    wrong = client.request(method, path, headers=auth("sk_not-a-key-of-this-server"), **body)
    for answer in (missing, wrong):
        _problem(answer, 401, "unauthorized")
    assert "no credential was sent" in missing.json()["detail"], missing.json()
    assert "not one of this server's API keys" in wrong.json()["detail"], wrong.json()
    assert missing.json()["detail"] != wrong.json()["detail"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "chess", "seats": HUMANS2}, 400, "invalid-request"),
        ({"game": "fbi", "seats": HUMANS2, "extra": 1}, 400, "invalid-request"),
        ({"game": "fbi", "seats": "two"}, 400, "invalid-request"),
        ({"game": "fbi", "seats": [{"type": "human"}]}, 400, "invalid-request"),
        ({"game": "fbi", "seats": HUMANS2, "options": {"variant": "x"}}, 400, "invalid-request"),
        ({"game": "fbi", "seats": HUMANS2, "options": {"nope": 1}}, 400, "invalid-request"),
        ({"game": "fbi", "seats": [{"type": "bot"}, {"type": "human"}]}, 400, "invalid-request"),
    ],
)
def test_bad_creation_requests_get_problems(client: Any, body: Any, status: int, code: str) -> None:
    _problem(client.post("/v1/games", json=body, headers=auth(API_KEY)), status, code)


def test_malformed_json_and_huge_bodies_are_refused(client: Any) -> None:
    headers = {**auth(API_KEY), "content-type": "application/json"}
    _problem(
        client.post("/v1/games", content=b"{not json", headers=headers), 400, "invalid-request"
    )
    huge = b'{"game": "fbi", "seats": [], "options": {"x": "' + b"a" * 200_000 + b'"}}'
    _problem(client.post("/v1/games", content=huge, headers=headers), 413, "payload-too-large")


def test_unknown_games_and_rules(client: Any) -> None:
    _problem(client.get("/v1/games/" + "0" * 24), 404, "unknown-game")
    _problem(client.get("/v1/rules/chess"), 404, "unknown-game")
    rules = client.get("/v1/rules/fbi").json()
    assert rules["game"] == "fbi"
    assert rules["min_seats"] == 2
    assert rules["max_seats"] == 5
    assert "fbi" in client.get("/v1/rules").json()["games"]


def _sealed_round(
    client: Any, game_id: str, tokens: list[str]
) -> dict[int, tuple[dict[str, Any], str]]:
    """Every seat commits its first legal move; returns what each must reveal."""
    secrets_: dict[int, tuple[dict[str, Any], str]] = {}
    for seat, token in enumerate(tokens):
        seen = view(client, game_id, token)
        action = next(a for a in seen["awaiting"] if a["seat"] == seat)
        assert action["action"] == "commit"
        move = seen["legal"][0]
        salt = "ab" * 16
        digest = commitment(game_id, action["step"], seat, move, salt)
        response = client.post(
            f"/v1/games/{game_id}/commitments", json={"commitment": digest}, headers=auth(token)
        )
        assert response.status_code == 200, response.text
        secrets_[seat] = (move, salt)
    return secrets_


def _play_to_sealed_step(client: Any, game_id: str, tokens: list[str]) -> None:
    for _ in range(50):
        seen = view(client, game_id)
        actions = seen["awaiting"]
        if any(a["action"] == "commit" for a in actions):
            return
        action = actions[0]
        token = tokens[action["seat"]]
        move = view(client, game_id, token)["legal"][0]
        response = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(token))
        assert response.status_code == 200, response.text
    raise AssertionError("no sealed step reached")


def test_sealed_step_commit_then_reveal_keeps_moves_hidden_until_all_reveal(
    client: Any, clean_redis: str
) -> None:
    created = create(client, "fbi", HUMANS2)
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    _play_to_sealed_step(client, game_id, tokens)
    # A public move during a sealed step is refused.
    seen = view(client, game_id, tokens[0])
    before = _snapshot(clean_redis, game_id)
    _problem(
        client.post(f"/v1/games/{game_id}/moves", json=seen["legal"][0], headers=auth(tokens[0])),
        409,
        "sealed-step",
    )
    secrets_ = _sealed_round(client, game_id, tokens)
    # Committing twice is refused and changes nothing.
    again = client.post(
        f"/v1/games/{game_id}/commitments", json={"commitment": "0" * 64}, headers=auth(tokens[0])
    )
    _problem(again, 409, "commitment-rejected")
    assert _snapshot(clean_redis, game_id) == before + 2
    # A reveal that does not match is refused and changes nothing.
    move, salt = secrets_[0]
    wrong = client.post(
        f"/v1/games/{game_id}/reveals",
        json={"move": move, "salt": "cd" * 16},
        headers=auth(tokens[0]),
    )
    _problem(wrong, 422, "reveal-mismatch")
    assert _snapshot(clean_redis, game_id) == before + 2
    first = client.post(
        f"/v1/games/{game_id}/reveals", json={"move": move, "salt": salt}, headers=auth(tokens[0])
    )
    assert first.status_code == 200, first.text
    # Seat 1 and spectators learn nothing of seat 0's move before seat 1 reveals.
    for token in (tokens[1], None):
        headers = auth(token) if token else {}
        log = client.get(
            f"/v1/games/{game_id}/events", params={"after": before}, headers=headers
        ).json()
        revealed = [e["event"] for e in log["events"] if e["event"]["type"] == "seal.revealed"]
        assert revealed
        assert all(r.get("move") is None and r.get("salt") is None for r in revealed)
    mine = client.get(
        f"/v1/games/{game_id}/events", params={"after": before}, headers=auth(tokens[0])
    ).json()
    assert any(e["event"].get("move") == move for e in mine["events"])
    move1, salt1 = secrets_[1]
    last = client.post(
        f"/v1/games/{game_id}/reveals", json={"move": move1, "salt": salt1}, headers=auth(tokens[1])
    )
    assert last.status_code == 200, last.text
    assert view(client, game_id)["version"] > before + 4


def test_moves_need_the_callers_own_seat_token(client: Any, clean_redis: str) -> None:
    created = create(client, "fbi", HUMANS2)
    other = create(client, "fbi", HUMANS2)
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    seen = view(client, game_id)
    action = seen["awaiting"][0]
    mover, idle = action["seat"], 1 - action["seat"]
    move = view(client, game_id, tokens[mover])["legal"][0]
    path = f"/v1/games/{game_id}/moves"
    before = _snapshot(clean_redis, game_id)
    _problem(client.post(path, json=move), 401, "unauthorized")
    _problem(client.post(path, json=move, headers=auth(API_KEY)), 403, "forbidden")
    _problem(
        client.post(path, json=move, headers=auth(other["seats"][0]["token"])), 401, "unauthorized"
    )
    _problem(client.post(path, json=move, headers=auth("x" * 43)), 401, "unauthorized")
    _problem(client.post(path, json=move, headers=auth(tokens[idle])), 409, "not-your-turn")
    _problem(
        client.post(path, json={"type": "fbi.nope"}, headers=auth(tokens[mover])),
        400,
        "invalid-request",
    )
    _problem(client.post(path, json=[1, 2], headers=auth(tokens[mover])), 400, "invalid-request")
    assert _snapshot(clean_redis, game_id) == before
    assert client.post(path, json=move, headers=auth(tokens[mover])).status_code == 200


def test_idempotency_key_and_if_match(client: Any, clean_redis: str) -> None:
    created = create(client, "fbi", HUMANS2)
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    seen = view(client, game_id)
    seat = seen["awaiting"][0]["seat"]
    move = view(client, game_id, tokens[seat])["legal"][0]
    path = f"/v1/games/{game_id}/moves"
    stale = {**auth(tokens[seat]), "If-Match": str(seen["version"] - 1)}
    _problem(client.post(path, json=move, headers=stale), 412, "version-mismatch")
    headers = {
        **auth(tokens[seat]),
        "Idempotency-Key": "move-1",
        "If-Match": f'"{seen["version"]}"',
    }
    first = client.post(path, json=move, headers=headers)
    second = client.post(path, json=move, headers=headers)
    assert first.status_code == second.status_code == 200
    assert first.json()["events"] == second.json()["events"]
    assert second.json()["replayed"] is True
    assert _snapshot(clean_redis, game_id) == first.json()["version"]
    other = view(client, game_id, tokens[seat])["legal"]
    if other and other[0] != move:
        _problem(client.post(path, json=other[0], headers=headers), 422, "idempotency-mismatch")


def test_events_page_with_after_and_limit(client: Any) -> None:
    created = create(client, "fbi", HUMANS2)
    game_id = created["id"]
    page = client.get(f"/v1/games/{game_id}/events", params={"after": 0, "limit": 1}).json()
    assert [e["version"] for e in page["events"]] == [1]
    assert page["events"][0]["event"]["type"] == "game.created"
    assert page["has_more"] is True
    assert page["next_after"] == 1
    rest = client.get(f"/v1/games/{game_id}/events", params={"after": 1, "limit": 500}).json()
    assert rest["events"][0]["version"] == 2
    assert rest["has_more"] is False
    _problem(client.get(f"/v1/games/{game_id}/events", params={"limit": 0}), 400, "invalid-request")


def test_probes(client: Any) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    # Ready, and nothing waits in the outbox (no game was changed yet).
    assert client.get("/readyz").json() == {"status": "ok", "outbox_lag": 0, "outbox_pending": 0}


def test_an_api_key_lists_its_own_games_with_filters_and_cursor_pages(client: Any) -> None:
    ids = [create(client, "fbi", HUMANS2)["id"] for _ in range(5)]
    first = client.get("/v1/games", params={"limit": 2}, headers=auth(API_KEY))
    assert first.status_code == 200, first.text
    page = first.json()
    listed = [g["id"] for g in page["games"]]
    while page["next_cursor"]:
        page = client.get(
            "/v1/games", params={"limit": 2, "cursor": page["next_cursor"]}, headers=auth(API_KEY)
        ).json()
        listed += [g["id"] for g in page["games"]]
    assert listed == list(reversed(ids))  # newest first, each once
    finished = client.get("/v1/games", params={"status": "finished"}, headers=auth(API_KEY))
    assert finished.json()["games"] == []
    active = client.get(
        "/v1/games", params={"status": "active", "game": "fbi"}, headers=auth(API_KEY)
    )
    assert len(active.json()["games"]) == 5
    _problem(client.get("/v1/games"), 401, "unauthorized")
    _problem(
        client.get("/v1/games", params={"cursor": "x"}, headers=auth(API_KEY)),
        400,
        "invalid-request",
    )
