"""Open seats over HTTP: invites, claims (exactly one of many concurrent claims wins),
waiting games refuse acts, leaving frees the seat, the creator fills the rest with bots,
names and external ids in views and lists, never a token."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import redis
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.helpers import API_KEY, auth, view


def _problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == f"urn:stakeout:problem:{code}", response.text


def _create(client: Any, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    response = client.post(
        "/v1/games",
        json={"game": "bonnie_clyde", "seats": seats, **extra},
        headers=auth(API_KEY),
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_invite_claim_start_and_identities(client: TestClient[Any]) -> None:
    created = _create(
        client,
        [
            {"type": "human", "name": "Ann", "external_id": "user-1"},
            {"type": "open", "name": "guest"},
        ],
    )
    game_id = created["id"]
    host, guest = created["seats"]
    assert host["token"]
    assert host["name"] == "Ann"
    assert host["external_id"] == "user-1"
    assert guest["token"] is None
    assert guest["type"] == "open"
    code = guest["invite"]["code"]
    assert guest["invite"]["url"] == f"/v1/invites/{code}"

    waiting = view(client, game_id, host["token"])
    assert waiting["status"] == "waiting"
    assert waiting["awaiting"] == []
    assert waiting["legal"] == []
    assert waiting["seats"][1]["open"] is True
    assert waiting["seats"][0]["external_id"] == "user-1"
    # Nobody may act before the start.
    response = client.post(
        f"/v1/games/{game_id}/moves",
        json={"type": "bc.draw_from_case_file"},
        headers=auth(host["token"]),
    )
    _problem(response, 409, "game-not-started")

    info = client.get(f"/v1/invites/{code}")
    assert info.status_code == 200, info.text
    assert info.json()["game_id"] == game_id
    assert info.json()["seat"] == 1
    assert info.json()["status"] == "waiting"
    _problem(client.get("/v1/invites/not-a-real-code-123"), 404, "unknown-invite")

    # The game's API key claims the seat for one of its users (binding its identity).
    claimed = client.post(
        f"/v1/invites/{code}", json={"name": "Bo", "external_id": "user-2"}, headers=auth(API_KEY)
    )
    assert claimed.status_code == 201, claimed.text
    token = claimed.json()["token"]
    assert claimed.json() == {"game_id": game_id, "seat": 1, "token": token}
    # Once claimed, the seat is taken; the game started.
    _problem(client.post(f"/v1/invites/{code}", json={}), 409, "game-started")
    started = view(client, game_id, token)
    assert started["status"] == "active"
    assert started["you"] == 1
    assert started["awaiting"], started
    # The claimer's own request made it present.
    assert started["seats"][1].pop("presence")["status"] == "online"
    assert started["seats"][1] == {
        "seat": 1,
        "type": "human",
        "level": None,
        "resigned": False,
        "name": "Bo",
        "external_id": "user-2",
        "open": False,
        "substituted": None,
        "clock": None,
    }
    # Events say who sat down, never a token.
    events = client.get(f"/v1/games/{game_id}/events").json()["events"]
    kinds = [e["event"]["type"] for e in events]
    assert "seat.claimed" in kinds
    assert kinds.index("game.started") > kinds.index("seat.claimed")
    assert token not in json.dumps(events)
    assert host["token"] not in json.dumps(events)
    listed = client.get("/v1/games", headers=auth(API_KEY)).json()["games"][0]
    assert listed["seats"][1]["name"] == "Bo"
    assert listed["seats"][1]["external_id"] == "user-2"
    # The new token plays the seat.
    actor = started["awaiting"][0]["seat"]
    mover = token if actor == 1 else host["token"]
    move = view(client, game_id, mover)["legal"][0]
    response = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(mover))
    assert response.status_code == 200, response.text
    _problem(client.post(f"/v1/games/{game_id}/leave", headers=auth(token)), 409, "game-started")


def test_leave_frees_the_seat_and_fill_starts_the_game(
    client: TestClient[Any], settings: Settings
) -> None:
    created = _create(client, [{"type": "open"}, {"type": "open"}, {"type": "human"}])
    game_id = created["id"]
    codes = [s["invite"]["code"] for s in created["seats"][:2]]
    first = client.post(f"/v1/invites/{codes[0]}", json={"name": "Cy"}).json()["token"]
    _problem(
        client.post(f"/v1/games/{game_id}/leave", headers=auth(created["seats"][2]["token"])),
        409,
        "not-an-open-seat",
    )
    left = client.post(f"/v1/games/{game_id}/leave", headers=auth(first))
    assert left.status_code == 200, left.text
    assert view(client, game_id)["seats"][0]["open"] is True
    # The old token is withdrawn; the invite works again, with a new token.
    _problem(client.get(f"/v1/games/{game_id}", headers=auth(first)), 401, "unauthorized")
    again = client.post(f"/v1/invites/{codes[0]}", json={})
    assert again.status_code == 201, again.text
    assert again.json()["token"] != first
    assert view(client, game_id)["status"] == "waiting"
    # Only the creating key may fill; then bots take the open seat and the game starts.
    _problem(
        client.post(f"/v1/games/{game_id}/fill", json={"level": "random"}),
        401,
        "unauthorized",
    )
    filled = client.post(
        f"/v1/games/{game_id}/fill", json={"level": "greedy"}, headers=auth(API_KEY)
    )
    assert filled.status_code == 200, filled.text
    after = view(client, game_id)
    assert after["status"] == "active"
    assert after["seats"][1]["type"] == "bot"
    assert after["seats"][1]["level"] == "greedy"
    _problem(client.post(f"/v1/invites/{codes[1]}", json={}), 409, "game-started")
    _problem(
        client.post(f"/v1/games/{game_id}/fill", json={"level": "random"}, headers=auth(API_KEY)),
        409,
        "game-started",
    )
    # Store only hashes: no invite code or token appears in Redis.
    raw = redis.Redis.from_url(settings.redis_url or "")
    try:
        dump = b"".join(
            str(raw.dump(k)).encode() for k in raw.scan_iter() if raw.type(k) != b"stream"
        )
    finally:
        raw.close()
    for secret in [*codes, again.json()["token"]]:
        assert secret.encode() not in dump


def test_many_concurrent_claims_one_wins(settings: Settings) -> None:
    """Twenty clients claim one seat at once through two app instances (two warm caches,
    as two API processes have) on one Redis: exactly one 201, the rest 409."""

    async def run() -> tuple[list[httpx.Response], dict[str, Any]]:
        apps = [create_app(settings), create_app(settings)]
        async with apps[0].lifespan(), apps[1].lifespan():
            # httpx's ASGI app takes plain mappings; Litestar's __call__ its TypedDict scopes.
            https = [
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=a),  # type: ignore[arg-type]
                    base_url="http://test",
                )
                for a in apps
            ]
            created = await https[0].post(
                "/v1/games",
                json={"game": "bonnie_clyde", "seats": [{"type": "human"}, {"type": "open"}]},
                headers=auth(API_KEY),
            )
            game_id = created.json()["id"]
            code = created.json()["seats"][1]["invite"]["code"]
            for http in https:  # both caches hold the waiting game
                assert (await http.get(f"/v1/games/{game_id}")).json()["status"] == "waiting"
            answers = await asyncio.gather(
                *(
                    https[i % 2].post(f"/v1/invites/{code}", json={"name": f"p{i}"})
                    for i in range(20)
                )
            )
            seen = (await https[1].get(f"/v1/games/{game_id}")).json()
            for http in https:
                await http.aclose()
            return list(answers), seen

    answers, seen = asyncio.run(run())
    assert [r.status_code for r in answers].count(201) == 1, [r.text for r in answers]
    winner = next(r for r in answers if r.status_code == 201)
    index = [r.status_code for r in answers].index(201)
    assert seen["seats"][1]["name"] == f"p{index}"
    assert seen["status"] == "active"
    assert winner.json()["seat"] == 1
    for response in answers:
        if response.status_code != 201:
            assert response.json()["type"] in (
                "urn:stakeout:problem:seat-taken",
                "urn:stakeout:problem:game-started",
            ), response.text
