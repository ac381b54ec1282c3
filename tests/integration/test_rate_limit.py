"""Rate limits: per credential, shared by every API process, 429 problems that change nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from typing import Any

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.ratelimit import RateLimiter
from service.settings import Settings
from tests.conftest import free_port
from tests.helpers import API_KEY, auth

OTHER_KEY = "other-test-key"
LIMIT = 5


@pytest.fixture
def two_apis(settings: Settings) -> Iterator[tuple[Any, Any]]:
    """Two API instances (as two replicas would be) over the same Redis, limit 5/minute."""
    limited = replace(settings, api_keys=(API_KEY, OTHER_KEY), rate_limit_per_minute=LIMIT)
    with ExitStack() as stack:
        one = stack.enter_context(TestClient(app=create_app(limited)))
        two = stack.enter_context(TestClient(app=create_app(limited)))
        yield one, two


def _games(client: Any, key: str = API_KEY) -> Any:
    return client.get("/v1/games", headers=auth(key))


def test_the_limit_is_per_credential_and_shared_by_every_api_process(
    two_apis: tuple[Any, Any],
) -> None:
    one, two = two_apis
    answers = [_games(one if i % 2 else two).status_code for i in range(LIMIT)]
    assert answers == [200] * LIMIT
    over = _games(one)
    assert over.status_code == 429, over.text
    assert over.headers["content-type"].startswith("application/problem+json")
    assert over.json()["type"] == "urn:stakeout:problem:too-many-requests"
    assert 1 <= int(over.headers["Retry-After"]) <= 60
    assert _games(two).status_code == 429
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
    assert refused.status_code == 429
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


def test_an_unreachable_counter_store_lets_requests_through() -> None:
    limiter = RateLimiter(f"redis://127.0.0.1:{free_port()}/0", 1)
    assert asyncio.run(limiter.retry_after("someone")) is None
