"""The hot-route layer (service/api/v1/hot_routes.py) answers as Litestar's handlers do.

Two apps share one real Valkey: one with the layer, one without (``hot_routes=False``).
Whole games are played with every read, refusal and replay sent to both and compared byte
for byte (status, headers but the request id, body), the acts alternating between the two;
the layer's own count shows it served them. The requests it must leave to Litestar are
checked one by one, and so are the access log's labels and the rate limit.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import re
import secrets
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from domain.sealed import commitment
from service.api.v1.hot_routes import HotRoutes
from service.app import create_app
from service.settings import Settings
from service.telemetry.logs import JsonFormatter
from tests.helpers import API_KEY, auth, create, view

Pair = tuple[TestClient[Litestar], TestClient[Litestar]]
HUMANS = [{"type": "human"}] * 4


@pytest.fixture
def pair(settings: Settings) -> Iterator[Pair]:
    with (
        TestClient(app=create_app(settings)) as hot,
        TestClient(app=create_app(replace(settings, hot_routes=False))) as lean,
    ):
        yield hot, lean


def _layer(client: TestClient[Litestar]) -> HotRoutes | None:
    """The app's hot-route layer, found inside the layers around Litestar's handler."""
    handler: Any = client.app.asgi_handler
    for _ in range(5):
        if isinstance(handler, HotRoutes):
            return handler
        handler = getattr(handler, "app", None)
    return None


def _served(client: TestClient[Litestar]) -> int:
    layer = _layer(client)
    assert layer is not None
    return layer.served


def _answer(response: Any) -> tuple[int, dict[str, str], bytes]:
    headers = {k: v for k, v in response.headers.items() if k != "x-request-id"}
    if "allow" in headers:  # Litestar's own order of a 405's methods varies by process
        headers["allow"] = ", ".join(sorted(headers["allow"].split(", ")))
    # A seat's presence says when it was last seen, a view when it was read: the moment
    # of each request.
    content = re.sub(rb'"last_seen_ms":\d+', b'"last_seen_ms":0', response.content)
    content = re.sub(rb'"server_time_ms":\d+', b'"server_time_ms":0', content)
    return response.status_code, headers, content


def _both(pair: Pair, method: str, url: str, **kwargs: Any) -> tuple[int, dict[str, str], bytes]:
    hot, lean = pair
    first = _answer(hot.request(method, url, **kwargs))
    assert first == _answer(lean.request(method, url, **kwargs)), (method, url, kwargs)
    return first


def _act_body(
    action: dict[str, Any], game_id: str, seat: int, move: dict[str, Any], salt: str
) -> tuple[str, Any]:
    if action["action"] == "move":
        return "moves", move
    if action["action"] == "commit":
        return "commitments", {"commitment": commitment(game_id, action["step"], seat, move, salt)}
    return "reveals", None


@pytest.mark.parametrize(("game", "steps"), [("fbi", 600), ("bonnie_clyde", 120)])
def test_a_games_reads_refusals_and_replays_answer_the_same_with_and_without_the_layer(
    pair: Pair, game: str, steps: int
) -> None:
    """FBI to its end; Bonnie and Clyde (longer) for its first ``steps`` acts."""
    hot, lean = pair
    assert _layer(lean) is None
    rng = random.Random(20261201)
    created = create(hot, game, HUMANS)
    game_id = created["id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    url = f"/v1/games/{game_id}"
    kept: dict[int, tuple[dict[str, Any], str]] = {}
    compared = {"reads": 0, "refusals": 0, "replays": 0, "acts": 0, "stale": 0, "sealed": 0}
    before = _served(hot)
    to_hot = 0  # requests to the hot routes sent to the app with the layer
    for step in range(steps):
        awaiting = view(hot, game_id)["awaiting"]
        to_hot += 1
        if not awaiting:
            break
        action = awaiting[0]
        seat = action["seat"]
        # Every seat's view and the spectator's, through both.
        for token in (*tokens.values(), None):
            _both(pair, "GET", url, headers=auth(token) if token else {})
            compared["reads"] += 1
            to_hot += 1
        legal = json.loads(_both(pair, "GET", url, headers=auth(tokens[seat]))[2])["legal"]
        to_hot += 1
        move = rng.choice(legal) if action["action"] != "reveal" else {}
        salt = secrets.token_hex(16)
        route, body = _act_body(action, game_id, seat, move, salt)
        if route == "reveals":
            kept_move, kept_salt = kept.pop(seat)
            body = {"move": kept_move, "salt": kept_salt}
        else:
            compared["sealed"] += route == "commitments"
        waiting = {a["seat"] for a in awaiting}
        # Refusals, the same way through both, and nothing changes: a seat the game does
        # not wait for (a committed seat may commit again, so moves only), no token, a
        # made-up token, the API key (no seat), and (moves) a stale If-Match.
        others = sorted(set(tokens) - waiting) if route == "moves" else []
        refusals: list[dict[str, str]] = [
            *(auth(tokens[other]) for other in others[:1]),
            {},
            auth("not-a-token"),
            auth(API_KEY),
        ]
        if route == "moves" and step % 3 == 0:
            refusals.append({**auth(tokens[seat]), "If-Match": '"0"'})
            compared["stale"] += 1
        for headers in refusals:
            status, _, _ = _both(pair, "POST", f"{url}/{route}", json=body, headers=headers)
            assert 400 <= status < 500
            compared["refusals"] += 1
            to_hot += 1
        headers = auth(tokens[seat])
        if step % 3 == 1:
            headers["Prefer"] = "return=representation"
        if step % 4 == 1:
            headers["Idempotency-Key"] = f"k-{step}"
        if step % 5 == 2 and route == "moves":
            headers["If-Match"] = str(view(hot, game_id)["version"])
            to_hot += 1
        actor = (hot, lean)[step % 2]
        response = actor.post(f"{url}/{route}", json=body, headers=headers)
        assert response.status_code == 200, response.text
        compared["acts"] += 1
        to_hot += actor is hot
        if route == "commitments":
            kept[seat] = (move, salt)
        if "Idempotency-Key" in headers:
            # The same key and body again, through both: the first answer, replayed.
            status, _, replayed = _both(pair, "POST", f"{url}/{route}", json=body, headers=headers)
            assert status == 200
            assert json.loads(replayed)["replayed"] is True
            # The key with another body: refused alike (422), by the layer when the body
            # is of its route's shape (a reveal's move of no shape is Litestar's 400).
            others_ = [m for m in legal if m != move] if route == "moves" else []
            other: Any = {"commitment": "0" * 64} if route == "commitments" else None
            other = others_[0] if others_ else other
            if route == "reveals":
                other = {"move": {}, "salt": ""}
            if other is not None:
                status, _, _ = _both(pair, "POST", f"{url}/{route}", json=other, headers=headers)
                assert status in (400, 422)
                to_hot += route != "reveals"
            compared["replays"] += 1
            to_hot += 1
    if game == "fbi":
        assert view(hot, game_id)["status"] == "finished"
    else:
        view(hot, game_id)
    assert _both(pair, "GET", "/v1/games/0123456789abcdef01234567")[0] == 404  # no such game
    assert _both(pair, "POST", "/v1/games/0123456789abcdef01234567/moves", json={})[0] == 400
    unknown = {"commitment": "0" * 64}  # a body the layer takes: the game is what is wrong
    assert (
        _both(pair, "POST", "/v1/games/0123456789abcdef01234567/commitments", json=unknown)[0]
        == 404
    )
    assert compared["refusals"] > 30
    assert compared["replays"] > 5
    if game == "fbi":
        assert compared["stale"] > 3
    # The layer served every one of those requests (the other app has no layer at all).
    assert _served(hot) - before == to_hot + 3  # with the last view and the two 404s


@pytest.mark.parametrize(
    ("name", "method", "suffix", "kwargs"),
    [
        ("a query string", "GET", "?after_version=0&wait=0", {}),
        ("a bad query string", "GET", "?wait=x", {}),
        ("a conditional read", "GET", "", {"headers": {"If-None-Match": '"1"'}}),
        ("a game id of another shape", "GET", "x", {}),
        ("a trailing slash", "GET", "/", {}),
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
        ("no Content-Type", "POST", "/moves", {"content": b"{}"}),
        (
            "bad JSON",
            "POST",
            "/moves",
            {"content": b'{"type": ', "headers": {"Content-Type": "application/json"}},
        ),
        (
            "an empty body",
            "POST",
            "/commitments",
            {"headers": {"Content-Type": "application/json"}},
        ),
        ("a body of another shape", "POST", "/moves", {"json": {"type": "fbi.nothing"}}),
        ("a commitment of another shape", "POST", "/commitments", {"json": {"commitment": 1}}),
        ("a reveal of another shape", "POST", "/reveals", {"json": {"move": {}}}),
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
        ("a GET of an act route", "GET", "/moves", {}),
        ("a HEAD of the view", "HEAD", "", {}),
    ],
)
def test_what_the_layer_is_not_sure_of_goes_to_litestar_unchanged(
    pair: Pair, name: str, method: str, suffix: str, kwargs: dict[str, Any]
) -> None:
    hot, _ = pair
    created = create(hot, "fbi", HUMANS)
    url = f"/v1/games/{created['id']}{suffix}"
    if method == "POST":
        kwargs = {
            **kwargs,
            "headers": {**auth(created["seats"][0]["token"]), **kwargs.get("headers", {})},
        }
    before = _served(hot)
    status, _, _ = _both(pair, method, url, **kwargs)
    assert _served(hot) == before, name
    if name == "a body too large":
        assert status == 413
    elif name in ("not JSON", "no Content-Type"):
        assert status == 415
    elif method == "POST":
        assert 400 <= status < 500, (name, status)
    # Nothing changed: the game is at its first version on both paths.
    assert view(hot, created["id"])["version"] == created["version"]


def test_cors_headers_are_added_to_what_the_layer_answers(pair: Pair) -> None:
    hot, _ = pair
    created = create(hot, "fbi", HUMANS)
    before = _served(hot)
    origin = {"Origin": "https://example.org"}
    _, headers, _ = _both(pair, "GET", f"/v1/games/{created['id']}", headers=origin)
    assert headers["access-control-allow-origin"] == "*"
    assert _served(hot) == before + 1


@pytest.fixture
def access_lines() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("stakeout")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield stream
    logger.removeHandler(handler)
    logger.setLevel(level)


def test_the_access_log_labels_the_layers_requests_as_litestars(
    pair: Pair, access_lines: io.StringIO
) -> None:
    hot, lean = pair
    created = create(hot, "fbi", HUMANS)
    game_id, token = created["id"], created["seats"][1]["token"]
    requests: list[tuple[str, str, dict[str, Any]]] = [
        ("GET", f"/v1/games/{game_id}", {}),
        ("GET", "/v1/games/0123456789abcdef01234567", {}),
        ("POST", f"/v1/games/{game_id}/moves", {"json": {"type": "fbi.nothing"}}),
        ("POST", f"/v1/games/{game_id}/commitments", {"json": {"commitment": "0" * 64}}),
        ("POST", f"/v1/games/{game_id}/reveals", {"json": {"move": {}, "salt": "x"}}),
    ]
    before = _served(hot)
    for n, (method, url, kwargs) in enumerate(requests):
        for side, client in (("hot", hot), ("lean", lean)):
            headers = {**auth(token), "X-Request-ID": f"{side}-{n}"}
            client.request(method, url, headers=headers, **kwargs)
    assert _served(hot) - before == 3  # the view, the 404 and the commitment: the rest are 400s
    lines = {x.get("request_id"): x for x in map(json.loads, access_lines.getvalue().splitlines())}
    for n in range(len(requests)):
        hot_line, lean_line = lines[f"hot-{n}"], lines[f"lean-{n}"]
        for field in ("route", "game_id", "status", "method", "message", "path"):
            assert hot_line.get(field) == lean_line.get(field), (n, field)
    assert lines["hot-0"]["route"] == "/v1/games/{game_id}"
    assert lines["hot-3"]["route"] == "/v1/games/{game_id}/commitments"


LIMIT = 4


def test_the_layers_requests_are_rate_limited_as_litestars(settings: Settings) -> None:
    limited = replace(settings, rate_limit_per_minute=LIMIT, rate_limit_burst=LIMIT)
    outcomes = []
    with (
        TestClient(app=create_app(limited)) as hot,
        TestClient(app=create_app(replace(limited, hot_routes=False))) as lean,
    ):
        for client in (hot, lean):
            # The game is made with the API key (its own bucket); each seat has its own.
            created = create(client, "fbi", HUMANS)
            game_id = created["id"]
            tokens = [s["token"] for s in created["seats"]]
            awaited = view(client, game_id)["awaiting"][0]["seat"]
            idle = tokens[(awaited + 1) % 4]
            url = f"/v1/games/{game_id}"
            reads = [client.get(url, headers=auth(idle)) for _ in range(LIMIT + 1)]
            move = client.post(f"{url}/moves", json={}, headers=auth(idle))
            legal = client.get(url, headers=auth(tokens[awaited]))
            outcomes.append(
                (
                    [r.status_code for r in reads],
                    reads[-1].json()["type"],
                    "retry-after" in reads[-1].headers,
                    move.status_code,
                    legal.status_code,
                )
            )
        assert _served(hot) > 0
    assert outcomes[0] == outcomes[1]
    statuses, kind, retry_after, move_status, _ = outcomes[0]
    assert statuses == [200] * LIMIT + [429]
    assert kind == "urn:stakeout:problem:too-many-requests"
    assert retry_after
    assert move_status == 429  # a seat the game does not await is refused too


def test_an_awaited_act_over_the_limit_is_let_through_by_the_layer(settings: Settings) -> None:
    limited = replace(settings, rate_limit_per_minute=LIMIT, rate_limit_burst=LIMIT)
    with TestClient(app=create_app(limited)) as hot:
        created = create(hot, "fbi", HUMANS)
        url = f"/v1/games/{created['id']}"
        seat = view(hot, created["id"])["awaiting"][0]["seat"]
        token = created["seats"][seat]["token"]
        legal = view(hot, created["id"], token)["legal"]
        while hot.get(url, headers=auth(token)).status_code != 429:
            pass
        before = _served(hot)
        # Over its budget, the awaited seat's act still goes through (as without the layer).
        response = hot.post(f"{url}/moves", json=legal[0], headers=auth(token))
        assert response.status_code == 200, response.text
        assert _served(hot) == before + 1


GAME = "0123456789abcdef01234567"
# The route map the layer reads its table from (the app is not started).
ROUTES = create_app(Settings(redis_url="redis://unused")).routes


@pytest.mark.parametrize(
    ("name", "path", "headers", "extra"),
    [
        ("a repeated Authorization", "", [(b"authorization", b"a"), (b"authorization", b"b")], {}),
        ("a repeated Content-Type", "/moves", [(b"content-type", b"application/json")] * 2, {}),
        ("a header not ASCII", "", [(b"authorization", "Bearer é".encode("latin-1"))], {}),
        ("an unusual Host", "", [(b"host", b"a b")], {}),
        ("a root path", "", [], {"root_path": "/api"}),
        ("a Content-Length past the limit", "/moves", [(b"content-length", b"70000")], {}),
        ("a Content-Length not a number", "/moves", [(b"content-length", b"x")], {}),
    ],
)
def test_requests_a_client_library_would_not_send_go_to_litestar_too(
    name: str, path: str, headers: list[tuple[bytes, bytes]], extra: dict[str, Any]
) -> None:
    """The layer alone, around a stand-in for Litestar that records what it was handed."""
    handed: list[tuple[dict[str, Any], list[Any]]] = []
    body = [{"type": "http.request", "body": b"{}", "more_body": False}]

    async def litestar(scope: Any, receive: Any, send: Any) -> None:
        handed.append((scope, [await receive()]))

    async def receive() -> Any:
        return body.pop(0)

    async def send(message: Any) -> None:
        raise AssertionError(f"the layer answered {name}")

    method = "POST" if path else "GET"
    json_type = [(b"content-type", b"application/json")] if path and "Type" not in name else []
    scope = {
        "type": "http",
        "method": method,
        "path": f"/v1/games/{GAME}{path}",
        "query_string": b"",
        "headers": [*json_type, *headers],
        **extra,
    }
    layer = HotRoutes(litestar, 64 * 1024, routes=ROUTES)
    asyncio.run(layer(scope, receive, send))  # type: ignore[arg-type]
    assert layer.served == 0
    [(seen, messages)] = handed
    assert seen is scope
    assert "path_template" not in seen
    # The body, when the layer read it, is handed on as it came.
    assert messages == [{"type": "http.request", "body": b"{}", "more_body": False}]
