"""A typo'd game kind or bot level is refused with the values allowed there, read from the
registry and the types (service/http/allowed_values.py), and changes nothing."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from domain import registry
from domain.engine import BotLevel
from tests.helpers import API_KEY, auth

GAMES = registry.names()
LEVELS = list(get_args(BotLevel))
HUMAN = {"type": "human"}


@pytest.mark.parametrize(
    ("method", "path", "body", "allowed"),
    [
        ("POST", "/v1/games", {"game": "fbl", "seats": [HUMAN, HUMAN]}, GAMES),
        (
            "POST",
            "/v1/games",
            {"game": "fbi", "seats": [HUMAN, {"type": "bot", "level": "hardd"}]},
            LEVELS,
        ),
        (
            "POST",
            "/v1/games",
            {"game": "fbi", "seats": [{"type": "humn"}, HUMAN]},
            ["human", "bot", "open"],
        ),
        ("POST", "/v1/matchmaking/tickets", {"game": "fbl", "player": {"external_id": "p"}}, GAMES),
        (
            "POST",
            "/v1/matchmaking/tickets",
            {"game": "feds", "player": {"external_id": "p"}, "bot_level": "x"},
            LEVELS,
        ),
        ("GET", "/v1/games?game=fbl", None, GAMES),
        ("GET", "/v1/lobby?game=fbl", None, GAMES),
        ("GET", "/v1/leaderboards/fbl", None, GAMES),
        ("GET", "/v1/rules/fbl", None, GAMES),
    ],
)
def test_a_value_outside_a_closed_set_is_refused_with_the_values_it_allows(
    client: TestClient[Litestar], method: str, path: str, body: Any, allowed: list[str]
) -> None:
    answer = client.request(method, path, json=body, headers=auth(API_KEY))
    assert answer.status_code in (400, 404), answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    detail = answer.json()["detail"]
    for value in allowed:
        assert repr(value) in detail, detail
    assert client.get("/v1/games", headers=auth(API_KEY)).json()["games"] == []
