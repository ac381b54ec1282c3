"""Live feeds share a few Redis readers per process (not a blocking connection per watched
game), and a view read can wait for the next version (long-poll). A real API process and a
real Valkey; the connections are counted by the server itself (CLIENT LIST)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import redis

from service.live.feed import READERS
from tests.helpers import API_KEY, auth
from tests.processes import Processes, own_redis, processes, service_env

__all__ = ["own_redis", "processes"]

HUMANS2 = [{"type": "human"}, {"type": "human"}]
GAMES = 24


def _blocked_readers(url: str) -> int:
    """Connections of the server now waiting in a blocking XREAD."""
    client = redis.Redis.from_url(url)
    try:
        return sum(1 for c in client.client_list() if c.get("cmd") == "xread")
    finally:
        client.close()


def _create(http: httpx.Client) -> dict[str, Any]:
    created = http.post("/v1/games", json={"game": "fbi", "seats": HUMANS2}, headers=auth(API_KEY))
    assert created.status_code == 201, created.text
    return dict(created.json())


def _move(http: httpx.Client, game: dict[str, Any]) -> int:
    """The awaited seat's first legal move; returns the new version."""
    game_id = game["id"]
    seat = http.get(f"/v1/games/{game_id}").json()["awaiting"][0]["seat"]
    token = game["seats"][seat]["token"]
    move = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()["legal"][0]
    moved = http.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(token))
    assert moved.status_code == 200, moved.text
    return int(moved.json()["version"])


def test_many_live_feeds_share_a_bounded_number_of_redis_readers(
    processes: Processes, own_redis: str
) -> None:
    api = processes.api(service_env(own_redis))
    with httpx.Client(base_url=api.base, timeout=30) as http:
        games = [_create(http) for _ in range(GAMES)]

    async def watch_all() -> dict[str, list[int]]:
        got: dict[str, list[int]] = {g["id"]: [] for g in games}
        opened = 0
        all_open = asyncio.Event()
        limits = httpx.Limits(max_connections=2 * GAMES + 10)

        async def follow(client: httpx.AsyncClient, game: dict[str, Any]) -> None:
            nonlocal opened
            path = f"/v1/games/{game['id']}/stream"
            async with client.stream("GET", path, params={"after": game["version"]}) as stream:
                opened += 1
                if opened == 2 * GAMES:
                    all_open.set()
                async for line in stream.aiter_lines():
                    if line.startswith("id: "):
                        got[game["id"]].append(int(line[4:]))
                        return

        async with httpx.AsyncClient(base_url=api.base, timeout=120, limits=limits) as client:
            # Two feeds on every game.
            tasks = [asyncio.create_task(follow(client, g)) for g in games for _ in range(2)]
            await asyncio.wait_for(all_open.wait(), 120)
            # Every game is watched; the server holds at most READERS blocking reads.
            deadline = time.monotonic() + 30
            while _blocked_readers(own_redis) == 0 and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            blocked = _blocked_readers(own_redis)
            assert 1 <= blocked <= READERS, blocked
            # A move in every game reaches both of its feeds.
            with httpx.Client(base_url=api.base, timeout=30) as http:
                for game in games:
                    await asyncio.to_thread(_move, http, game)
            await asyncio.wait_for(asyncio.gather(*tasks), 120)
        return got

    got = asyncio.run(watch_all())
    for game in games:
        assert got[game["id"]] == [game["version"] + 1] * 2, (game["id"], got[game["id"]])


def test_a_view_read_waits_for_the_next_version_long_poll(
    processes: Processes, own_redis: str
) -> None:
    api = processes.api(service_env(own_redis))
    with httpx.Client(base_url=api.base, timeout=60) as http:
        game = _create(http)
        game_id, version = game["id"], game["version"]
        answers: list[httpx.Response] = []

        def long_poll() -> None:
            with httpx.Client(base_url=api.base, timeout=60) as poller:
                params = {"after_version": version, "wait": 25}
                answers.append(poller.get(f"/v1/games/{game_id}", params=params))

        poller = threading.Thread(target=long_poll)
        poller.start()
        time.sleep(0.5)  # (only so that, without long-poll, the read answers before the move)
        moved_to = _move(http, game)
        poller.join(timeout=60)
        assert not poller.is_alive()
        (answer,) = answers
        assert answer.status_code == 200, answer.text
        assert answer.json()["version"] == moved_to > version
        assert answer.headers["etag"] == f'"{moved_to}"'

        # Already past: at once. Nothing new within `wait`: the view as it is.
        past = http.get(f"/v1/games/{game_id}", params={"after_version": version, "wait": 25})
        assert past.json()["version"] == moved_to
        quiet = http.get(f"/v1/games/{game_id}", params={"after_version": moved_to, "wait": 1})
        assert quiet.status_code == 200, quiet.text
        assert quiet.json()["version"] == moved_to

        # The wait is bounded; bad values are refused as problems.
        for params in ({"after_version": 0, "wait": 31}, {"after_version": -1, "wait": 1}):
            refused = http.get(f"/v1/games/{game_id}", params=params)
            assert refused.status_code == 400, refused.text
            assert refused.headers["content-type"].startswith("application/problem+json")
