"""Ratings: the same numbers as openskill's own update, once per game, per API key."""

from __future__ import annotations

import asyncio
import functools
import random
import subprocess
from typing import Any

import httpx
import redis
import redis.asyncio
from openskill.models import PlackettLuce
from rq import Queue
from rq.job import Job

from domain import registry
from domain.engine import Outcome
from domain.match import Match, SeatSpec
from service.follow_ups.jobs import SCORING_QUEUE
from service.play.records import GameMeta, Loaded
from service.players import ratings
from service.players.rating_store import RatingStore
from service.settings import Settings
from tests.helpers import API_KEY, auth, create, view, wait_for

ENGINE = registry.engine_for("fbi")
PLAYERS = [f"user-{i}" for i in range(8)]


def _finished(
    game_id: str,
    seats: list[SeatSpec],
    places: list[int],
    owner: str = "k1",
    game: str = "fbi",
    **match: Any,
) -> Loaded:
    """A finished game (fbi's engine; ``game``: its kind) with ``places`` recorded (as the
    scoring job leaves it)."""
    assert ENGINE is not None
    outcome = Outcome(
        scores=[0] * len(seats), winners=[i for i, p in enumerate(places) if p == 1], places=places
    )
    folded = Match(game_id, list(seats), {}, None, version=10, recorded=outcome, **match)
    meta = GameMeta(game, owner, list(seats), [None] * len(seats), 0)
    return Loaded(game_id, ENGINE, folded, meta, changed_ms=1000)


def _places(rng: random.Random, n: int) -> list[int]:
    """Standard competition places from random scores (ties share a place: 1, 1, 3)."""
    scores = [rng.randint(0, 3) for _ in range(n)]
    return [1 + sum(other > mine for other in scores) for mine in scores]


def _series(seed: int, games: int) -> list[tuple[list[SeatSpec], list[int]]]:
    """Seeded games of 2 to 4 seats: distinct players, sometimes one bot level."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        n = rng.randint(2, 4)
        people = rng.sample(PLAYERS, n)
        seats = [SeatSpec("human", None, f"name of {p}", p) for p in people]
        if rng.random() < 0.3:
            seats[-1] = SeatSpec("bot", rng.choice(["random", "greedy", "expert"]))
        out.append((seats, _places(rng, n)))
    return out


def test_a_seeded_series_gives_openskills_own_ratings(clean_redis: str) -> None:
    series = _series(seed=30, games=60)
    model = PlackettLuce()
    expected: dict[str, Any] = {}
    for seats, places in series:  # openskill called directly, on the same placements
        names = [
            ratings.player_identity(s.external_id)
            if s.external_id
            else ratings.bot_identity(s.level or "")
            for s in seats
        ]
        teams = [[expected.get(name) or model.rating()] for name in names]
        for name, team in zip(
            names, model.rate(teams, ranks=[float(p) for p in places]), strict=True
        ):
            expected[name] = team[0]

    async def scenario() -> dict[str, Any]:
        client = redis.asyncio.Redis.from_url(clean_redis)
        store = RatingStore(client)
        for number, (seats, places) in enumerate(series):
            said = await store.rate_game(_finished(f"{number:024x}", seats, places))
            assert said == f"rated {len(seats)} identities"
        got = {name: await store.rating("k1", "fbi", name) for name in expected}
        await client.aclose()
        return got

    got = asyncio.run(scenario())
    for name, rating in expected.items():
        found = got[name]
        assert found is not None, name
        assert (found[0].mu, found[0].sigma) == (rating.mu, rating.sigma), name
    played = dict.fromkeys(expected, 0)
    for seats, _ in series:
        for s in seats:
            played[
                ratings.player_identity(s.external_id)
                if s.external_id
                else ratings.bot_identity(s.level or "")
            ] += 1
    assert {name: got[name][0].games for name in expected} == played


def test_a_game_is_rated_once_when_two_workers_rate_it_at_the_same_time(
    clean_redis: str,
) -> None:
    seats = [SeatSpec("human", None, "A", "a"), SeatSpec("human", None, "B", "b")]
    loaded = _finished("0" * 24, seats, [1, 2])

    async def scenario() -> tuple[list[str], str, Any]:
        one = redis.asyncio.Redis.from_url(clean_redis)
        two = redis.asyncio.Redis.from_url(clean_redis)
        first, second = RatingStore(one), RatingStore(two)
        said = await asyncio.gather(*[s.rate_game(loaded) for s in [first, second] * 4])
        again = await first.rate_game(loaded)  # a retry, later
        rating = await first.rating("k1", "fbi", "p:a")
        await one.aclose()
        await two.aclose()
        return list(said), again, rating

    said, again, rating = asyncio.run(scenario())
    assert sorted(said) == ["already rated"] * 7 + ["rated 2 identities"]
    assert again == "already rated"
    assert rating is not None
    assert rating[0].games == 1
    assert rating[0].wins == 1
    assert rating[1] == 1  # first on the board


def test_games_rated_at_once_on_two_workers_lose_no_update(clean_redis: str) -> None:
    """Twelve games of the same three players rated concurrently: each counts."""
    seats = [SeatSpec("human", None, None, x) for x in ("a", "b", "c")]
    games = [_finished(f"{i:024x}", seats, _places(random.Random(i), 3)) for i in range(12)]

    async def scenario() -> list[int]:
        clients = [redis.asyncio.Redis.from_url(clean_redis) for _ in range(2)]
        stores = [RatingStore(c) for c in clients]
        await asyncio.gather(*[stores[i % 2].rate_game(g) for i, g in enumerate(games)])
        found = [await stores[0].rating("k1", "fbi", f"p:{x}") for x in ("a", "b", "c")]
        for c in clients:
            await c.aclose()
        return [f[0].games for f in found if f is not None]

    assert asyncio.run(scenario()) == [12, 12, 12]


def test_who_is_rated() -> None:
    seats = [
        SeatSpec("human", None, "Ann", "ann"),  # rated as ann
        SeatSpec("human", None, "Anonymous"),  # no external id: not rated
        SeatSpec("bot", "expert"),  # the expert level
        SeatSpec("bot", "random", "Bo", "bo"),  # bo resigned: a bot plays it, bo is rated
        SeatSpec("bot", "random", "Cy"),  # resigned without an external id: not rated
    ]
    loaded = _finished("1" * 24, seats, [1, 2, 3, 4, 5], resigned=[3, 4])
    assert ratings.identities(loaded.match) == ["p:ann", None, "b:expert", "p:bo", None]


def test_an_identity_at_several_seats_gets_the_mean_of_their_updates() -> None:
    seats = ["p:ann", "b:greedy", "b:greedy", "b:greedy"]
    new = ratings.updated({}, seats, [2, 1, 3, 4], [None] * 4, 5)
    model = PlackettLuce()
    direct = model.rate([[model.rating()] for _ in seats], ranks=[2, 1, 3, 4])
    greedy = new["b:greedy"]
    assert greedy.mu == sum(t[0].mu for t in direct[1:]) / 3
    assert greedy.games == 1
    assert greedy.wins == 1
    assert new["p:ann"].mu == direct[0][0].mu
    assert ratings.updated({}, ["p:ann", None, None], [1, 2, 3], [None] * 3, 5) == {}


def test_the_shown_rating_is_a_conservative_ordinal() -> None:
    assert ratings.fresh().display == 1000
    assert ratings.fresh().provisional
    settled = ratings.Rating(mu=25.0, sigma=1.0, games=40)
    assert settled.display == (1000 + 24 * (25 - 3))
    assert not settled.provisional


def test_ratings_belong_to_their_api_key(clean_redis: str) -> None:
    seats = [SeatSpec("human", None, None, "a"), SeatSpec("human", None, None, "b")]

    async def scenario() -> tuple[Any, Any]:
        client = redis.asyncio.Redis.from_url(clean_redis)
        store = RatingStore(client)
        await store.rate_game(_finished("2" * 24, seats, [1, 2], owner="k1"))
        mine = await store.rating("k1", "fbi", "p:a")
        theirs = await store.rating("k2", "fbi", "p:a")
        await client.aclose()
        return mine, theirs

    mine, theirs = asyncio.run(scenario())
    assert mine is not None
    assert theirs is None


def test_an_aborted_game_is_not_rated(clean_redis: str) -> None:
    seats = [SeatSpec("human", None, None, "a"), SeatSpec("human", None, None, "b")]
    loaded = _finished("3" * 24, seats, [1, 2], aborted=True)

    async def scenario() -> str:
        client = redis.asyncio.Redis.from_url(clean_redis)
        said = await RatingStore(client).rate_game(loaded)
        await client.aclose()
        return said

    assert asyncio.run(scenario()) == "not rated: no result"


def test_the_scoring_job_rates_a_finished_game_once(
    client: Any, settings: Settings, worker: subprocess.Popen[bytes]
) -> None:
    seats = [{"type": "bot", "level": "random"}, {"type": "bot", "level": "greedy"}]
    game_id = create(client, "fbi", seats)["id"]
    wait_for(lambda: view(client, game_id)["result"], timeout=120)

    def board() -> Any:
        return client.get("/v1/leaderboards/fbi", headers=auth(API_KEY)).json()

    wait_for(lambda: len(board()["entries"]) == 2, timeout=30)
    before = board()
    # The scoring job again, as a retry would run it: nothing is rated twice.
    connection = redis.Redis.from_url(settings.redis_url or "")
    job = Queue(SCORING_QUEUE, connection=connection).enqueue_call(
        "workers.jobs.score_game", args=(game_id,), job_id=f"score-again-{game_id}"
    )
    wait_for(lambda: Job.fetch(job.id, connection=connection).is_finished, timeout=30)
    said = Job.fetch(job.id, connection=connection).return_value()
    connection.close()
    assert said == "already recorded; already rated"
    assert board() == before
    assert [e["games"] for e in before["entries"]] == [1, 1]
    assert {e["bot"] for e in before["entries"]} == {"random", "greedy"}


def test_resigned_seats_are_placed_below_every_seat_that_did_not() -> None:
    seats = [SeatSpec("human", None, None, x) for x in "abcd"]
    resigned = _finished("4" * 24, seats, [1, 2, 2, 4], resigned=[0, 2]).match
    assert ratings.rated_places([1, 2, 2, 4], resigned) == [3, 1, 3, 2]
    nobody = _finished("5" * 24, seats, [1, 1, 3, 4]).match
    assert ratings.rated_places([1, 1, 3, 4], nobody) == [1, 1, 3, 4]


def _result(http: httpx.Client, game_id: str) -> Any:
    return http.get(f"/v1/games/{game_id}").json()["result"]


def test_a_resigned_player_is_rated_below_the_bot_that_beat_it_whoever_won(
    server_url: str, worker: subprocess.Popen[bytes]
) -> None:
    """Over HTTP against a real server, bots on a real worker: Bo resigns at once and his
    seat's bot plays a random bot. Of the games played, the first in which Bo's seat
    finished first (the game's own result): Bo lost it in his rating and his history."""
    key = auth(API_KEY)
    with httpx.Client(base_url=server_url, timeout=30) as http:
        for attempt in range(16):  # about half the games: Bo's seat first or tied first
            bo = f"u-bo-{attempt}"
            seats = [
                {"type": "human", "name": "Bo", "external_id": bo},
                {"type": "bot", "level": "random"},
            ]
            made = http.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=key)
            assert made.status_code == 201, made.text
            game_id, token = made.json()["id"], made.json()["seats"][0]["token"]
            resigned = http.post(f"/v1/games/{game_id}/resign", headers=auth(token))
            assert resigned.status_code == 200, resigned.text
            result = wait_for(functools.partial(_result, http, game_id), timeout=120)
            if result["places"][0] == 1:
                break
        else:
            raise AssertionError("Bo's seat never finished first in 16 games")

        def rated() -> Any:
            ratings_ = http.get(f"/v1/players/{bo}", headers=key).json()["ratings"]
            return ratings_[0] if ratings_ else None

        mine = wait_for(rated, timeout=60)
        # A loss, whatever the bot made of his seat: no win, and his rating went down.
        assert (mine["games"], mine["wins"]) == (1, 0)
        assert mine["mu"] < PlackettLuce().mu
        # His history shows the game as played, and as rated.
        (game,) = http.get(f"/v1/players/{bo}/games", headers=key).json()["games"]
        assert game["id"] == game_id
        assert game["result"]["places"][0] == 1
        assert game["rated_places"] == [2, 1]
        # The bot that beat him is above him.
        board = http.get("/v1/leaderboards/fbi", params={"around": bo}, headers=key).json()
        order = [e["external_id"] or e["bot"] for e in board["entries"]]
        assert order.index("random") < order.index(bo)
