"""A play socket's acts spend the rate limit as their POSTs do (the app's real middleware
object, over the real Redis): a spectator's act frames are refused 403 until its key's
budget is spent, then 429; a seat the game awaits is never refused, its budget spent or not."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.helpers import API_KEY, auth

LIMIT = 5


def _game(client: Any) -> tuple[str, list[dict[str, Any]]]:
    created = client.post(
        "/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}, {"type": "human"}]},
        headers=auth(API_KEY),
    )
    assert created.status_code == 201, created.text
    return created.json()["id"], created.json()["seats"]


def test_socket_acts_spend_the_rate_limit_as_their_posts(settings: Settings) -> None:
    limited = replace(settings, rate_limit_per_minute=LIMIT, rate_limit_burst=LIMIT)
    with TestClient(app=create_app(limited)) as client:
        game_id, seats = _game(client)  # one of the key's budget
        views = [client.get(f"/v1/games/{game_id}", headers=auth(s["token"])) for s in seats]
        awaited = next(i for i, v in enumerate(views) if v.json()["legal"])
        move = views[awaited].json()["legal"][0]
        frame = json.dumps({"type": "move", "ref": "r", "body": move})
        statuses = []
        with client.websocket_connect(
            f"/v1/games/{game_id}/play", headers=auth(API_KEY)
        ) as spectator:
            assert spectator.receive_json()["type"] == "view"
            for _ in range(2 * LIMIT):
                spectator.send_text(frame)
                got = spectator.receive_json()
                assert (got["type"], got["ref"]) == ("problem", "r")
                statuses.append(got["status"])
        first = statuses.index(429)
        assert first > 0
        assert set(statuses[:first]) == {403}
        assert set(statuses[first:]) == {429}

        # The awaited seat spends its budget on reads, then acts over its socket: let through.
        token = seats[awaited]["token"]
        for _ in range(LIMIT + 1):
            client.get(f"/v1/games/{game_id}", headers=auth(token))
        assert client.get(f"/v1/games/{game_id}", headers=auth(token)).status_code == 429
        with client.websocket_connect(f"/v1/games/{game_id}/play", headers=auth(token)) as seat:
            assert seat.receive_json()["type"] == "view"
            seat.send_text(frame)
            answer = next(m for m in iter(seat.receive_json, None) if m["type"] != "view")
            assert (answer["type"], answer["status"]) == ("answer", 200), answer
