"""The view at a past version of a game that is over (GET /v1/games/{id}/replay/{version}):
what the web replay draws at each step."""

from __future__ import annotations

import random
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from tests.helpers import API_KEY, act, auth, create, view


def _play_some(client: TestClient[Litestar], game_id: str, tokens: list[str], acts: int) -> None:
    rng = random.Random(5)
    secrets_: dict[int, tuple[dict[str, Any], str]] = {}
    for _ in range(acts):
        seen = view(client, game_id)
        action = seen["awaiting"][0]
        seat = action["seat"]
        mine = view(client, game_id, tokens[seat])
        move = rng.choice(mine["legal"]) if mine["legal"] else {}
        assert act(client, game_id, tokens[seat], seat, action, move, secrets_).status_code == 200


def test_views_of_the_past_open_when_the_game_is_over(client: TestClient[Litestar]) -> None:
    created = create(client, "fbi", [{"type": "human"}, {"type": "human"}])
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    _play_some(client, game_id, tokens, 6)
    running = client.get(f"/v1/games/{game_id}/replay/3")
    assert running.status_code == 409, running.text
    assert running.json()["type"].endswith("game-not-finished")

    assert client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY)).status_code == 200
    final = view(client, game_id)
    events = client.get(f"/v1/games/{game_id}/events", params={"limit": 500}).json()["events"]
    opening = next(e["version"] for e in events if e["event"]["type"] == "fbi.cards_placed")

    # The opening batch shows the dealt table; each later version the game just after it.
    first = client.get(f"/v1/games/{game_id}/replay/1").json()
    dealt = client.get(f"/v1/games/{game_id}/replay/{opening}").json()
    assert first == dealt
    assert dealt["version"] == opening
    assert dealt["status"] == "active"
    later = client.get(f"/v1/games/{game_id}/replay/{opening + 2}").json()
    assert later["version"] == opening + 2
    last = client.get(f"/v1/games/{game_id}/replay/{final['version']}").json()
    # A view of the past says nothing of who was at the table (presence is not in the log),
    # and it is as of when it was made.
    timeless = [{**s, "presence": None, "substituted": None} for s in final["seats"]]
    past = {**final, "awaiting": last["awaiting"], "seats": timeless}
    assert last == {**past, "server_time_ms": last["server_time_ms"]}
    assert last["server_time_ms"] <= final["server_time_ms"]

    # A seat's view then: its own hand and legal moves; a spectator's has none.
    awaited = dealt["awaiting"][0]["seat"]
    seat_view = client.get(f"/v1/games/{game_id}/replay/{opening}", params={"seat": awaited}).json()
    assert seat_view["you"] == awaited
    assert seat_view["legal"]
    assert dealt["legal"] == []

    past_end = client.get(f"/v1/games/{game_id}/replay/{final['version'] + 1}")
    assert past_end.status_code == 404
    # A well-formed request the game refuses: no such seat in it.
    no_seat = client.get(f"/v1/games/{game_id}/replay/2", params={"seat": 7})
    assert no_seat.status_code == 422
    assert no_seat.json()["type"].endswith("unknown-seat")
