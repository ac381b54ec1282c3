"""A whole game over HTTP: one human against bots that run on a real RQ worker process."""

from __future__ import annotations

import random
import subprocess
from typing import Any

import pytest

from domain import registry
from tests.helpers import act, create, view, wait_for


def _play_human_to_the_end(client: Any, game_id: str, token: str, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    secrets_: dict[int, tuple[dict[str, Any], str]] = {}
    for _ in range(5000):
        seen: dict[str, Any] = wait_for(
            lambda: (
                v
                if (v := view(client, game_id, token))["status"] == "finished"
                or any(a["seat"] == 0 for a in v["awaiting"])
                else None
            ),
            timeout=120,
        )
        if seen["status"] == "finished":
            return seen
        action = next(a for a in seen["awaiting"] if a["seat"] == 0)
        move = rng.choice(seen["legal"]) if seen["legal"] else {}
        response = act(client, game_id, token, 0, action, move, secrets_)
        assert response.status_code == 200, response.text
    raise AssertionError("the game did not end")


def _tables() -> list[tuple[str, int]]:
    """Every game at every seat count it allows."""
    out = []
    for game in registry.games():
        out += [(game.name, n) for n in range(game.min_seats, game.max_seats + 1)]
    return out


@pytest.mark.parametrize(("game", "n_seats"), _tables())
def test_one_human_and_bots_play_to_a_recorded_result(
    client: Any, worker: subprocess.Popen[bytes], game: str, n_seats: int
) -> None:
    found = registry.get(game)
    assert found is not None
    levels = ["random", "greedy"]
    seats = [{"type": "human"}] + [
        {"type": "bot", "level": levels[i % 2]} for i in range(n_seats - 1)
    ]
    created = create(client, game, seats)
    game_id, token = created["id"], created["seats"][0]["token"]
    final = _play_human_to_the_end(client, game_id, token, seed=7)
    assert final["result"] is not None
    assert len(final["result"]["scores"]) == n_seats
    assert final["awaiting"] == []
    assert final["legal"] == []

    # The scoring job records the result exactly once.
    def recorded() -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        after = 0
        while True:
            page = client.get(
                f"/v1/games/{game_id}/events", params={"after": after, "limit": 500}
            ).json()
            events += page["events"]
            if not page["has_more"]:
                break
            after = page["next_after"]
        return [e for e in events if e["event"]["type"] == "game.result_recorded"]

    results = wait_for(recorded, timeout=60)
    assert len(results) == 1
    assert results[0]["event"]["scores"] == final["result"]["scores"]
