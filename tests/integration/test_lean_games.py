"""The lean view and act handlers (service/api/v1/lean_games.py) answer as the originals do.

Two apps share one real Valkey: the lean one, and one with every request through the
original handlers (no fast lane). A whole game is played with every read, refusal and
replay sent to both and compared byte for byte (status, headers but the request id, body),
the acts alternating between the two; then the requests off the common path (a long poll,
a conditional read, malformed parameters and bodies, CORS) are compared one by one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.helpers import auth, create, view
from tests.integration.test_fast_lane import _body, _both


@pytest.fixture
def pair(settings: Settings) -> Iterator[tuple[TestClient[Litestar], TestClient[Litestar]]]:
    with (
        TestClient(app=create_app(settings, lean=True)) as lean,
        TestClient(app=create_app(settings, fast_lane=False)) as original,
    ):
        yield lean, original


def test_the_lean_app_serves_the_lean_handlers_and_no_fast_lane(
    pair: tuple[TestClient[Litestar], TestClient[Litestar]],
) -> None:
    lean, original = pair
    handler = lean.app.route_handler_method_map["/v1/games/{game_id:str}"]["GET"]
    assert handler.fn.__func__.__globals__["__name__"] == "service.api.v1.lean_games"
    handler = original.app.route_handler_method_map["/v1/games/{game_id:str}"]["GET"]
    assert handler.fn.__func__.__globals__["__name__"] == "service.api.v1.games"


def test_a_whole_game_reads_refusals_and_replays_answer_the_same_lean_or_not(
    pair: tuple[TestClient[Litestar], TestClient[Litestar]],
) -> None:
    lean, original = pair
    rng = random.Random(20261201)
    created = create(lean, "fbi", [{"type": "human"}] * 4)
    game_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    url = f"/v1/games/{game_id}"
    kept: dict[int, tuple[dict[str, Any], str]] = {}
    compared = {"reads": 0, "refusals": 0, "replays": 0, "acts": 0}
    for step in range(400):
        awaiting = view(lean, game_id)["awaiting"]
        if not awaiting:
            break
        action = awaiting[0]
        seat = action["seat"]
        for token in (*tokens.values(), None):
            _both(pair, "GET", url, headers=auth(token) if token else {})
            compared["reads"] += 1
        legal = json.loads(_both(pair, "GET", url, headers=auth(tokens[seat]))[2])["legal"]
        move = rng.choice(legal) if action["action"] != "reveal" else {}
        route, body, secret = _body(action, game_id, seat, move)
        if route == "reveals":
            kept_move, salt = kept.pop(seat)
            body = {"move": kept_move, "salt": salt}
        waiting = {a["seat"] for a in awaiting}
        others = sorted(set(tokens) - waiting) if route == "moves" else []
        for other in others[:1]:
            status, _, _ = _both(
                pair, "POST", f"{url}/{route}", json=body, headers=auth(tokens[other])
            )
            assert status >= 400
            compared["refusals"] += 1
        assert _both(pair, "POST", f"{url}/{route}", json=body)[0] == 401  # no token
        headers = auth(tokens[seat])
        if step % 3 == 0:
            headers["Prefer"] = "return=representation"
        if step % 4 == 1:
            headers["Idempotency-Key"] = f"k-{step}"
        actor = (lean, original)[step % 2]
        response = actor.post(f"{url}/{route}", json=body, headers=headers)
        assert response.status_code == 200, response.text
        compared["acts"] += 1
        if secret is not None:
            kept[seat] = secret
        if "Idempotency-Key" in headers:
            status, _, replayed = _both(pair, "POST", f"{url}/{route}", json=body, headers=headers)
            assert status == 200
            assert json.loads(replayed)["replayed"] is True
            compared["replays"] += 1
    assert view(lean, game_id)["status"] == "finished"
    assert _both(pair, "GET", "/v1/games/0123456789abcdef01234567")[0] == 404  # no such game
    assert compared["refusals"] > 20
    assert compared["replays"] > 10


@pytest.mark.parametrize(
    ("name", "method", "suffix", "kwargs", "expected"),
    [
        ("a long poll", "GET", "?after_version=0&wait=1", {}, 200),
        ("a long poll out of range", "GET", "?wait=31", {}, 400),
        ("CORS", "GET", "", {"headers": {"Origin": "https://example.org"}}, 200),
        ("a conditional read", "GET", "", {"headers": {"If-None-Match": "current"}}, 304),
        ("a stale conditional read", "GET", "", {"headers": {"If-None-Match": '"0"'}}, 200),
        ("a bad Idempotency-Key", "POST", "/moves", {"headers": {"Idempotency-Key": "a b"}}, 400),
        ("a bad If-Match", "POST", "/moves", {"headers": {"If-Match": "x"}}, 400),
        ("a stale If-Match", "POST", "/moves", {"headers": {"If-Match": "0"}}, 412),
        ("a Prefer too long", "POST", "/moves", {"headers": {"Prefer": "x" * 300}}, 400),
        (
            "not JSON",
            "POST",
            "/moves",
            {"content": b"{}", "headers": {"Content-Type": "text/plain"}},
            415,
        ),
        ("a body of another shape", "POST", "/moves", {"json": {"type": "fbi.nothing"}}, 400),
        (
            "a body too large",
            "POST",
            "/moves",
            {
                "content": b'{"type": "fbi.release_none"}' + b" " * 70_000,
                "headers": {"Content-Type": "application/json"},
            },
            413,
        ),
        ("a game id of another shape", "GET", "x", {}, 400),
        ("a reveal before any commitment", "POST", "/reveals", {}, 409),
    ],
)
def test_requests_off_the_common_path_answer_the_same_lean_or_not(
    pair: tuple[TestClient[Litestar], TestClient[Litestar]],
    name: str,
    method: str,
    suffix: str,
    kwargs: dict[str, Any],
    expected: int,
) -> None:
    lean, _ = pair
    created = create(lean, "fbi", [{"type": "human"}] * 4)
    url = f"/v1/games/{created['id']}{suffix}"
    if kwargs.get("headers", {}).get("If-None-Match") == "current":
        current = lean.get(f"/v1/games/{created['id']}").headers["etag"]
        kwargs = {"headers": {"If-None-Match": current}}
    if method == "POST":  # by the seat the game waits for, with a move it may make
        token = created["seats"][view(lean, created["id"])["awaiting"][0]["seat"]]["token"]
        legal = view(lean, created["id"], token)["legal"]
        body = {"move": legal[0], "salt": "00" * 16} if suffix == "/reveals" else legal[0]
        kwargs = {"json": body, **kwargs, "headers": {**auth(token), **kwargs.get("headers", {})}}
    status, headers, _ = _both(pair, method, url, **kwargs)
    assert status == expected, name
    if name == "CORS":
        assert headers["access-control-allow-origin"] == "*"
