"""Rematch: after the end, one next game for everyone (however many ask, on whichever
app instance), seats rotated, names kept, each seat token's holder gets its own new token."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.helpers import API_KEY, auth, view


def _type(response: Any) -> str:
    return str(response.json()["type"]).rsplit(":", 1)[-1]


def test_rematch_rotates_seats_and_hands_each_seat_its_token(client: TestClient[Any]) -> None:
    created = client.post(
        "/v1/games",
        json={
            "game": "bonnie_clyde",
            "seats": [
                {"type": "human", "name": "Ann", "external_id": "a"},
                {"type": "open"},
                {"type": "bot", "level": "greedy", "name": "Robo"},
            ],
        },
        headers=auth(API_KEY),
    ).json()
    game_id = created["id"]
    ann = created["seats"][0]["token"]
    code = created["seats"][1]["invite"]["code"]
    bo = client.post(
        f"/v1/invites/{code}", json={"name": "Bo", "external_id": "b"}, headers=auth(API_KEY)
    ).json()["token"]
    early = client.post(f"/v1/games/{game_id}/rematch", headers=auth(ann))
    assert early.status_code == 409
    assert _type(early) == "game-not-finished"
    assert client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY)).status_code == 200
    assert client.post(f"/v1/games/{game_id}/rematch").status_code == 401

    by_key = client.post(f"/v1/games/{game_id}/rematch", headers=auth(API_KEY))
    assert by_key.status_code == 201, by_key.text
    new_id = by_key.json()["game_id"]
    assert by_key.json() == {"game_id": new_id, "seat": None, "token": None}
    first = client.post(f"/v1/games/{game_id}/rematch", headers=auth(ann)).json()
    assert first["game_id"] == new_id
    assert first["seat"] == 1
    again = client.post(f"/v1/games/{game_id}/rematch", headers=auth(ann)).json()
    assert again == first  # the same token on every call
    second = client.post(f"/v1/games/{game_id}/rematch", headers=auth(bo)).json()
    assert second["game_id"] == new_id
    assert second["seat"] == 2
    assert second["token"] not in (first["token"], ann, bo)

    seen = view(client, new_id, first["token"])
    assert seen["you"] == 1
    assert seen["status"] == "active"
    assert [(s["type"], s["name"], s["external_id"]) for s in seen["seats"]] == [
        ("bot", "Robo", None),
        ("human", "Ann", "a"),
        ("human", "Bo", "b"),
    ]
    assert view(client, new_id, second["token"])["you"] == 2
    # The old token is not a token of the new game.
    assert client.get(f"/v1/games/{new_id}", headers=auth(ann)).status_code == 401
    old = view(client, game_id, ann)
    assert old["rematch"] == {"game_id": new_id}
    kinds = [e["event"]["type"] for e in client.get(f"/v1/games/{game_id}/events").json()["events"]]
    assert kinds.count("rematch.created") == 1
    listed = client.get("/v1/games", headers=auth(API_KEY)).json()["games"]
    assert listed[0]["id"] == new_id


def test_concurrent_rematches_make_one_game(settings: Settings) -> None:
    async def run() -> list[httpx.Response]:
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
            created = (
                await https[0].post(
                    "/v1/games",
                    json={"game": "bonnie_clyde", "seats": [{"type": "human"}] * 2},
                    headers=auth(API_KEY),
                )
            ).json()
            game_id = created["id"]
            tokens = [s["token"] for s in created["seats"]]
            await https[1].get(f"/v1/games/{game_id}")  # both caches hold the game
            await https[0].post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY))
            answers = await asyncio.gather(
                *(
                    https[i % 2].post(f"/v1/games/{game_id}/rematch", headers=auth(tokens[i % 2]))
                    for i in range(12)
                )
            )
            for http in https:
                await http.aclose()
            return list(answers)

    answers = asyncio.run(run())
    assert {r.status_code for r in answers} == {201}, [r.text for r in answers]
    assert len({r.json()["game_id"] for r in answers}) == 1
    assert len({(r.json()["seat"], r.json()["token"]) for r in answers}) == 2
