"""GET /v1/lobby: public games only, newest first, by state and game, paged; no tokens."""

from __future__ import annotations

import json
from typing import Any

from litestar.testing import TestClient

from tests.helpers import API_KEY, auth


def _create(client: Any, game: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    response = client.post(
        "/v1/games", json={"game": game, "seats": seats, **extra}, headers=auth(API_KEY)
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def _ids(client: Any, **params: Any) -> list[str]:
    response = client.get("/v1/lobby", params=params)
    assert response.status_code == 200, response.text
    return [g["id"] for g in response.json()["games"]]


def test_the_lobby_lists_public_games_by_state_and_game(client: TestClient[Any]) -> None:
    humans = [{"type": "human"}, {"type": "human"}]
    waiting = _create(client, "fbi", [{"type": "human"}, {"type": "open"}], public=True)
    playing = _create(client, "bonnie_clyde", humans, public=True)
    hidden = _create(client, "bonnie_clyde", humans, private=True)
    unlisted = _create(client, "bonnie_clyde", [{"type": "human"}, {"type": "open"}])
    ended = _create(client, "bonnie_clyde", humans, public=True)
    client.post(f"/v1/games/{ended['id']}/abort", headers=auth(API_KEY))
    everything = client.get("/v1/lobby").json()
    assert [g["id"] for g in everything["games"]] == [playing["id"], waiting["id"]]
    assert everything["next_cursor"] is None
    text = json.dumps(everything)
    for created in (waiting, playing):
        for seat in created["seats"]:
            assert not seat["token"] or seat["token"] not in text
    assert hidden["id"] not in text
    assert unlisted["id"] not in text
    assert _ids(client, state="waiting") == [waiting["id"]]
    assert _ids(client, state="playing") == [playing["id"]]
    assert _ids(client, game="fbi") == [waiting["id"]]
    assert _ids(client, game="feds") == []
    first = client.get("/v1/lobby", params={"limit": 1}).json()
    assert [g["id"] for g in first["games"]] == [playing["id"]]
    rest = client.get("/v1/lobby", params={"limit": 1, "cursor": first["next_cursor"]}).json()
    assert [g["id"] for g in rest["games"]] == [waiting["id"]]
    listed = client.get("/v1/lobby", params={"state": "waiting"}).json()["games"][0]
    assert listed["status"] == "waiting"
    assert listed["seats"][1]["open"] is True
    # Once the waiting game starts it moves to playing.
    code = waiting["seats"][1]["invite"]["code"]
    assert client.post(f"/v1/invites/{code}", json={"name": "Zed"}).status_code == 201
    assert _ids(client, state="waiting") == []
    assert _ids(client, state="playing") == [playing["id"], waiting["id"]]
    bad = client.get("/v1/lobby", params={"state": "finished"})
    assert bad.status_code == 400


def test_public_and_private_together_are_refused(client: TestClient[Any]) -> None:
    response = client.post(
        "/v1/games",
        json={
            "game": "bonnie_clyde",
            "seats": [{"type": "human"}, {"type": "human"}],
            "public": True,
            "private": True,
        },
        headers=auth(API_KEY),
    )
    assert response.status_code == 422
    assert response.json()["type"] == "urn:stakeout:problem:invalid-options"


def test_my_games_filter_by_a_seats_external_id(client: TestClient[Any]) -> None:
    mine = _create(
        client, "bonnie_clyde", [{"type": "human", "external_id": "user-7"}, {"type": "open"}]
    )
    claimed = _create(client, "bonnie_clyde", [{"type": "human"}, {"type": "open"}])
    code = claimed["seats"][1]["invite"]["code"]
    assert (
        client.post(
            f"/v1/invites/{code}", json={"external_id": "user-7"}, headers=auth(API_KEY)
        ).status_code
        == 201
    )
    _create(client, "bonnie_clyde", [{"type": "human", "external_id": "user-8"}] * 2)
    response = client.get("/v1/games", params={"external_id": "user-7"}, headers=auth(API_KEY))
    assert response.status_code == 200, response.text
    assert [g["id"] for g in response.json()["games"]] == [claimed["id"], mine["id"]]
    none = client.get("/v1/games", params={"external_id": "nobody"}, headers=auth(API_KEY))
    assert none.json()["games"] == []
