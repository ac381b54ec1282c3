"""Matchmaking tickets through the API, matched by the matcher's passes (run here, in the
test's own event loop, as a game worker runs them)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
import redis
from litestar import Litestar
from litestar.testing import TestClient

from domain.match import SeatSpec
from service.app import create_app
from service.matchmaking.grouping import BASE_WINDOW, WIDEN_PER_SECOND
from service.matchmaking.matcher import Matcher, MatchNotifier, Passed
from service.matchmaking.tickets import MatchRecord, seat_token
from service.play.access import ApiKeys
from service.players.ratings import DISPLAY_SCALE
from service.settings import Settings
from service.store.keys import DELIVERIES
from service.wiring import open_wiring
from tests.helpers import API_KEY, auth, fields_of
from tests.integration.test_players_api import _rate

OTHER_KEY = "another-tenants-key"


@pytest.fixture
def two_keys(clean_redis: str) -> Settings:
    return Settings(redis_url=clean_redis, api_keys=(API_KEY, OTHER_KEY), rate_limit_per_minute=0)


@pytest.fixture
def api(two_keys: Settings) -> Iterator[TestClient[Litestar]]:
    with TestClient(app=create_app(two_keys)) as test_client:
        yield test_client


def match_pass(settings: Settings, at_ms: int | None = None) -> Passed:
    """One pass of a matcher, as a game worker runs it."""

    async def one() -> Passed:
        async with open_wiring(settings) as wiring:
            notifier = MatchNotifier(wiring.webhooks, wiring.account_feed, wiring.deliveries)
            matcher = Matcher(wiring.match_tickets, wiring.maker, notifier, "test-matcher")
            return await matcher.pass_once(at_ms or int(time.time() * 1000))

    return asyncio.run(one())


def ticket(api: Any, player: str, key: str = API_KEY, **body: Any) -> dict[str, Any]:
    response = api.post(
        "/v1/matchmaking/tickets",
        json={"game": "fbi", "player": {"external_id": player, "name": player.title()}, **body},
        headers=auth(key),
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def read(api: Any, made: dict[str, Any], with_key: str | None = None) -> dict[str, Any]:
    token = with_key or made["secret"]
    response = api.get(f"/v1/matchmaking/tickets/{made['id']}", headers=auth(token))
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_two_players_are_matched_and_each_gets_its_seat_and_token(
    api: Any, two_keys: Settings
) -> None:
    ann, bob = ticket(api, "ann", seats=[2]), ticket(api, "bob", seats=[2])
    assert ann["status"] == "waiting"
    assert ann["match"] is None
    assert ann["secret"].startswith("mmt_")
    assert ann["seats"] == [2]
    assert ann["options"]  # defaults filled in
    passed = match_pass(two_keys)
    assert (passed.games, passed.seated) == (1, 2)
    seen = [read(api, ann), read(api, bob)]
    assert {s["status"] for s in seen} == {"matched"}
    (game_id,) = {s["match"]["game_id"] for s in seen}
    assert sorted(s["match"]["seat"] for s in seen) == [0, 1]
    for made, got in zip((ann, bob), seen, strict=True):
        assert got["match"]["token"] == seat_token(made["secret"])
        assert read(api, made) == got  # the same token on every read
        view = api.get(f"/v1/games/{game_id}", headers=auth(got["match"]["token"])).json()
        assert view["you"] == got["match"]["seat"]
        assert view["seats"][view["you"]]["external_id"] == got["player"]["external_id"]
    # Its API key sees where it sits, not the token; another key sees no such ticket.
    assert read(api, ann, with_key=API_KEY)["match"]["token"] is None
    other = api.get(f"/v1/matchmaking/tickets/{ann['id']}", headers=auth(OTHER_KEY))
    assert other.status_code == 404
    assert other.json()["type"] == "urn:stakeout:problem:unknown-ticket"
    assert api.get(f"/v1/matchmaking/tickets/{ann['id']}").status_code == 401
    wrong = api.get(f"/v1/matchmaking/tickets/{ann['id']}", headers=auth(bob["secret"]))
    assert wrong.status_code == 401
    # Too late to cancel.
    late = api.delete(f"/v1/matchmaking/tickets/{ann['id']}", headers=auth(ann["secret"]))
    assert late.status_code == 409
    assert late.json()["type"] == "urn:stakeout:problem:ticket-matched"
    assert read(api, ann) == seen[0]  # still readable, matched, with its token
    assert match_pass(two_keys).games == 0  # matched once


def test_a_cancelled_ticket_is_never_matched(api: Any, two_keys: Settings) -> None:
    ann, bob = ticket(api, "ann", seats=[2]), ticket(api, "bob", seats=[2])
    cancelled = api.delete(f"/v1/matchmaking/tickets/{ann['id']}", headers=auth(API_KEY))
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    # Cancelled is gone: the DELETE's answer was its last read, for the secret and the key.
    for token in (ann["secret"], API_KEY):
        for method in ("GET", "DELETE"):
            gone = api.request(method, f"/v1/matchmaking/tickets/{ann['id']}", headers=auth(token))
            assert gone.status_code == 404, (method, gone.text)
            assert gone.json()["type"] == "urn:stakeout:problem:unknown-ticket"
    # A wrong credential is still told so, not that there is no such ticket.
    assert api.get(f"/v1/matchmaking/tickets/{ann['id']}").status_code == 401
    assert match_pass(two_keys).games == 0
    assert read(api, bob)["status"] == "waiting"


def test_a_cancel_racing_the_seating_wins_or_loses_whole(api: Any, two_keys: Settings) -> None:
    """The seating script refuses a group with a ticket cancelled after the group was
    planned: no ticket of it is seated, and the others are matched on the next pass."""
    ann, bob, cy = (ticket(api, p, seats=[2]) for p in ("ann", "bob", "cy"))
    owner = ApiKeys((API_KEY,)).identify(API_KEY) or ""
    api.delete(f"/v1/matchmaking/tickets/{ann['id']}", headers=auth(ann["secret"]))

    async def seat_planned() -> list[str]:
        async with open_wiring(two_keys) as wiring:
            record = MatchRecord(
                owner, "fbi", {}, [SeatSpec("human")] * 2, [None, None],
                [(ann["id"], 0), (bob["id"], 1)], 0,
            )  # fmt: skip
            return await wiring.match_tickets.seat(record, "a" * 24, int(time.time() * 1000))

    assert asyncio.run(seat_planned()) == [ann["id"]]
    assert read(api, bob)["status"] == "waiting"
    assert match_pass(two_keys).games == 1
    assert read(api, bob)["match"]["game_id"] == read(api, cy)["match"]["game_id"]
    gone = api.get(f"/v1/matchmaking/tickets/{ann['id']}", headers=auth(ann["secret"]))
    assert gone.status_code == 404


def test_bots_fill_the_seats_after_the_wait(api: Any, two_keys: Settings) -> None:
    alone = ticket(api, "ann", seats=[3], bots_after_seconds=5, bot_level="expert")
    assert match_pass(two_keys).games == 0  # it waits for people first
    later = int(time.time() * 1000) + 6000
    assert match_pass(two_keys, later).games == 1
    game_id = read(api, alone)["match"]["game_id"]
    seats = api.get(f"/v1/games/{game_id}", headers=auth(API_KEY)).json()["seats"]
    assert sorted((s["type"], s["level"]) for s in seats) == [
        ("bot", "expert"),
        ("bot", "expert"),
        ("human", None),
    ]


def test_tickets_without_bots_wait_and_expire(api: Any, two_keys: Settings) -> None:
    alone = ticket(api, "ann", expires_in_seconds=10)
    assert match_pass(two_keys, int(time.time() * 1000) + 9000).games == 0
    assert read(api, alone)["status"] == "waiting"
    passed = match_pass(two_keys, int(time.time() * 1000) + 11000)
    assert (passed.games, passed.expired) == (0, 1)
    cancel = api.delete(f"/v1/matchmaking/tickets/{alone['id']}", headers=auth(alone["secret"]))
    assert cancel.json()["status"] == "expired"


def test_only_compatible_tickets_of_one_api_key_and_distinct_players_meet(
    api: Any, two_keys: Settings
) -> None:
    made = [
        ticket(api, "ann", seats=[2]),
        ticket(api, "ann", seats=[2]),  # the same player again
        ticket(api, "bob", key=OTHER_KEY, seats=[2]),  # another tenant
        ticket(api, "cy", seats=[3]),  # another seat count
        ticket(api, "dee", seats=[2], options={"variant": "stacked"}),  # other options
    ]
    assert match_pass(two_keys).games == 0
    assert all(read(api, m)["status"] == "waiting" for m in made)
    eve = ticket(api, "eve", seats=[2, 3])
    assert match_pass(two_keys).games == 1
    mine = read(api, eve)
    with_eve = [m for m in made if read(api, m)["status"] == "matched"]
    assert len(with_eve) == 1
    assert read(api, with_eve[0])["match"]["game_id"] == mine["match"]["game_id"]
    assert with_eve[0]["player"]["external_id"] in ("ann", "cy")


def test_the_rating_window_widens_with_waiting(api: Any, two_keys: Settings) -> None:
    owner = ApiKeys((API_KEY,)).identify(API_KEY) or ""
    wins = [
        ([SeatSpec("human", None, None, "strong"), SeatSpec("human", None, None, f"x{i}")], [1, 2])
        for i in range(20)
    ]
    _rate(two_keys.redis_url or "", owner, wins)
    strong = ticket(api, "strong", seats=[2])
    weak = ticket(api, "weak", seats=[2])
    gap = 0.0

    async def mu_gap() -> float:
        async with open_wiring(two_keys) as wiring:
            found = await wiring.match_tickets.many(owner, [strong["id"], weak["id"]])
            return abs(found[0].spec.mu - found[1].spec.mu) * DISPLAY_SCALE

    gap = asyncio.run(mu_gap())
    assert gap > BASE_WINDOW + 20
    now = int(time.time() * 1000)
    assert match_pass(two_keys, now + 1000).games == 0
    # The window grows by WIDEN_PER_SECOND a second: once it spans the gap, they meet.
    due = (gap - BASE_WINDOW) / WIDEN_PER_SECOND
    assert match_pass(two_keys, now + int(due * 1000) + 2000).games == 1
    assert read(api, strong)["match"]["game_id"] == read(api, weak)["match"]["game_id"]


def test_a_match_left_half_made_is_made_by_a_later_pass(api: Any, two_keys: Settings) -> None:
    ann, bob = ticket(api, "ann", seats=[2]), ticket(api, "bob", seats=[2])
    owner = ApiKeys((API_KEY,)).identify(API_KEY) or ""
    game_id = "b" * 24

    async def seat_and_die() -> None:
        async with open_wiring(two_keys) as wiring:
            found = await wiring.match_tickets.many(owner, [ann["id"], bob["id"]])
            seats = [SeatSpec("human", None, t.spec.name, t.spec.external_id) for t in found]
            record = MatchRecord(
                owner, "fbi", found[0].spec.options, seats, [t.token_hash for t in found],
                [(found[0].id, 0), (found[1].id, 1)], 0,
            )  # fmt: skip
            assert await wiring.match_tickets.seat(record, game_id, int(time.time() * 1000)) == []

    asyncio.run(seat_and_die())
    assert read(api, ann)["status"] == "matching"
    # A DELETE losing to the seating is refused, and the ticket stays as it is.
    late = api.delete(f"/v1/matchmaking/tickets/{ann['id']}", headers=auth(API_KEY))
    assert late.status_code == 409
    assert late.json()["type"] == "urn:stakeout:problem:ticket-matched"
    assert read(api, ann)["status"] == "matching"
    assert match_pass(two_keys).recovered == 0  # not stale yet
    passed = match_pass(two_keys, int(time.time() * 1000) + 20_000)
    assert (passed.recovered, passed.games) == (1, 1)
    token = read(api, ann)["match"]["token"]
    assert api.get(f"/v1/games/{game_id}", headers=auth(token)).json()["you"] == 0


def test_a_key_at_its_quota_keeps_its_tickets_waiting(clean_redis: str) -> None:
    settings = Settings(
        redis_url=clean_redis, api_keys=(API_KEY,), rate_limit_per_minute=0, max_active_games=1
    )
    with TestClient(app=create_app(settings)) as api:
        bots = [{"type": "human"}, {"type": "human"}]
        made = api.post("/v1/games", json={"game": "fbi", "seats": bots}, headers=auth(API_KEY))
        assert made.status_code == 201
        ann, bob = ticket(api, "ann", seats=[2]), ticket(api, "bob", seats=[2])
        passed = match_pass(settings)
        assert (passed.games, len(passed.held_back)) == (0, 1)
        assert {read(api, ann)["status"], read(api, bob)["status"]} == {"waiting"}


def test_match_found_goes_to_the_feed_and_the_webhooks(api: Any, two_keys: Settings) -> None:
    assert api.post("/v1/feed/tickets", headers=auth(API_KEY)).status_code == 201
    hook = api.post(
        "/v1/webhooks",
        json={"url": "https://example.com/hook", "events": ["match.found"]},
        headers=auth(API_KEY),
    )
    assert hook.status_code == 201, hook.text
    time.sleep(1.1)  # the feed's "in use" flag is read at most once a second
    ann, bob = ticket(api, "ann", seats=[2]), ticket(api, "bob", seats=[2])
    match_pass(two_keys)
    game_id = read(api, ann)["match"]["game_id"]
    connection = redis.Redis.from_url(two_keys.redis_url or "")
    feed = [
        msgspec.json.decode(fields[b"n"])
        for fields in fields_of(
            connection.xrange(f"owner:{{{ApiKeys((API_KEY,)).identify(API_KEY)}}}:feed")
        )
    ]
    found = [n for n in feed if n["kind"] == "match.found"]
    assert sorted(n["ticket_id"] for n in found) == sorted([ann["id"], bob["id"]])
    assert {n["game_id"] for n in found} == {game_id}
    for note in found:
        assert seat_token(ann["secret"]) not in str(note)
        assert seat_token(bob["secret"]) not in str(note)
    rows: Any = connection.xrange(DELIVERIES)  # the delivery queue (one Redis in this test)
    queued = [(f[b"h"].decode(), msgspec.json.decode(f[b"n"])) for _, f in rows]
    assert sorted((hook, n["kind"], n["ticket_id"]) for hook, n in queued) == sorted(
        (hook.json()["id"], "match.found", t["id"]) for t in (ann, bob)
    )
    assert {n["game_id"] for _, n in queued} == {game_id}
    connection.close()


def test_bad_tickets_are_refused(api: Any) -> None:
    def post(body: dict[str, Any], key: str | None = API_KEY) -> Any:
        headers = auth(key) if key else {}
        return api.post("/v1/matchmaking/tickets", json=body, headers=headers)

    player = {"external_id": "ann"}
    assert post({"game": "fbi", "player": player}, key=None).status_code == 401
    assert post({"game": "fbi", "player": player, "seats": [9]}).status_code == 422
    assert post({"game": "fbi", "player": player, "bots_after_seconds": 0}).status_code == 400
    assert post({"game": "fbi", "player": player, "seats": []}).status_code == 400
    assert post({"game": "fbi", "player": {"external_id": ""}}).status_code == 400
    assert post({"game": "fbi", "player": player, "bots_after_seconds": -1}).status_code == 400
    assert post({"game": "chess", "player": player}).status_code == 400
    missing = api.get("/v1/matchmaking/tickets/" + "c" * 24, headers=auth(API_KEY))
    assert missing.status_code == 404
