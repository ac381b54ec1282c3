"""Rate limits: a token bucket per verified credential, else per client address (trusted
proxies only), shared by every API process; 429 problems that change nothing; never a
refusal of an act the game is waiting for; a frozen counter store adds no seconds."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from ipaddress import ip_network
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from litestar.types import HTTPScope

from service.app import create_app
from service.http.ratelimit import TIMEOUT_SECONDS, RateLimiter, client_address
from service.ops.embedded import EmbeddedRedis
from service.settings import Settings
from service.store.keys import RATE_LIMIT_PREFIX
from tests.conftest import free_port, start_worker, stop_worker
from tests.helpers import API_KEY, auth, create, text, view
from tests.processes import (
    HumanSeat,
    Processes,
    next_request,
    quick_options,
    service_env,
)

OTHER_KEY = "other-test-key"
LIMIT = 5
TOO_MANY = "urn:stakeout:problem:too-many-requests"


def _limited(settings: Settings, per_minute: int = LIMIT, burst: int = LIMIT) -> Settings:
    return replace(
        settings,
        api_keys=(API_KEY, OTHER_KEY),
        rate_limit_per_minute=per_minute,
        rate_limit_burst=burst,
    )


@pytest.fixture
def two_apis(settings: Settings) -> Iterator[tuple[Any, Any]]:
    """Two API instances (as two replicas would be) over the same Redis: 5 a minute, burst 5."""
    with ExitStack() as stack:
        one = stack.enter_context(TestClient(app=create_app(_limited(settings))))
        two = stack.enter_context(TestClient(app=create_app(_limited(settings))))
        yield one, two


def _games(client: Any, key: str = API_KEY) -> Any:
    return client.get("/v1/games", headers=auth(key))


def _refused(response: Any) -> None:
    assert response.status_code == 429, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == TOO_MANY
    assert 1 <= int(response.headers["Retry-After"]) <= 60


def test_the_limit_is_per_credential_and_shared_by_every_api_process(
    two_apis: tuple[Any, Any],
) -> None:
    one, two = two_apis
    answers = [_games(one if i % 2 else two).status_code for i in range(LIMIT)]
    assert answers == [200] * LIMIT
    _refused(_games(one))
    _refused(_games(two))
    # Another credential has a budget of its own; probes are never counted.
    assert _games(one, OTHER_KEY).status_code == 200
    assert one.get("/healthz").status_code == 200
    assert one.get("/readyz").status_code == 200


def test_a_limited_request_changes_nothing(settings: Settings, two_apis: tuple[Any, Any]) -> None:
    one, _ = two_apis
    seats = [{"type": "human"}, {"type": "bot", "level": "random"}]
    for _ in range(LIMIT - 1):
        assert _games(one).status_code == 200
    created = one.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(API_KEY))
    assert created.status_code == 201, created.text
    refused = one.post("/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(API_KEY))
    _refused(refused)
    # Read back through an unlimited instance: the key owns the one game it was allowed.
    with TestClient(app=create_app(settings)) as unlimited:
        games = _games(unlimited).json()["games"]
    assert [g["id"] for g in games] == [created.json()["id"]]


def test_requests_without_a_credential_are_counted_by_address(
    two_apis: tuple[Any, Any],
) -> None:
    one, _ = two_apis
    statuses = [one.get("/v1/rules/fbi").status_code for _ in range(LIMIT + 1)]
    assert statuses == [200] * LIMIT + [429]
    # A credential's budget is separate from its address's.
    assert _games(one).status_code == 200


def test_a_made_up_bearer_is_not_a_credential(two_apis: tuple[Any, Any]) -> None:
    """A new made-up token on every request spends the address's budget, not a fresh one."""
    one, _ = two_apis
    statuses = [
        one.get("/v1/rules/fbi", headers=auth(f"made-up-{i}")).status_code for i in range(LIMIT)
    ]
    assert statuses == [200] * LIMIT
    _refused(one.get("/v1/rules/fbi", headers=auth("made-up-again")))
    _refused(one.get("/v1/rules/fbi"))  # the same address, without a bearer: the same bucket
    assert _games(one).status_code == 200  # a real key still has its own


def test_a_seat_token_counts_as_a_credential_on_its_own_game_only(
    settings: Settings, two_apis: tuple[Any, Any]
) -> None:
    one, _ = two_apis
    with TestClient(app=create_app(settings)) as unlimited:
        mine = create(unlimited, "fbi", [{"type": "human"}, {"type": "human"}])
        other = create(unlimited, "fbi", [{"type": "human"}, {"type": "human"}])
    token = mine["seats"][0]["token"]
    for _ in range(LIMIT):
        assert one.get(f"/v1/games/{mine['id']}", headers=auth(token)).status_code == 200
    _refused(one.get(f"/v1/games/{mine['id']}", headers=auth(token)))
    # The seat's budget is spent, the address's is not: a spectator read still passes...
    assert one.get(f"/v1/games/{mine['id']}").status_code == 200
    # ...and the token is no credential on another game: there it spends the address's.
    for _ in range(LIMIT - 1):
        assert one.get(f"/v1/games/{other['id']}/events").status_code == 200
    _refused(one.get(f"/v1/games/{other['id']}", headers=auth(token)))


def test_a_burst_is_allowed_then_the_bucket_refills_at_the_rate(settings: Settings) -> None:
    with TestClient(app=create_app(_limited(settings, per_minute=120, burst=8))) as api:
        statuses = [api.get("/v1/rules").status_code for _ in range(8)]
        assert statuses == [200] * 8
        refused = api.get("/v1/rules")
        _refused(refused)
        assert refused.headers["Retry-After"] == "1"  # 2 a second: a token within 1 s
        deadline = time.monotonic() + 10
        while api.get("/v1/rules").status_code == 429:
            assert time.monotonic() < deadline, "the bucket never refilled"
            time.sleep(0.1)


# ---- the client's address: the peer, or what a trusted proxy says -----------------------


def _scope(peer: str, forwarded: list[str]) -> HTTPScope:
    headers = [(b"x-forwarded-for", value.encode()) for value in forwarded]
    # Only what client_address reads: a whole HTTPScope would need an app and a route.
    return {"client": (peer, 4000), "headers": headers}  # type: ignore[typeddict-item]


TRUSTED = (ip_network("10.0.0.0/8"), ip_network("fd00::/8"))


@pytest.mark.parametrize(
    ("peer", "forwarded", "expected"),
    [
        ("203.0.113.9", ["1.2.3.4"], "203.0.113.9"),  # untrusted peer: its header is ignored
        ("10.1.1.1", [], "10.1.1.1"),  # a proxy that says nothing
        ("10.1.1.1", ["1.2.3.4"], "1.2.3.4"),
        ("10.1.1.1", ["6.6.6.6, 1.2.3.4"], "1.2.3.4"),  # the client forged a first hop
        ("10.1.1.1", ["6.6.6.6", "1.2.3.4, 10.9.9.9"], "1.2.3.4"),  # two proxies, two headers
        ("10.1.1.1", ["garbage, 1.2.3.4"], "1.2.3.4"),
        ("10.1.1.1", ["1.2.3.4, garbage"], "10.1.1.1"),  # nothing valid after the proxy
        ("fd00::5", ["[2001:db8::1]:443"], "2001:db8::1"),
        ("10.1.1.1", ["10.2.2.2, 10.3.3.3"], "10.2.2.2"),  # every hop trusted: the farthest
    ],
)
def test_the_client_address_comes_from_trusted_proxies_only(
    peer: str, forwarded: list[str], expected: str
) -> None:
    assert client_address(_scope(peer, forwarded), TRUSTED) == expected


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Processes]:
    started = Processes(tmp_path)
    try:
        yield started
    finally:
        started.close()


def _statuses(base: str, forwarded: list[str]) -> list[int]:
    return [
        httpx.get(base + "/v1/rules", headers={"X-Forwarded-For": f}, timeout=10).status_code
        for f in forwarded
    ]


def test_x_forwarded_for_moves_a_client_to_another_bucket_only_behind_a_trusted_proxy(
    procs: Processes, clean_redis: str
) -> None:
    """A real server: uvicorn's own proxy-header handling must not pick the bucket."""
    limits = {"STAKEOUT_RATE_LIMIT_PER_MINUTE": "3", "STAKEOUT_RATE_LIMIT_BURST": "3"}
    plain = procs.api(service_env(clean_redis, **limits))
    # A client (on 127.0.0.1, not a trusted proxy) that forges a new address each time.
    assert _statuses(plain.base, [f"198.51.100.{i}" for i in range(4)]) == [200] * 3 + [429]
    behind = procs.api(service_env(clean_redis, STAKEOUT_TRUSTED_PROXIES="127.0.0.1/32", **limits))
    # Behind a trusted proxy, each client gets its own bucket, and keeps it.
    assert _statuses(behind.base, ["192.0.2.1"] * 3 + ["192.0.2.2"]) == [200] * 4
    assert _statuses(behind.base, ["192.0.2.1"]) == [429]


# ---- acts the game awaits are never refused ----------------------------------------------


def test_a_seat_out_of_budget_may_still_act_when_awaited_but_not_otherwise(
    settings: Settings,
) -> None:
    with (
        TestClient(app=create_app(settings)) as unlimited,
        TestClient(app=create_app(_limited(settings, per_minute=1, burst=1))) as limited,
    ):
        created = create(unlimited, "fbi", [{"type": "human"}, {"type": "human"}])
        game_id = created["id"]
        tokens = [s["token"] for s in created["seats"]]
        awaited = view(unlimited, game_id)["awaiting"][0]["seat"]
        idle = 1 - awaited
        for seat in (awaited, idle):  # spend both seats' budgets
            limited.get(f"/v1/games/{game_id}", headers=auth(tokens[seat]))
            _refused(limited.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])))
        move = view(unlimited, game_id, tokens[idle])["legal"] or [{"type": "fbi.release_none"}]
        refused = limited.post(
            f"/v1/games/{game_id}/moves", json=move[0], headers=auth(tokens[idle])
        )
        _refused(refused)  # not its turn, and out of budget: 429, not 409
        legal = view(unlimited, game_id, tokens[awaited])["legal"]
        accepted = limited.post(
            f"/v1/games/{game_id}/moves", json=legal[0], headers=auth(tokens[awaited])
        )
        assert accepted.status_code == 200, accepted.text


GAMES = {"fbi": 2, "feds": 4, "bonnie_clyde": 2}


@pytest.mark.parametrize("game", list(GAMES))
def test_a_human_seat_plays_a_whole_game_at_full_speed_without_a_429_on_its_acts(
    settings: Settings, game: str
) -> None:
    """Bots on the other seats (a real worker); the seat's acts go through an API whose
    bucket for it is empty the whole game (one request a minute, burst 1), and it reads
    its view through another replica; every act is accepted all the same."""
    worker = start_worker(settings.redis_url or "")
    rng = random.Random(7)
    try:
        with (
            TestClient(app=create_app(settings)) as reader,
            TestClient(app=create_app(_limited(settings, per_minute=1, burst=1))) as actor,
        ):
            seats = [{"type": "human"}] + [{"type": "bot", "level": "random"}] * (GAMES[game] - 1)
            created = create(reader, game, seats, quick_options(game))
            seat = HumanSeat(created["id"], 0, created["seats"][0]["token"])
            actor.get(f"/v1/games/{seat.game_id}", headers=auth(seat.token))  # the one token
            acts = 0
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                seen = view(reader, seat.game_id, seat.token)
                if seen["status"] == "finished":
                    break
                request = next_request(seat, seen, rng)
                if request is None:
                    time.sleep(0.01)  # the bots' turn: poll again at once
                    continue
                path, body = request
                response = actor.post(path, json=body, headers=auth(seat.token))
                assert response.status_code == 200, (acts, response.status_code, response.text)
                acts += 1
            else:
                raise AssertionError("the game did not finish in time")
            assert acts > 0
            # The bucket was empty all along: a read through the same API is refused.
            _refused(actor.get(f"/v1/games/{seat.game_id}", headers=auth(seat.token)))
    finally:
        stop_worker(worker)


# ---- a dead or frozen counter store ------------------------------------------------------


def test_an_unreachable_counter_store_lets_requests_through() -> None:
    limiter = RateLimiter(f"redis://127.0.0.1:{free_port()}/0", 1)
    assert asyncio.run(limiter.retry_after("someone")) is None


def test_a_frozen_counter_store_adds_no_seconds(tmp_path: Path) -> None:
    """Valkey stopped with SIGSTOP: connections open, nothing answers (the limiter used to
    wait out redis-py's 5 s timeout, and retry)."""
    server = EmbeddedRedis(tmp_path / "valkey")
    url = server.start()
    pid = server._server._process.pid
    try:

        async def scenario() -> tuple[int | None, float, list[int | None], float]:
            limiter = RateLimiter(url, 1, 1)
            assert await limiter.retry_after("a") is None  # connected, one token taken
            assert await limiter.retry_after("a") is not None  # the bucket works
            os.kill(pid, signal.SIGSTOP)
            started = time.monotonic()
            first = await limiter.retry_after("a")
            first_took = time.monotonic() - started
            started = time.monotonic()
            more = [await limiter.retry_after("a") for _ in range(20)]
            more_took = time.monotonic() - started
            return first, first_took, more, more_took

        first, first_took, more, more_took = asyncio.run(scenario())
    finally:
        os.kill(pid, signal.SIGCONT)
        server.stop()
    assert first is None  # failed open
    assert first_took < 8 * TIMEOUT_SECONDS, first_took  # bounded by the limiter's timeout
    assert more == [None] * 20
    assert more_took < 8 * TIMEOUT_SECONDS, more_took  # open: not waited for again


# ---- leases: counting without a round trip per request ------------------------------------


def test_processes_take_tokens_in_leases_and_together_never_exceed_the_bucket(
    settings: Settings,
) -> None:
    """Burst 200 (leases of 10), a refill too slow to matter: two limiters (two processes)
    alternating let exactly the bucket's 200 requests through between them, and the shared
    bucket is counted once per lease, not once per request."""
    url = settings.redis_url
    assert url is not None

    async def scenario() -> tuple[list[bool], float, list[bool]]:
        one, two = RateLimiter(url, 1, 200), RateLimiter(url, 1, 200)
        try:
            assert one.lease_size == 10
            first = await one.retry_after("key:leased")
            raw = await one._redis.hget(RATE_LIMIT_PREFIX + "key:leased", "tokens")
            allowed = [first is None]
            for i in range(399):
                limiter = two if i % 2 == 0 else one
                allowed.append(await limiter.retry_after("key:leased") is None)
            # Another identity has its own bucket and leases.
            other = [await one.retry_after("key:other") is None for _ in range(3)]
            return allowed, float(text(raw)), other
        finally:
            await one.close()
            await two.close()

    allowed, after_first, other = asyncio.run(scenario())
    assert after_first == 190  # the first request took a lease of 10: 1 spent, 9 held
    assert sum(allowed) == 200
    assert allowed[:200] == [True] * 200
    assert other == [True] * 3


def test_a_small_burst_is_counted_request_by_request(settings: Settings) -> None:
    url = settings.redis_url
    assert url is not None

    async def scenario() -> tuple[int, list[bool]]:
        one, two = RateLimiter(url, 1, 39), RateLimiter(url, 1, 39)
        try:
            answers = [
                await (one if i % 2 else two).retry_after("key:small") is None for i in range(40)
            ]
            return one.lease_size, answers
        finally:
            await one.close()
            await two.close()

    lease, answers = asyncio.run(scenario())
    assert lease == 1
    assert answers == [True] * 39 + [False]
