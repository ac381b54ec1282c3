"""Schemathesis against the real server: every operation of the committed contract with
all checks, and a stateful run that follows the OpenAPI links from creating a game to
committing and revealing."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings

from tests.helpers import API_KEY

CONTRACT = Path(__file__).resolve().parents[2] / "openapi" / "v1.json"
LABELS = sorted(
    f"{method.upper()} {path}"
    for path, item in json.loads(CONTRACT.read_text())["paths"].items()
    for method in item
    # The live feed stays open until its game ends, which would block schemathesis's
    # reader; tests/e2e/test_live_and_replay.py covers it with a real streaming client.
    # The account feed never ends by itself (tests/e2e/test_account_feed.py covers it).
    if not path.startswith("/schema") and not path.endswith("/stream") and path != "/v1/feed"
)
SETTINGS = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
TOKENS: dict[str, str] = {}
CLAIMS: list[str] = []


@pytest.fixture(scope="module")
def api_schema(server_url: str) -> Any:
    return schemathesis.openapi.from_url(f"{server_url}/schema/openapi.json")


def _short_waits(case: Any) -> None:
    """A view read may wait up to 30 s for a new version (long-poll, `wait`); schemathesis
    times a request out after 10 s, and hundreds of generated reads must not each wait. So a
    generated wait within the bounds is cut to 1 s; values outside 0..30 are sent as
    generated, so the bounds are still checked. tests/integration/test_live_shared.py
    covers the long-poll itself."""
    query = case.query
    if isinstance(query, dict) and isinstance(query.get("wait"), int) and 1 < query["wait"] <= 30:
        query["wait"] = 1


_PLAYERS = itertools.count()


def _own_player(case: Any) -> None:
    """Each generated ticket of the stateful run for a player of its own: a player waits in
    at most a few queues (STAKEOUT_MAX_PLAYER_TICKETS), so tickets of the same generated id
    (from this run's earlier examples or the tests before it) would be refused or not by
    what the server holds, and which links the run may follow would depend on that
    (hypothesis: "inconsistent data generation"). An id made invalid stays invalid."""
    body = case.body
    if case.operation.label != "POST /v1/matchmaking/tickets" or not isinstance(body, dict):
        return
    player = body.get("player")
    if not isinstance(player, dict):
        return
    external_id = player.get("external_id")
    if isinstance(external_id, str) and external_id:
        player["external_id"] = f"{external_id}-{next(_PLAYERS)}"


def _headers(case: Any) -> dict[str, str]:
    game_id = (case.path_parameters or {}).get("game_id")
    token = TOKENS.get(game_id, API_KEY) if game_id else API_KEY
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("label", LABELS)
def test_every_operation_conforms(api_schema: Any, label: str) -> None:
    operation = api_schema.find_operation_by_label(label)
    assert operation is not None, label

    @SETTINGS
    @given(case=operation.as_strategy())
    def check(case: Any) -> None:
        _short_waits(case)
        headers = case.headers or {}
        if "Authorization" not in headers:
            headers = {**headers, **_headers(case)}
        case.call_and_validate(headers=headers)

    check()


def test_stateful_create_then_play(api_schema: Any) -> None:
    base = api_schema.as_state_machine()

    class Machine(base):  # type: ignore[misc,valid-type]
        def before_call(self, case: Any) -> None:
            _short_waits(case)
            _own_player(case)

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"headers": _headers(case)}

        def after_call(self, response: Any, case: Any) -> None:
            if case.operation.label == "POST /v1/games" and response.status_code == 201:
                body = response.json()
                humans = [s["token"] for s in body["seats"] if s["token"]]
                if humans:
                    TOKENS[body["id"]] = humans[0]
            if case.operation.label == "POST /v1/invites/{code}" and response.status_code == 201:
                body = response.json()  # the claimer plays its seat from here
                TOKENS[body["game_id"]] = body["token"]
                CLAIMS.append(body["game_id"])

    Machine.run(
        settings=settings(
            max_examples=30,
            deadline=None,
            derandomize=True,
            stateful_step_count=8,
            suppress_health_check=list(HealthCheck),
        )
    )
    assert TOKENS, "the stateful run never created a game"
