"""An act's answer names the seats awaited after it (`awaiting`): what the view shows then."""

from __future__ import annotations

import random
from typing import Any

from tests.helpers import API_KEY, act, auth, create, view


def _play(client: Any, game_id: str, tokens: dict[int, str], acts: int, seed: int) -> set[str]:
    """Play up to ``acts`` acts, each chosen from the previous answer's `awaiting` alone,
    and check every answer's `awaiting` against the views read right after it."""
    rng = random.Random(seed)
    kept: dict[int, tuple[dict[str, Any], str]] = {}
    awaiting = view(client, game_id)["awaiting"]
    kinds: set[str] = set()
    for _ in range(acts):
        if not awaiting:
            break
        action = awaiting[0]
        seat = action["seat"]
        legal = view(client, game_id, tokens[seat])["legal"]
        move = rng.choice(legal) if action["action"] != "reveal" else {}  # reveal: the kept one
        response = act(client, game_id, tokens[seat], seat, action, move, kept)
        assert response.status_code == 200, response.text
        answer = response.json()
        awaiting = answer["awaiting"]
        assert awaiting == view(client, game_id)["awaiting"]
        assert awaiting == view(client, game_id, tokens[seat])["awaiting"]
        kinds.add(action["action"])
    return kinds


def test_every_acts_answer_awaits_who_the_view_awaits_afterwards(client: Any) -> None:
    """A whole game of FBI, four human seats (moves, commitments, reveals)."""
    created = create(client, "fbi", [{"type": "human"}] * 4)
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    kinds = _play(client, created["id"], tokens, 2000, seed=11)
    assert kinds == {"move", "commit", "reveal"}
    final = view(client, created["id"])
    assert final["status"] == "finished"
    assert final["awaiting"] == []


def test_with_turn_deadlines_the_answer_shows_the_deadlines_the_view_shows(
    client: Any,
) -> None:
    """Turn deadlines are part of `awaiting`: the answer's are those the view shows after."""
    response = client.post(
        "/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}] * 4, "turn_seconds": 600},
        headers=auth(API_KEY),
    )
    assert response.status_code == 201, response.text
    created = response.json()
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    _play(client, created["id"], tokens, 40, seed=5)
    awaiting = view(client, created["id"])["awaiting"]
    assert awaiting
    assert all(a["deadline"] is not None for a in awaiting)


def test_a_replayed_act_answers_the_seats_awaited_now(client: Any) -> None:
    created = create(client, "fbi", [{"type": "human"}] * 4)
    game_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    seat = view(client, game_id)["awaiting"][0]["seat"]
    legal = view(client, game_id, tokens[seat])["legal"]
    headers = {**auth(tokens[seat]), "Idempotency-Key": "k1"}
    first = client.post(f"/v1/games/{game_id}/moves", json=legal[0], headers=headers)
    assert first.status_code == 200, first.text
    _play(client, game_id, tokens, 3, seed=3)
    again = client.post(f"/v1/games/{game_id}/moves", json=legal[0], headers=headers)
    assert again.status_code == 200, again.text
    assert again.json()["replayed"] is True
    assert again.json()["awaiting"] == view(client, game_id)["awaiting"]


def test_a_resignation_answers_the_seats_awaited_after_it(client: Any) -> None:
    created = create(client, "fbi", [{"type": "human"}] * 4)
    game_id = created["id"]
    token = created["seats"][2]["token"]
    response = client.post(f"/v1/games/{game_id}/resign", headers=auth(token))
    assert response.status_code == 200, response.text
    assert response.json()["awaiting"] == view(client, game_id)["awaiting"]
