"""GET /v1/games answers from the summaries kept with the games: no stream is folded, and the
answer is byte for byte the one that loading every game gives."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
import redis

from service.store.keys import summary_key
from service.wiring import Wiring
from tests.helpers import API_KEY, auth, create, play_randomly

HUMANS2 = [{"type": "human"}, {"type": "human"}]


def _tokens(created: dict[str, Any]) -> list[str]:
    return [s["token"] for s in created["seats"]]


def _games_of_every_kind(client: Any) -> dict[str, dict[str, Any]]:
    """A finished, a running, a waiting, a resigned and an aborted game, as created."""
    finished = create(client, "fbi", HUMANS2)
    play_randomly(client, finished["id"], _tokens(finished), 3, None)
    running = create(client, "feds", [*HUMANS2, {"type": "human"}])
    play_randomly(client, running["id"], _tokens(running), 5, 3)
    waiting = create(client, "bonnie_clyde", [{"type": "human", "name": "ann"}, {"type": "open"}])
    resigned = create(client, "fbi", [{"type": "human", "external_id": "u-1"}, {"type": "human"}])
    _resign(client, resigned, 0)
    aborted = create(client, "fbi", HUMANS2)
    assert client.post(f"/v1/games/{aborted['id']}/abort", headers=auth(API_KEY)).status_code == 200
    return {
        "finished": finished,
        "running": running,
        "waiting": waiting,
        "resigned": resigned,
        "aborted": aborted,
    }


def _resign(client: Any, created: dict[str, Any], seat: int) -> None:
    token = _tokens(created)[seat]
    response = client.post(f"/v1/games/{created['id']}/resign", headers=auth(token))
    assert response.status_code == 200, response.text


def _listing(client: Any, **params: Any) -> bytes:
    response = client.get("/v1/games", params=params, headers=auth(API_KEY))
    assert response.status_code == 200, response.text
    return bytes(response.content)


def _spy(monkeypatch: pytest.MonkeyPatch, ctx: Wiring) -> Counter[str]:
    """Counts every way a game is read from its stream: loaded, opened cold, caught up."""
    calls: Counter[str] = Counter()

    def counted(name: str, target: Any) -> None:
        real: Callable[..., Any] = getattr(target, name)

        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return await real(*args, **kwargs)

        monkeypatch.setattr(target, name, wrapper)

    counted("load", ctx.games)
    counted("opening", ctx.store)
    counted("catch_up", ctx.store)
    counted("read", ctx.store)
    return calls


def test_a_listing_folds_no_stream_and_answers_what_loading_gives(
    client: Any, clean_redis: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx: Wiring = client.app.state.wiring
    created = _games_of_every_kind(client)
    games = [c["id"] for c in created.values()]
    first = _listing(client)
    raw = redis.Redis.from_url(clean_redis)
    try:
        assert all(raw.exists(summary_key(g)) for g in games)
        ctx.games.cache._games.clear()  # a load would now fold each whole stream
        calls = _spy(monkeypatch, ctx)
        assert _listing(client) == first
        assert b'"status":"finished"' in _listing(client, status="finished")
        assert b'"external_id":"u-1"' in _listing(client, external_id="u-1", limit=1)
        assert sum(calls.values()) == 0, calls

        # Without kept summaries (games from before they were kept), every game is loaded,
        # as a listing always did: the same bytes, and the summaries are written then.
        raw.delete(*(summary_key(g) for g in games))
        assert _listing(client) == first
        assert calls["load"] == len(games)
        assert all(raw.exists(summary_key(g)) for g in games)
        calls.clear()
        assert _listing(client) == first
        assert sum(calls.values()) == 0, calls

        # A summary behind its game (follow-ups written out of order) is not taken.
        running = created["running"]
        behind = raw.get(summary_key(running["id"]))
        assert behind is not None
        _resign(client, running, 1)
        calls.clear()
        fresh = _listing(client)
        assert fresh != first
        assert sum(calls.values()) == 0, calls
        raw.set(summary_key(running["id"]), behind)
        assert _listing(client) == fresh
        assert calls["load"] == 1

        # A summary in another format (written by another release) is not taken either.
        current = raw.get(summary_key(running["id"]))
        assert isinstance(current, bytes), current
        assert current.startswith(b"1.")
        raw.set(summary_key(running["id"]), b"0" + current[1:])
        calls.clear()
        assert _listing(client) == fresh
        assert calls["load"] == 1
        assert raw.get(summary_key(running["id"])) == current
    finally:
        raw.close()
