"""Client-side helpers for API tests: what a third-party client would write."""

from __future__ import annotations

import random
import secrets
import time
from pathlib import Path
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


# The packages of the server's code besides the rules (domain/).
TOP_PACKAGES = ("service", "workers", "stakeout")


def service_sources(root: Path) -> list[Path]:
    """Every module of ``service/``, ``workers/`` and ``stakeout/`` under ``root`` (checked
    by the source-scanning tests), sorted; asserts the walk found the code."""
    sources = [path for top in TOP_PACKAGES for path in sorted((root / top).rglob("*.py"))]
    assert len(sources) > 40
    return sources


def play_randomly(
    client: Any, game_id: str, tokens: list[str], seed: int, max_actions: int | None = None
) -> int:
    """The humans play random legal acts (``max_actions`` of them, or to the end);
    returns how many were made."""
    rng = random.Random(seed)
    kept: dict[int, tuple[dict[str, Any], str]] = {}
    done = 0
    while max_actions is None or done < max_actions:
        seen = view(client, game_id)
        if seen["status"] == "finished":
            break
        action = seen["awaiting"][0]
        seat = action["seat"]
        legal = view(client, game_id, tokens[seat])["legal"]
        move = rng.choice(legal) if legal else {}
        response = act(client, game_id, tokens[seat], seat, action, move, kept)
        assert response.status_code == 200, response.text
        done += 1
    return done


def batch(
    game_id: str,
    expected: int,
    events: list[bytes],
    key: str | None = None,
    fingerprint: str = "",
    tip: str = "",
) -> Any:
    """An event-store append of ``events`` at ``expected``, stamped now."""
    from service.store.event_store import Batch

    now = int(time.time() * 1000)
    return Batch(game_id, expected, events, now, key=key, fingerprint=fingerprint, tip=tip)


def text(value: object) -> str:
    """A string Redis answered with, as text (the tests' clients answer bytes)."""
    assert isinstance(value, bytes), value
    return value.decode()


def fields_of(entries: object) -> list[dict[bytes, bytes]]:
    """The fields of each entry of a stream range Redis answered with (XRANGE), in order."""
    assert isinstance(entries, list), entries
    out: list[dict[bytes, bytes]] = []
    for _, fields in entries:
        assert isinstance(fields, dict), fields
        out.append(fields)
    return out
