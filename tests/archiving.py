"""Client-side helpers for the archive tests: play a game with Idempotency-Keys, and read
everything a client may read of it, as bytes."""

from __future__ import annotations

import random
import re
from typing import Any

import httpx

from domain.sealed import commitment
from tests.helpers import API_KEY, auth
from tests.processes import quick_options

_SERVER_TIME = re.compile(rb'"server_time_ms":\d+')

# An act as sent: its request (path, body, token, Idempotency-Key) and its answer.
Sent = tuple[str, Any, str, str, httpx.Response]


def create(client: Any, game: str, seats: int, public: bool = False) -> dict[str, Any]:
    body = {
        "game": game,
        "seats": [{"type": "human", "name": f"p{i}"} for i in range(seats)],
        "options": quick_options(game),
        "public": public,
    }
    response = client.post("/v1/games", json=body, headers=auth(API_KEY))
    assert response.status_code == 201, response.text
    return dict(response.json())


def play(
    client: Any,
    game_id: str,
    tokens: list[str],
    rng: random.Random,
    acts: int | None,
    sent: list[Any] | None = None,
) -> Sent:
    """Every seat plays random legal acts with Idempotency-Keys (to the end, or ``acts``);
    returns the last act's request (path, body, token, key) and its answer (``sent``: gets
    every one)."""
    kept: dict[int, tuple[Any, str]] = {}
    last: Sent | None = None
    done = 0
    while acts is None or done < acts:
        seen = client.get(f"/v1/games/{game_id}").json()
        if seen["status"] != "active" or not seen["awaiting"]:
            break
        action = seen["awaiting"][0]
        seat, token = action["seat"], tokens[action["seat"]]
        base = f"/v1/games/{game_id}"
        if action["action"] == "reveal":
            move, salt = kept.pop(seat)
            path, body = f"{base}/reveals", {"move": move, "salt": salt}
        else:
            legal = client.get(base, headers=auth(token)).json()["legal"]
            move = rng.choice(legal)
            if action["action"] == "move":
                path, body = f"{base}/moves", move
            else:
                salt = f"{rng.getrandbits(128):032x}"
                kept[seat] = (move, salt)
                digest = commitment(game_id, action["step"], seat, move, salt)
                path, body = f"{base}/commitments", {"commitment": digest}
        key = f"k{done}-{rng.getrandbits(32)}"
        headers = {**auth(token), "Idempotency-Key": key}
        answer = client.post(path, json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        last = (path, body, token, key, answer)
        if sent is not None:
            sent.append(last)
        done += 1
    assert last is not None
    return last


def reads(client: Any, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """Everything a client may read of a game that is over, as bytes (and the headers that
    matter), by every kind of caller."""
    out: dict[str, Any] = {}
    callers = {"spectator": {}, "owner": auth(API_KEY)}
    callers.update({f"seat{i}": auth(t) for i, t in enumerate(tokens)})

    def get(name: str, path: str, headers: dict[str, str], **params: Any) -> httpx.Response:
        response: httpx.Response = client.get(path, headers=headers, params=params)
        # A view says when it was made (server_time_ms): the one part of a read of its moment.
        content = _SERVER_TIME.sub(b'"server_time_ms":0', response.content)
        out[name] = (response.status_code, response.headers.get("etag"), content)
        return response

    base = f"/v1/games/{game_id}"
    for who, headers in callers.items():
        view = get(f"view {who}", base, headers).json()
        after, page = 0, 0
        while True:
            events = get(f"events {who} {page}", f"{base}/events", headers, after=after, limit=37)
            body = events.json()
            if not body["has_more"]:
                break
            after, page = body["next_after"], page + 1
    version = view["version"]
    replay = get("replay", f"{base}/replay", auth(API_KEY))
    for at in sorted({1, 2, version // 3, version // 2, version - 1, version}):
        for seat in (-1, 0, len(tokens) - 1):
            get(f"replay/{at} seat {seat}", f"{base}/replay/{at}", {}, seat=seat)
    get("past the end", f"{base}/replay/{version + 1}", {})
    out["replay document"] = replay.content
    return out


def listing(client: Any) -> dict[str, Any]:
    out = {}
    for status in (None, "finished", "aborted", "abandoned"):
        params = {"limit": 3} if status is None else {"status": status, "limit": 3}
        pages, cursor = [], None
        while True:
            query = params if cursor is None else {**params, "cursor": cursor}
            response = client.get("/v1/games", headers=auth(API_KEY), params=query)
            assert response.status_code == 200, response.text
            pages.append(response.content)
            cursor = response.json()["next_cursor"]
            if cursor is None:
                break
        out[f"list {status}"] = pages
    out["stats"] = client.get("/v1/stats", headers=auth(API_KEY)).content
    return out
