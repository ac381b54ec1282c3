"""Bad input never gets a 500: undecodable, deeply nested, mistyped or random requests, with
or without a credential, get a 4xx problem response, log no traceback and change nothing.

The fuzz is seeded: the same requests every run; a failure prints the one that broke."""

from __future__ import annotations

import json
import logging
import random
import re
from typing import Any

import msgspec
import pytest
import redis

from domain import registry
from tests.helpers import API_KEY, act, auth, create, view

POST_ROUTES = ["/v1/games", "/moves", "/commitments", "/reveals", "/v1/webhooks"]
NESTED_ARRAYS = b"[" * 1000 + b"]" * 1000
NESTED_OBJECTS = b'{"a":' * 1000 + b"1" + b"}" * 1000
INVALID_UTF8 = [
    b'{"url":"\xff"}',
    b'{"move": {"type": "\xc3\x28"}, "salt": "00"}',
    b"\xff\xfe",
    b'{"url": 1, "events": ["\xff"]}',  # a type error first, the bad bytes after it
]


def _version(redis_url: str, game_id: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return int(client.xlen(f"game:{{{game_id}}}:events"))
    finally:
        client.close()


def _is_problem(response: Any, status: int | None = None) -> None:
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    if status is not None:
        assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json"), response.text


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def _post_paths(game_id: str) -> list[str]:
    return [p if p.startswith("/v1") else f"/v1/games/{game_id}{p}" for p in POST_ROUTES]


@pytest.mark.parametrize("body", [NESTED_ARRAYS, NESTED_OBJECTS, *INVALID_UTF8])
def test_undecodable_and_deeply_nested_bodies_get_a_400_on_every_post(
    client: Any, clean_redis: str, caplog: pytest.LogCaptureFixture, body: bytes
) -> None:
    created = create(client, "fbi", [{"type": "human"}, {"type": "human"}])
    game_id, token = created["id"], created["seats"][0]["token"]
    before = _version(clean_redis, game_id)
    for path in _post_paths(game_id):
        for credential in (None, API_KEY, token):
            headers = {
                "Content-Type": "application/json",
                **(auth(credential) if credential else {}),
            }
            response = client.post(path, content=body, headers=headers)
            _is_problem(response, 400)
            assert response.json()["type"] == "urn:stakeout:problem:invalid-request"
    assert _version(clean_redis, game_id) == before
    assert _tracebacks(caplog) == []


def _int_field(move: dict[str, Any]) -> list[str] | None:
    """The path to an integer in ``move`` (nested objects included), if it has one."""
    for key, value in move.items():
        if isinstance(value, int) and not isinstance(value, bool):
            return [key]
        if isinstance(value, dict):
            inner = _int_field(value)
            if inner is not None:
                return [key, *inner]
    return None


def _stringified(move: dict[str, Any], path: list[str]) -> dict[str, Any]:
    key, rest = path[0], path[1:]
    return {**move, key: _stringified(move[key], rest) if rest else str(move[key])}


def _has_integer_fields(game: Any) -> bool:
    return bool(game.command_types) and any(
        '"integer"' in json.dumps(msgspec.json.schema(command)) for command in game.command_types
    )


def _to_a_move(client: Any, game: str, with_integer: bool) -> tuple[str, str, dict[str, Any]]:
    """Play first legal moves until the awaited seat may post a public move (with an
    integer field, when asked)."""
    rules = registry.engine_for(game)
    assert rules is not None
    created = create(client, game, [{"type": "human"}] * rules.game.min_seats)
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    secrets_: dict[int, tuple[dict[str, Any], str]] = {}
    for _ in range(400):
        awaiting = view(client, game_id)["awaiting"]
        assert awaiting, "the game ended first"
        action = awaiting[0]
        seat = action["seat"]
        legal = view(client, game_id, tokens[seat])["legal"]
        if action["action"] == "move":
            for move in legal:
                if not with_integer or _int_field(move) is not None:
                    return game_id, tokens[seat], move
        move = legal[0] if legal else {}  # a reveal uses the committed move
        response = act(client, game_id, tokens[seat], seat, action, move, secrets_)
        assert response.status_code == 200, response.text
    raise AssertionError(f"no {game} move found within 400 acts")


GAMES = {g.name: g for g in registry.games()}
WITH_INTEGERS = [name for name, g in GAMES.items() if _has_integer_fields(g)]


def test_some_game_has_integer_fields_in_its_moves() -> None:
    assert WITH_INTEGERS  # else the next test would test nothing


@pytest.mark.parametrize("game", WITH_INTEGERS)
def test_string_numbers_are_refused_in_moves(client: Any, clean_redis: str, game: str) -> None:
    game_id, token, move = _to_a_move(client, game, with_integer=True)
    path = _int_field(move)
    assert path is not None
    before = _version(clean_redis, game_id)
    as_string = _stringified(move, path)
    refused = client.post(f"/v1/games/{game_id}/moves", json=as_string, headers=auth(token))
    _is_problem(refused, 400)
    # The field's type as the contract has it: `int`, or `int | null` for an optional one
    # (a Bonnie and Clyde card's location); which move comes first depends on the deal.
    assert re.search(r"Expected `int( \| null)?`, got `str`", refused.json()["detail"])
    assert path[-1] in refused.json()["detail"]
    assert _version(clean_redis, game_id) == before
    accepted = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(token))
    assert accepted.status_code == 200, accepted.text


@pytest.mark.parametrize("game", list(GAMES))
def test_unknown_fields_are_refused_in_moves(client: Any, clean_redis: str, game: str) -> None:
    game_id, token, move = _to_a_move(client, game, with_integer=False)
    before = _version(clean_redis, game_id)
    extra = client.post(f"/v1/games/{game_id}/moves", json={**move, "x": 1}, headers=auth(token))
    _is_problem(extra, 400)
    assert "unknown field" in extra.json()["detail"]
    assert _version(clean_redis, game_id) == before


def test_string_numbers_are_refused_in_creation_options(client: Any) -> None:
    body = {"game": "bonnie_clyde", "seats": [{"type": "human"}] * 2, "options": {"target": "10"}}
    _is_problem(client.post("/v1/games", json=body, headers=auth(API_KEY)), 400)
    body = {**body, "options": {"target": 10}, "turn_seconds": "30"}
    _is_problem(client.post("/v1/games", json=body, headers=auth(API_KEY)), 400)
    _is_problem(
        client.post("/v1/games", json={**body, "turn_seconds": 30.5}, headers=auth(API_KEY)), 400
    )


def test_a_number_with_a_zero_fraction_is_an_integer_as_json_schema_says(client: Any) -> None:
    body = {"game": "bonnie_clyde", "seats": [{"type": "human"}] * 2, "options": {"target": 10.0}}
    created = client.post("/v1/games", json={**body, "turn_seconds": 30.0}, headers=auth(API_KEY))
    assert created.status_code == 201, created.text


# ---- the property: a seeded fuzz over paths, headers and bodies ---------------------------

SEED = 20261130
REQUESTS = 600


def _junk_text(rng: random.Random) -> str:
    pools = ["a", "0", "-", "%", "%ff", "%00", "..", "/", "é", "\u202e", "😀", " ", "{", "\\", "'"]
    return "".join(rng.choice(pools) for _ in range(rng.randint(0, 40)))


def _mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """A valid body turned slightly (or very) wrong: types swapped, fields dropped or added."""
    if isinstance(value, dict):
        out = {k: _mutate(rng, v, depth + 1) for k, v in value.items() if rng.random() > 0.15}
        if rng.random() < 0.3:
            out[_junk_text(rng) or "x"] = rng.choice([1, "1", None, [], {}])
        return out
    if isinstance(value, list):
        return [_mutate(rng, v, depth + 1) for v in value]
    roll = rng.random()
    if roll < 0.2 and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if roll < 0.3:
        return rng.choice([None, True, -1, 2**70, 1.5, "", [], {}, _junk_text(rng)])
    return value


def _body(rng: random.Random, valid: list[Any]) -> bytes:
    kind = rng.randrange(9)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
    if kind == 1:
        return rng.choice([NESTED_ARRAYS, NESTED_OBJECTS, *INVALID_UTF8])
    if kind == 2:
        return rng.choice([b"", b"null", b"[]", b"{}", b"1", b'"x"', b"{", b"nul", b"1e999999"])
    if kind == 3:
        raw = json.dumps(_mutate(rng, rng.choice(valid))).encode()
        cut = rng.randrange(len(raw) + 1)
        return raw[:cut] + bytes([rng.randrange(128, 256)]) + raw[cut:]
    if kind == 4:
        return b'{"x": "' + b"a" * rng.choice([10, 70_000]) + b'"}'
    return json.dumps(_mutate(rng, rng.choice(valid))).encode()


def _headers(rng: random.Random, credentials: list[str]) -> dict[str, bytes]:
    headers: dict[str, str] = {}
    roll = rng.random()
    if roll < 0.6:
        headers["Authorization"] = "Bearer " + rng.choice(credentials)
    elif roll < 0.8:
        headers["Authorization"] = rng.choice(
            ["Bearer", "Bearer ", "Basic abc", "bearer  x", "Bearer " + "t" * 600, _junk_text(rng)]
        )
    headers["Content-Type"] = rng.choice(
        ["application/json", "text/plain", "application/json; charset=latin-1", "*/*", "x"]
    )
    optional = {
        "If-Match": ['"3"', "3", "abc", "-1", '"99999999999"', ""],
        "Idempotency-Key": ["k1", "k" * 200, "bad key", "é"],
        "Last-Event-ID": ["0", "-1", "x", "9" * 30],
        "X-Request-ID": ["ok-1", "\u00e9" * 3, "x" * 300],
        "Accept": ["application/json", "text/html", "application/problem+json", "*/*", ";;"],
        "X-Forwarded-For": ["1.2.3.4", "junk, ::1", ""],
        "Content-Length": [],
    }
    for name, values in optional.items():
        if values and rng.random() < 0.2:
            headers[name] = rng.choice(values)
    # Sent as bytes: header values may carry any octet (UTF-8 here), not only ASCII.
    return {name: value.encode() for name, value in headers.items()}


def _path(rng: random.Random, game_id: str, webhook_id: str) -> tuple[str, str]:
    gid = rng.choice([game_id, game_id, "0" * 24, "A" * 24, _junk_text(rng), "x" * 500])
    wid = rng.choice([webhook_id, "0" * 16, _junk_text(rng)])
    routes = [
        ("POST", "/v1/games"),
        ("GET", "/v1/games"),
        ("GET", f"/v1/games/{gid}"),
        ("POST", f"/v1/games/{gid}/moves"),
        ("POST", f"/v1/games/{gid}/commitments"),
        ("POST", f"/v1/games/{gid}/reveals"),
        ("GET", f"/v1/games/{gid}/events"),
        ("GET", f"/v1/games/{gid}/replay"),
        ("POST", "/v1/webhooks"),
        ("GET", "/v1/webhooks"),
        ("DELETE", f"/v1/webhooks/{wid}"),
        ("GET", f"/v1/webhooks/{wid}/deliveries"),
        ("GET", "/v1/rules/" + rng.choice(["fbi", "feds", "chess", _junk_text(rng)])),
        ("GET", "/v1/stats"),
        (
            rng.choice(["PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "GET"]),
            "/v1/" + _junk_text(rng),
        ),
        ("POST", f"/v1/games/{gid}/stream"),
    ]
    method, path = rng.choice(routes)
    if rng.random() < 0.4:
        query = rng.choice(
            [
                "after=-1",
                "after=99999999999999999999",
                "limit=abc",
                "limit=0",
                "status=lost",
                "cursor=1-zz",
                "game=chess",
                "offset=-5",
                "after=" + _junk_text(rng),
                "%ff=%fe",
            ]
        )
        path += "?" + query
    return method, path


def test_no_request_gets_a_500_seeded_fuzz(
    client: Any, clean_redis: str, caplog: pytest.LogCaptureFixture
) -> None:
    rng = random.Random(SEED)
    created = create(client, "fbi", [{"type": "human"}, {"type": "human"}])
    game_id = created["id"]
    tokens = [s["token"] for s in created["seats"]]
    hook = client.post(
        "/v1/webhooks",
        json={"url": "https://93.184.215.14/hook", "events": ["seat.awaited"]},
        headers=auth(API_KEY),
    )
    assert hook.status_code == 201, hook.text
    legal = view(client, game_id, tokens[1])["legal"] or view(client, game_id, tokens[0])["legal"]
    valid: list[Any] = [
        {"game": "fbi", "seats": [{"type": "human"}, {"type": "bot", "level": "random"}]},
        {"game": "bonnie_clyde", "seats": [{"type": "human"}] * 2, "options": {"target": 10}},
        {"commitment": "ab" * 32, "step": "t1"},
        {"move": legal[0], "salt": "cd" * 16},
        {"url": "https://93.184.215.14/x", "events": ["game.finished"], "game_id": game_id},
        *legal,
    ]
    credentials = [API_KEY, *tokens, "made-up-token", "sk_" + "0" * 30]
    statuses: dict[int, int] = {}
    for i in range(REQUESTS):
        method, path = _path(rng, game_id, hook.json()["id"])
        headers = _headers(rng, credentials)
        body = _body(rng, valid) if method in {"POST", "PUT", "PATCH"} else b""
        response = client.request(method, path, content=body or None, headers=headers)
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        where = f"request {i}: {method} {path} {headers} {body[:120]!r}"
        assert response.status_code < 500, f"{where} -> {response.status_code} {response.text}"
        if response.status_code >= 400 and method != "HEAD":
            assert response.headers["content-type"].startswith("application/problem+json"), where
    assert _tracebacks(caplog) == []
    # The fuzz reached the handlers, not only the router: some requests were accepted.
    assert sum(n for s, n in statuses.items() if s < 300) > 0, statuses
    assert statuses.get(400, 0) > 0, statuses
