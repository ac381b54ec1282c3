"""Active games per API key are limited; games nobody plays are ended by the sweep as
abandoned and leave its working set; the sweep loads no game the activity index knows."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from litestar.testing import TestClient

from service.app import create_app
from service.follow_ups.sweep import SweepReport
from service.settings import Settings
from service.store.keys import INDEX_BUCKETS, active_games_key, game_activity_key
from service.wiring import open_wiring
from tests.conftest import start_worker, stop_worker
from tests.helpers import API_KEY, auth, create, view, wait_for
from tests.processes import Processes, service_env
from tests.receiver import Receiver

OTHER_KEY = "other-test-key"
HUMANS = [{"type": "human"}, {"type": "human"}]
BOTS = [{"type": "bot", "level": "random"}, {"type": "bot", "level": "random"}]
LIMIT_PROBLEM = "urn:stakeout:problem:active-game-limit"


def _create(client: Any, seats: list[dict[str, Any]], key: str = API_KEY) -> Any:
    return client.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(key))


def _listed(client: Any, key: str = API_KEY, status: str | None = None) -> list[dict[str, Any]]:
    params = {"limit": 100, **({"status": status} if status else {})}
    return list(client.get("/v1/games", params=params, headers=auth(key)).json()["games"])


@pytest.fixture
def limited(settings: Settings) -> Iterator[Any]:
    quota = replace(settings, api_keys=(API_KEY, OTHER_KEY), max_active_games=2)
    with TestClient(app=create_app(quota)) as client:
        yield client


def test_an_api_key_may_have_only_so_many_active_games(limited: Any) -> None:
    assert _create(limited, HUMANS).status_code == 201
    assert _create(limited, HUMANS).status_code == 201
    refused = _create(limited, HUMANS)
    assert refused.status_code == 409, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.json()["type"] == LIMIT_PROBLEM
    assert len(_listed(limited)) == 2  # nothing was created
    assert _create(limited, HUMANS, OTHER_KEY).status_code == 201  # a quota per key
    contract = json.loads((Path(__file__).parents[2] / "openapi" / "v1.json").read_text())
    assert "409" in contract["paths"]["/v1/games"]["post"]["responses"]  # and it says so


def test_ended_games_free_their_place(limited: Any, worker: Any) -> None:
    ids = [_create(limited, BOTS).json()["id"] for _ in range(2)]
    assert _create(limited, HUMANS).json()["type"] == LIMIT_PROBLEM
    for game_id in ids:  # the bots play both to a recorded result
        wait_for(
            lambda g=game_id: (
                limited.get(f"/v1/games/{g}/events", params={"limit": 500}).json()["events"][-1][
                    "event"
                ]["type"]
                == "game.result_recorded"
            ),
            timeout=120,
        )
    assert _create(limited, HUMANS).status_code == 201


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Processes]:
    started = Processes(tmp_path)
    try:
        yield started
    finally:
        started.close()


def test_concurrent_creations_never_overshoot_the_quota(procs: Processes, clean_redis: str) -> None:
    apis = [procs.api(service_env(clean_redis, STAKEOUT_MAX_ACTIVE_GAMES="3")) for _ in range(2)]
    statuses: list[int] = []
    barrier = threading.Barrier(12)

    def one(i: int) -> None:
        barrier.wait(timeout=30)
        body = {"game": "fbi", "seats": HUMANS}
        response = httpx.post(
            apis[i % 2].base + "/v1/games", json=body, headers=auth(API_KEY), timeout=30
        )
        statuses.append(response.status_code)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(statuses) == [201] * 3 + [409] * 9
    listed = httpx.get(apis[0].base + "/v1/games", headers=auth(API_KEY), timeout=10).json()
    assert len(listed["games"]) == 3


# ---- the sweep: which games it loads, and abandoned games ---------------------------------

HOUR_MS = 3600 * 1000


async def _sweep_at(settings: Settings, now_ms: int) -> SweepReport:
    async with open_wiring(settings) as wiring:  # a cold cache, as a fresh worker has
        return await wiring.sweep.run(now_ms, abandon_after_ms=settings.abandon_seconds * 1000)


def test_the_sweep_loads_a_game_only_while_the_activity_index_does_not_know_it(
    client: Any, settings: Settings
) -> None:
    """No dispatcher runs here, so nothing recorded these games' activity: the first sweep
    loads each (judging it by its stream's last change) and records it; later sweeps load
    none. Recent games are not abandoned."""
    ids = [create(client, "fbi", HUMANS)["id"] for _ in range(40)]
    now = int(time.time() * 1000)
    abandon_after = replace(settings, abandon_seconds=3600)
    first = asyncio.run(_sweep_at(abandon_after, now + 1000))
    assert (first.seen, first.loaded, first.abandoned) == (40, 40, 0)
    later = asyncio.run(_sweep_at(abandon_after, now + 2000))
    assert (later.seen, later.loaded, later.abandoned) == (40, 0, 0)
    assert all(view(client, g)["status"] == "active" for g in ids)


def test_an_abandoned_game_ends_and_leaves_the_working_set(
    client: Any, settings: Settings, clean_redis: str
) -> None:
    game = create(client, "fbi", HUMANS)
    other = create(client, "fbi", HUMANS)
    tokens = [s["token"] for s in other["seats"]]
    abandon_after = replace(settings, abandon_seconds=3600)
    now = int(time.time() * 1000)
    report = asyncio.run(_sweep_at(abandon_after, now + 2 * HOUR_MS))
    assert report.abandoned == 2  # both idle for two hours
    seen = view(client, game["id"], game["seats"][0]["token"])
    assert seen["status"] == "abandoned"
    assert seen["awaiting"] == []
    assert seen["legal"] == []
    assert seen["result"] is None
    events = client.get(f"/v1/games/{game['id']}/events", params={"limit": 500}).json()
    assert events["events"][-1]["event"] == {"type": "game.abandoned", "idle_seconds": 7200}
    # Nobody may act in it any more; it is listed as abandoned.
    move = client.post(
        f"/v1/games/{other['id']}/moves",
        json={"type": "fbi.release_none"},
        headers=auth(tokens[0]),
    )
    assert move.status_code == 409, move.text
    assert move.json()["type"] == "urn:stakeout:problem:game-finished"
    assert {g["id"] for g in _listed(client, status="abandoned")} == {game["id"], other["id"]}
    assert _listed(client, status="active") == []
    connection = redis.Redis.from_url(clean_redis)
    try:
        for bucket in range(INDEX_BUCKETS):
            assert connection.zcard(active_games_key(bucket)) == 0
            assert connection.zcard(game_activity_key(bucket)) == 0
    finally:
        connection.close()
    again = asyncio.run(_sweep_at(abandon_after, now + 3 * HOUR_MS))
    assert (again.seen, again.loaded, again.abandoned) == (0, 0, 0)


def test_a_game_played_recently_is_not_abandoned(client: Any, settings: Settings) -> None:
    game = create(client, "fbi", HUMANS)
    abandon_after = replace(settings, abandon_seconds=3600)
    now = int(time.time() * 1000)
    report = asyncio.run(_sweep_at(abandon_after, now + HOUR_MS - 60_000))
    assert report.abandoned == 0
    assert view(client, game["id"])["status"] == "active"


def test_a_worker_sweep_abandons_an_idle_game_and_tells_its_webhooks(settings: Settings) -> None:
    receiver = Receiver()
    lenient = replace(settings, webhook_allow_private=True, max_active_games=1)
    url = settings.redis_url or ""
    game_worker = start_worker(url, STAKEOUT_ABANDON_SECONDS="2", STAKEOUT_SWEEP_SECONDS="1")
    deliveries = start_worker(url, queues="webhooks")
    try:
        with TestClient(app=create_app(lenient)) as api:
            hook = {"url": receiver.url, "events": ["game.finished"]}
            assert api.post("/v1/webhooks", json=hook, headers=auth(API_KEY)).status_code == 201
            game_id = create(api, "fbi", HUMANS)["id"]
            assert _create(api, HUMANS).status_code == 409  # the quota is full...
            wait_for(lambda: view(api, game_id)["status"] == "abandoned", timeout=60)
            bodies = wait_for(lambda: [json.loads(b) for _, b in receiver.requests], timeout=60)
            assert bodies[0]["kind"] == "game.finished"
            assert bodies[0]["status"] == "abandoned"
            assert bodies[0]["game_id"] == game_id
            assert _create(api, HUMANS).status_code == 201  # ...and freed by the abandonment
    finally:
        receiver.close()
        stop_worker(game_worker)
        stop_worker(deliveries)


def test_a_live_feed_ends_with_the_abandonment(server_url: str, clean_redis: str) -> None:
    """A real server's SSE feed of a game that gets abandoned closes after game.abandoned."""
    body = {"game": "fbi", "seats": HUMANS}
    created = httpx.post(server_url + "/v1/games", json=body, headers=auth(API_KEY), timeout=10)
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    kinds: list[str] = []
    ended = threading.Event()

    def follow() -> None:
        url = f"{server_url}/v1/games/{game_id}/stream"
        with httpx.stream("GET", url, timeout=30) as response:
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kinds.append(line.removeprefix("event: "))
        ended.set()

    threading.Thread(target=follow, daemon=True).start()
    wait_for(lambda: kinds, timeout=30)  # the backlog arrived: the feed is open
    settings = Settings(redis_url=clean_redis, abandon_seconds=3600)
    report = asyncio.run(_sweep_at(settings, int(time.time() * 1000) + 2 * HOUR_MS))
    assert report.abandoned == 1
    assert ended.wait(60), "the feed stayed open after the game was abandoned"
    assert kinds[-1] == "game.abandoned"
