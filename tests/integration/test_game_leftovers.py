"""What a game leaves behind ends with it, against real processes: an archived game's
invites are gone; once its archive is gone, the sweep prunes its entries in its API key's
sets (its list, the counted and rated sets, its players' games), and a late retry of its
scoring job counts nothing; a player's listing drops a dead entry it meets."""

from __future__ import annotations

import dataclasses
import random
import time
from typing import Any

import redis
from litestar.testing import TestClient
from rq import Queue
from rq.job import Job

from service.app import create_app
from service.play.access import ApiKeys
from service.settings import Settings
from service.store.keys import (
    INDEX_BUCKETS,
    archive_key,
    owner_games_key,
    player_games_key,
    rated_key,
    remains_key,
    stats_counted_key,
    stats_key,
)
from tests.archiving import play
from tests.conftest import start_worker, stop_worker
from tests.helpers import API_KEY, auth, wait_for
from tests.processes import quick_options


def _problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == f"urn:stakeout:problem:{code}", response.text


OWNER = ApiKeys((API_KEY,)).identify(API_KEY) or ""


def _invite_keys(connection: redis.Redis) -> list[bytes]:
    return list(connection.scan_iter(match="invite:*"))


def _remains(connection: redis.Redis) -> int:
    return sum(int(connection.zcard(remains_key(b))) for b in range(INDEX_BUCKETS))


def test_an_archived_games_invites_are_gone(settings: Settings, clean_redis: str) -> None:
    connection = redis.Redis.from_url(clean_redis)
    with TestClient(app=create_app(settings)) as client:
        body = {
            "game": "bonnie_clyde",
            "seats": [{"type": "human", "name": "Ann"}, {"type": "open"}],
            "options": quick_options("bonnie_clyde"),
        }
        created = client.post("/v1/games", json=body, headers=auth(API_KEY))
        assert created.status_code == 201, created.text
        game_id, code = created.json()["id"], created.json()["seats"][1]["invite"]["code"]
        assert len(_invite_keys(connection)) == 1
        aborted = client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY))
        assert aborted.is_success, aborted.text
        # Over but still hot (no worker yet, so nothing archives it): the invite says so.
        _problem(client.post(f"/v1/invites/{code}", json={}), 409, "game-finished")
        assert client.get(f"/v1/invites/{code}").json()["status"] == "aborted"

        # A worker follows the abort up and archives the game a second after it.
        worker = start_worker(clean_redis, STAKEOUT_ARCHIVE_AFTER_SECONDS="1")
        try:
            wait_for(lambda: connection.exists(archive_key(game_id)), timeout=60)
        finally:
            stop_worker(worker)
        assert _invite_keys(connection) == []
        _problem(client.post(f"/v1/invites/{code}", json={}), 404, "unknown-invite")
        _problem(client.get(f"/v1/invites/{code}"), 404, "unknown-invite")
        # The archived game itself still reads.
        assert client.get(f"/v1/games/{game_id}").json()["status"] == "aborted"


def _members(connection: redis.Redis, game_id: str, players: list[str]) -> dict[str, bool]:
    """Where the game still has an entry among its API key's sets."""
    found = {
        "games": connection.zscore(owner_games_key(OWNER), game_id) is not None,
        "stats-counted": bool(connection.sismember(stats_counted_key(OWNER), game_id)),
        "rated": bool(connection.sismember(rated_key(OWNER), game_id)),
    }
    for player in players:
        key = player_games_key(OWNER, player)
        found[player] = connection.zscore(key, game_id) is not None
    return found


def test_the_entries_of_a_game_whose_archive_is_gone_are_pruned(
    settings: Settings, clean_redis: str
) -> None:
    """Archives kept 2 s, entries pruned 1 s after: the sweep (every 2 s) removes them all,
    and a scoring job run late finds no game and counts nothing again."""
    connection = redis.Redis.from_url(clean_redis)
    players = ["ann-1", "bo-2"]
    env = {
        "STAKEOUT_ARCHIVE_AFTER_SECONDS": "1",
        "STAKEOUT_ARCHIVE_TTL_SECONDS": "2",
        "STAKEOUT_REMAINS_GRACE_SECONDS": "1",
    }
    quick = dataclasses.replace(settings, archive_after_seconds=1, archive_ttl_seconds=2)
    with TestClient(app=create_app(quick)) as client:
        seats = [{"type": "human", "name": p, "external_id": p} for p in players]
        body = {"game": "fbi", "seats": seats, "options": quick_options("fbi")}
        created = client.post("/v1/games", json=body, headers=auth(API_KEY)).json()
        game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        play(client, game_id, tokens, random.Random(36), None)
        assert client.get(f"/v1/games/{game_id}").json()["status"] == "finished"
        worker = start_worker(clean_redis, **env)
        try:
            # Scored, rated and archived: every entry is there.
            wait_for(lambda: all(_members(connection, game_id, players).values()), timeout=60)
            wait_for(lambda: connection.exists(archive_key(game_id)), timeout=60)
            assert _remains(connection) == 1
            counts = connection.hgetall(stats_key(OWNER))
            assert counts[b"fbi|finished"] == b"1"
            # The archive expires; a grace second later the sweep prunes every entry.
            wait_for(lambda: not connection.exists(archive_key(game_id)), timeout=30)
            wait_for(lambda: not any(_members(connection, game_id, players).values()), 60)
            assert _remains(connection) == 0
            assert client.get(f"/v1/games/{game_id}").status_code == 404
            # A late retry of its scoring job finds no game: nothing is counted twice.
            queue = Queue("scoring", connection=connection)
            job = queue.enqueue("workers.jobs.score_game", game_id, job_id=f"late-{game_id}")
            wait_for(lambda: Job.fetch(job.id, connection=connection).get_status() == "failed")
            assert connection.hgetall(stats_key(OWNER)) == counts
            assert not any(_members(connection, game_id, players).values())
        finally:
            stop_worker(worker)


def test_a_player_listing_drops_a_dead_entry(
    client: TestClient[Any], clean_redis: str, dispatcher: None
) -> None:
    connection = redis.Redis.from_url(clean_redis)
    seats = [{"type": "human", "name": "Ann", "external_id": "ann-1"}, {"type": "human"}]
    body = {"game": "bonnie_clyde", "seats": seats, "options": quick_options("bonnie_clyde")}
    live = client.post("/v1/games", json=body, headers=auth(API_KEY)).json()["id"]
    key = player_games_key(OWNER, "ann-1")
    wait_for(lambda: connection.zscore(key, live) is not None)  # the creation's follow-up
    # A game that is gone (its archive expired before the sweep pruned it), newer than the
    # live one: the listing meets it first.
    dead = "0123456789abcdef01234567"
    connection.zadd(key, {dead: int(time.time() * 1000) + 1000})
    connection.zadd(owner_games_key(OWNER), {dead: int(time.time() * 1000) + 1000})
    page = client.get("/v1/players/ann-1/games", headers=auth(API_KEY))
    assert page.status_code == 200, page.text
    assert [g["id"] for g in page.json()["games"]] == [live]
    assert connection.zscore(key, dead) is None
    assert connection.zscore(owner_games_key(OWNER), dead) is None
    assert connection.zscore(key, live) is not None
