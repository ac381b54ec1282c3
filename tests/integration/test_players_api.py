"""The players' pages: a player's ratings, its games, the leaderboards; per API key."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio
from litestar import Litestar
from litestar.testing import TestClient

from domain.match import SeatSpec
from service.app import create_app
from service.play.access import ApiKeys
from service.players.rating_store import RatingStore
from service.settings import Settings
from tests.helpers import API_KEY, auth, wait_for
from tests.integration.test_ratings import _finished

OTHER_KEY = "another-tenants-key"


@pytest.fixture
def two_keys(clean_redis: str) -> Settings:
    return Settings(redis_url=clean_redis, api_keys=(API_KEY, OTHER_KEY), rate_limit_per_minute=0)


@pytest.fixture
def api(two_keys: Settings) -> Iterator[TestClient[Litestar]]:
    with TestClient(app=create_app(two_keys)) as test_client:
        yield test_client


def _owner(key: str) -> str:
    owner = ApiKeys((key,)).identify(key)
    assert owner is not None
    return owner


def _rate(redis_url: str, owner: str, games: list[tuple[list[SeatSpec], list[int]]]) -> None:
    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        store = RatingStore(client)
        for number, (seats, places) in enumerate(games):
            loaded = _finished(f"{number:024x}", seats, places, owner=owner)
            await store.rate_game(loaded)
        await client.aclose()

    asyncio.run(scenario())


def _ladder(players: int) -> list[tuple[list[SeatSpec], list[int]]]:
    """user-0 beats everyone, user-1 everyone else, ...: a strict order of ratings."""
    games = []
    for _ in range(3):
        for a in range(players):
            for b in range(a + 1, players):
                seats = [SeatSpec("human", None, f"U{x}", f"user-{x}") for x in (a, b)]
                games.append((seats, [1, 2]))
    return games


def test_a_player_page_shows_its_ratings_per_game_kind(api: Any, clean_redis: str) -> None:
    _rate(clean_redis, _owner(API_KEY), _ladder(3))
    mine = api.get("/v1/players/user-0", headers=auth(API_KEY))
    assert mine.status_code == 200, mine.text
    body = mine.json()
    assert body["external_id"] == "user-0"
    assert body["name"] == "U0"
    (fbi,) = body["ratings"]
    assert (fbi["game"], fbi["rank"], fbi["games"], fbi["wins"]) == ("fbi", 1, 6, 6)
    assert fbi["provisional"] is True
    assert fbi["rating"] == round(1000 + 24 * (fbi["mu"] - 3 * fbi["sigma"]))
    # Another API key's player of the same external id is another player: none here.
    theirs = api.get("/v1/players/user-0", headers=auth(OTHER_KEY)).json()
    assert theirs == {"external_id": "user-0", "name": None, "ratings": []}
    assert api.get("/v1/players/user-0").status_code == 401


def test_the_leaderboard_pages_and_centres_on_a_player(api: Any, clean_redis: str) -> None:
    _rate(clean_redis, _owner(API_KEY), _ladder(7))
    first = api.get("/v1/leaderboards/fbi?limit=3", headers=auth(API_KEY)).json()
    assert first["total"] == 7
    assert [e["external_id"] for e in first["entries"]] == ["user-0", "user-1", "user-2"]
    assert [e["rank"] for e in first["entries"]] == [1, 2, 3]
    ranks = [e["rating"] for e in first["entries"]]
    assert ranks == sorted(ranks, reverse=True)
    seen = [e["external_id"] for e in first["entries"]]
    cursor = first["next_cursor"]
    while cursor is not None:
        page = api.get(f"/v1/leaderboards/fbi?limit=3&cursor={cursor}", headers=auth(API_KEY))
        seen += [e["external_id"] for e in page.json()["entries"]]
        cursor = page.json()["next_cursor"]
    assert seen == [f"user-{i}" for i in range(7)]
    around = api.get("/v1/leaderboards/fbi?limit=3&around=user-4", headers=auth(API_KEY)).json()
    assert [e["external_id"] for e in around["entries"]] == ["user-3", "user-4", "user-5"]
    top = api.get("/v1/leaderboards/fbi?limit=4&around=user-0", headers=auth(API_KEY)).json()
    assert [e["rank"] for e in top["entries"]] == [1, 2, 3, 4]
    missing = api.get("/v1/leaderboards/fbi?around=nobody", headers=auth(API_KEY))
    assert missing.status_code == 404
    assert missing.json()["type"] == "urn:stakeout:problem:unknown-player"
    # Not across API keys: the other key's board is empty, its around finds nobody.
    other = api.get("/v1/leaderboards/fbi", headers=auth(OTHER_KEY)).json()
    assert (other["total"], other["entries"], other["next_cursor"]) == (0, [], None)
    assert api.get("/v1/leaderboards/fbi?around=user-0", headers=auth(OTHER_KEY)).status_code == 404
    assert api.get("/v1/leaderboards/chess", headers=auth(API_KEY)).status_code == 400


def test_bot_levels_are_on_the_leaderboard(api: Any, clean_redis: str) -> None:
    games = [([SeatSpec("human", None, "A", "a"), SeatSpec("bot", "expert")], [2, 1])] * 3
    _rate(clean_redis, _owner(API_KEY), games)
    entries = api.get("/v1/leaderboards/fbi", headers=auth(API_KEY)).json()["entries"]
    assert [(e["external_id"], e["bot"]) for e in entries] == [(None, "expert"), ("a", None)]


def _create(api: Any, key: str, game: str, external_ids: list[str]) -> str:
    seats = [{"type": "human", "external_id": x} for x in external_ids]
    response = api.post(
        "/v1/games", json={"game": game, "seats": seats, "options": {}}, headers=auth(key)
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def test_a_players_games_newest_first_filtered_and_paged(api: Any, dispatcher: None) -> None:
    made = [
        _create(api, API_KEY, "fbi", ["ann", "bob"]),
        _create(api, API_KEY, "feds", ["ann", "cy", "dee"]),
        _create(api, API_KEY, "fbi", ["bob", "cy"]),
        _create(api, API_KEY, "fbi", ["ann", "cy"]),
        _create(api, OTHER_KEY, "fbi", ["ann", "bob"]),  # another tenant's ann
    ]
    aborted = api.post(f"/v1/games/{made[0]}/abort", headers=auth(API_KEY))
    assert aborted.status_code == 200, aborted.text

    def listed(query: str = "", key: str = API_KEY) -> list[str]:
        ids: list[str] = []
        cursor = ""
        while True:
            page = api.get(f"/v1/players/ann/games?limit=1{query}{cursor}", headers=auth(key))
            assert page.status_code == 200, page.text
            ids += [g["id"] for g in page.json()["games"]]
            if page.json()["next_cursor"] is None:
                return ids
            cursor = "&cursor=" + page.json()["next_cursor"]

    newest_first = [made[3], made[1], made[0]]
    assert wait_for(lambda: listed() == newest_first or None, timeout=30)
    assert listed("&game=fbi") == [made[3], made[0]]
    assert listed("&status=aborted") == [made[0]]
    assert listed("&status=active&game=feds") == [made[1]]
    assert wait_for(lambda: listed(key=OTHER_KEY) == [made[4]] or None, timeout=30)
    assert api.get("/v1/players/ann/games").status_code == 401
