"""Client-side helpers for API tests: what a third-party client would write."""

from __future__ import annotations

import secrets
import time
from typing import Any

from domain.sealed import commitment

API_KEY = "test-api-key"


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(
    client: Any, game: str, seats: list[dict[str, Any]], options: dict[str, Any] | None = None
) -> dict[str, Any]:
    response = client.post(
        "/v1/games",
        json={"game": game, "seats": seats, "options": options or {}},
        headers=auth(API_KEY),
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def view(client: Any, game_id: str, token: str | None = None) -> dict[str, Any]:
    response = client.get(f"/v1/games/{game_id}", headers=auth(token) if token else {})
    assert response.status_code == 200, response.text
    return dict(response.json())


def act(
    client: Any,
    game_id: str,
    token: str,
    seat: int,
    action: dict[str, Any],
    move: dict[str, Any],
    secrets_: dict[int, tuple[dict[str, Any], str]],
) -> Any:
    """Perform ``action`` (from ``awaiting``) with ``move``: a move, a commit or a reveal."""
    kind = action["action"]
    if kind == "move":
        return client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(token))
    if kind == "commit":
        salt = secrets.token_hex(16)
        secrets_[seat] = (move, salt)
        digest = commitment(game_id, action["step"], seat, move, salt)
        return client.post(
            f"/v1/games/{game_id}/commitments", json={"commitment": digest}, headers=auth(token)
        )
    kept, salt = secrets_.pop(seat)
    return client.post(
        f"/v1/games/{game_id}/reveals", json={"move": kept, "salt": salt}, headers=auth(token)
    )


def wait_for(predicate: Any, timeout: float = 60.0, interval: float = 0.05) -> Any:
    """Poll until ``predicate()`` is truthy (bots act on real workers); bounded in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not reached in time")
