"""The fast lane (service/api/v1/fast_lane.py) answers as Litestar's handlers do.

Two apps share one real Valkey: one with the lane, one without. A whole game is played
with every read, refusal and replay sent to both and compared byte for byte (status,
headers but the request id, body), and the acts alternate between the two. The lane's own
count shows it served them; the requests it must leave to Litestar are checked one by one.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from domain.sealed import commitment
from service.api.v1.fast_lane import FastLane
from service.app import create_app
from service.settings import Settings
from tests.helpers import auth, create, view


@pytest.fixture
def pair(settings: Settings) -> Iterator[tuple[TestClient[Litestar], TestClient[Litestar]]]:
    with (
        TestClient(app=create_app(settings)) as fast,
        TestClient(app=create_app(settings, fast_lane=False)) as slow,
    ):
        yield fast, slow


def _lane(client: TestClient[Litestar]) -> FastLane:
    lane = client.app.asgi_handler.app  # inside the access log
    assert isinstance(lane, FastLane)
    return lane


def _answer(response: Any) -> tuple[int, dict[str, str], bytes]:
    headers = {k: v for k, v in response.headers.items() if k != "x-request-id"}
    return response.status_code, headers, response.content


def _both(
    pair: tuple[TestClient[Litestar], TestClient[Litestar]], method: str, url: str, **kwargs: Any
) -> tuple[int, dict[str, str], bytes]:
    fast, slow = pair
    first = _answer(fast.request(method, url, **kwargs))
    assert first == _answer(slow.request(method, url, **kwargs))
    return first


def _body(
    action: dict[str, Any], game_id: str, seat: int, move: dict[str, Any]
) -> tuple[str, Any, tuple[dict[str, Any], str] | None]:
    """The route and body of ``action`` with ``move``; a commitment's salt kept for later."""
    if action["action"] == "move":
        return "moves", move, None
    if action["action"] == "commit":
        salt = secrets.token_hex(16)
        digest = commitment(game_id, action["step"], seat, move, salt)
        return "commitments", {"commitment": digest}, (move, salt)
    return "reveals", None, None


def test_a_whole_game_reads_refusals_and_replays_answer_the_same_on_both_paths(
    pair: tuple[TestClient[Litestar], TestClient[Litestar]],
) -> None:
    fast, slow = pair
    rng = random.Random(20261130)
    created = create(fast, "fbi", [{"type": "human"}] * 4)
    game_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    url = f"/v1/games/{game_id}"
    kept: dict[int, tuple[dict[str, Any], str]] = {}
    compared = {"reads": 0, "refusals": 0, "replays": 0, "acts": 0}
    to_fast = 0  # requests to the view and act routes sent to the app with the lane
    for step in range(400):
        awaiting = view(fast, game_id)["awaiting"]
        to_fast += 1
        if not awaiting:
            break
        action = awaiting[0]
        seat = action["seat"]
        # Every seat's view and the spectator's, through both paths.
        for token in (*tokens.values(), None):
            _both(pair, "GET", url, headers=auth(token) if token else {})
            compared["reads"] += 1
            to_fast += 1
        to_fast += 1  # the acting seat's view again, for its legal moves
        legal = json.loads(_both(pair, "GET", url, headers=auth(tokens[seat]))[2])["legal"]
        move = rng.choice(legal) if action["action"] != "reveal" else {}
        route, body, secret = _body(action, game_id, seat, move)
        if route == "reveals":
            kept_move, salt = kept.pop(seat)
            body = {"move": kept_move, "salt": salt}
        waiting = {a["seat"] for a in awaiting}
        # A move by a seat the game does not wait for is refused, the same way, and nothing
        # changes. (A seat that committed may commit again: it replaces its commitment.)
        others = sorted(set(tokens) - waiting) if route == "moves" else []
        for other in others[:1]:
            status, _, _ = _both(
                pair, "POST", f"{url}/{route}", json=body, headers=auth(tokens[other])
            )
            assert status >= 400
            compared["refusals"] += 1
            to_fast += 1
        assert _both(pair, "POST", f"{url}/{route}", json=body)[0] == 401  # no token
        to_fast += 1
        headers = auth(tokens[seat])
        if step % 3 == 0:
            headers["Prefer"] = "return=representation"
        if step % 4 == 1:
            headers["Idempotency-Key"] = f"k-{step}"
        actor = (fast, slow)[step % 2]
        response = actor.post(f"{url}/{route}", json=body, headers=headers)
        assert response.status_code == 200, response.text
        compared["acts"] += 1
        to_fast += actor is fast
        if secret is not None:
            kept[seat] = secret
        if "Idempotency-Key" in headers:
            # The same key and body again, through both: the first answer, replayed.
            status, _, replayed = _both(pair, "POST", f"{url}/{route}", json=body, headers=headers)
            assert status == 200
            assert json.loads(replayed)["replayed"] is True
            compared["replays"] += 1
            to_fast += 1
    assert view(fast, game_id)["status"] == "finished"
    assert _both(pair, "GET", "/v1/games/0123456789abcdef01234567")[0] == 404  # no such game
    assert compared["refusals"] > 20
    assert compared["replays"] > 10
    # The lane served every one of those requests (the other app has no lane at all).
    assert _lane(fast).served == to_fast + 2
    assert not isinstance(slow.app.asgi_handler.app, FastLane)


@pytest.mark.parametrize(
    ("name", "method", "suffix", "kwargs"),
    [
        ("a long poll", "GET", "?after_version=0&wait=0", {}),
        ("CORS", "GET", "", {"headers": {"Origin": "https://example.org"}}),
        ("a conditional read", "GET", "", {"headers": {"If-None-Match": '"1"'}}),
        (
            "a bad Idempotency-Key",
            "POST",
            "/moves",
            {"json": {}, "headers": {"Idempotency-Key": "a b"}},
        ),
        ("a bad If-Match", "POST", "/moves", {"json": {}, "headers": {"If-Match": "x"}}),
        ("a Prefer too long", "POST", "/moves", {"json": {}, "headers": {"Prefer": "x" * 300}}),
        (
            "not JSON",
            "POST",
            "/moves",
            {"content": b"{}", "headers": {"Content-Type": "text/plain"}},
        ),
        ("a body of another shape", "POST", "/moves", {"json": {"type": "fbi.nothing"}}),
        (
            "a body too large",
            "POST",
            "/moves",
            # Valid JSON, the limit (64 KiB) passed with white space: Litestar's 413.
            {
                "content": b'{"type": "fbi.release_none"}' + b" " * 70_000,
                "headers": {"Content-Type": "application/json"},
            },
        ),
        ("a game id of another shape", "GET", "x", {}),
    ],
)
def test_what_the_lane_is_not_sure_of_goes_to_litestar_unchanged(
    pair: tuple[TestClient[Litestar], TestClient[Litestar]],
    name: str,
    method: str,
    suffix: str,
    kwargs: dict[str, Any],
) -> None:
    fast, _ = pair
    created = create(fast, "fbi", [{"type": "human"}] * 4)
    url = f"/v1/games/{created['id']}{suffix}"
    if method == "POST":
        kwargs = {
            **kwargs,
            "headers": {**auth(created["seats"][0]["token"]), **kwargs.get("headers", {})},
        }
    before = _lane(fast).served
    status, headers, _ = _both(pair, method, url, **kwargs)
    assert _lane(fast).served == before, name
    if name == "CORS":
        assert headers["access-control-allow-origin"] == "*"
    elif name == "a body too large":
        assert status == 413
    elif method == "POST":
        assert 400 <= status < 500, (name, status)
