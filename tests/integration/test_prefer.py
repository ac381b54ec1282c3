"""`Prefer: return=representation` on acts (RFC 7240): the answer carries the caller's view."""

from __future__ import annotations

import random
import secrets
from typing import Any

import msgspec

from domain.sealed import commitment
from tests.helpers import auth, create, view

PREFER = {"Prefer": "return=representation"}


def _untimed(seen: dict[str, Any]) -> dict[str, Any]:
    """A view but for when it was made (``server_time_ms``: each view says its own)."""
    return {k: v for k, v in seen.items() if k != "server_time_ms"}


def _post(client: Any, path: str, token: str, body: Any, prefer: bool) -> Any:
    headers = {**auth(token), **(PREFER if prefer else {})}
    return client.post(path, json=body, headers=headers)


def test_every_act_with_prefer_answers_the_view_a_get_gives_that_seat(client: Any) -> None:
    """A whole game of FBI (four human seats, moves and sealed steps): after each act the
    answer's view equals GET /v1/games/{id} for that seat, and Preference-Applied says so;
    without the preference there is no view and no Preference-Applied."""
    created = create(client, "fbi", [{"type": "human"}] * 4)
    game_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    kept: dict[int, tuple[dict[str, Any], str]] = {}
    rng = random.Random(7)
    kinds: set[str] = set()
    for index in range(2000):
        seen = view(client, game_id)
        if seen["status"] == "finished":
            break
        action = seen["awaiting"][0]
        seat, token = action["seat"], tokens[action["seat"]]
        mine = view(client, game_id, token)
        base = f"/v1/games/{game_id}"
        if action["action"] == "move":
            path, body = f"{base}/moves", rng.choice(mine["legal"])
        elif action["action"] == "commit":
            move, salt = rng.choice(mine["legal"]), secrets.token_hex(16)
            kept[seat] = (move, salt)
            digest = commitment(game_id, action["step"], seat, move, salt)
            path, body = f"{base}/commitments", {"commitment": digest}
        else:
            move, salt = kept.pop(seat)
            path, body = f"{base}/reveals", {"move": move, "salt": salt}
        prefer = index % 3 != 2  # some acts without the preference
        response = _post(client, path, token, body, prefer)
        assert response.status_code == 200, response.text
        answer = response.json()
        if prefer:
            assert response.headers["Preference-Applied"] == "return=representation"
            got = answer["view"]
            assert _untimed(got) == _untimed(view(client, game_id, token))
            assert got["version"] == answer["version"]
            assert got["you"] == seat
            kinds.add(action["action"])
        else:
            assert "Preference-Applied" not in response.headers
            assert answer["view"] is None
    else:
        raise AssertionError("the game did not finish")
    assert kinds == {"move", "commit", "reveal"}


def test_prefer_on_a_replayed_act_answers_the_view_as_it_is_now(client: Any) -> None:
    created = create(client, "fbi", [{"type": "human"}] * 4)
    game_id = created["id"]
    seen = view(client, game_id)
    seat = seen["awaiting"][0]["seat"]
    token = created["seats"][seat]["token"]
    legal = view(client, game_id, token)["legal"]
    headers = {**auth(token), **PREFER, "Idempotency-Key": "once"}
    first = client.post(f"/v1/games/{game_id}/moves", json=legal[0], headers=headers)
    again = client.post(f"/v1/games/{game_id}/moves", json=legal[0], headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.json()["replayed"] is True
    assert again.json()["events"] == first.json()["events"]
    assert _untimed(again.json()["view"]) == _untimed(view(client, game_id, token))


def test_only_return_representation_is_honoured(client: Any) -> None:
    created = create(client, "fbi", [{"type": "human"}] * 4)
    game_id = created["id"]
    seat = view(client, game_id)["awaiting"][0]["seat"]
    token = created["seats"][seat]["token"]
    legal = view(client, game_id, token)["legal"]
    headers = {**auth(token), "Prefer": "return=minimal, respond-async"}
    response = client.post(f"/v1/games/{game_id}/moves", json=legal[0], headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["view"] is None
    assert "Preference-Applied" not in response.headers
    assert msgspec.json.decode(response.content)["version"] == view(client, game_id)["version"]
