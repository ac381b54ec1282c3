"""Clocks (time banks, issue 34 §1) against a real Redis and real RQ worker processes.

Every expected bank is worked out here from the event log's own times (``at_ms``), never
from this process's clock: the view's ``server_time_ms`` is the only "now" used.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import msgspec
import pytest

from domain.sealed import commitment
from domain.verify import ReplayDocument, VerificationError, verify
from tests.helpers import API_KEY, auth, view, wait_for
from tests.integration.test_matchmaking import api, match_pass, read, ticket, two_keys
from tests.integration.test_webhooks import fast_client
from tests.receiver import Receiver

__all__ = ["api", "fast_client", "two_keys"]  # other tests' fixtures, used here too

HUMANS2 = [{"type": "human"}, {"type": "human"}]
HUMAN_AND_BOTS = [{"type": "human"}] + [{"type": "bot", "level": "random"}] * 3


def _create(client: Any, seats: list[dict[str, Any]], clock: dict[str, Any]) -> dict[str, Any]:
    response = client.post(
        "/v1/games", json={"game": "fbi", "seats": seats, "clock": clock}, headers=auth(API_KEY)
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def _events(client: Any, game_id: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        page = client.get(
            f"/v1/games/{game_id}/events", params={"after": after, "limit": 500}
        ).json()
        out += page["events"]
        if not page["has_more"]:
            return out
        after = page["next_after"]


def _at(client: Any, game_id: str, version: int) -> int:
    """The time the log records for ``version``."""
    at: int = next(e["at_ms"] for e in _events(client, game_id) if e["version"] == version)
    return at


def _clocks(seen: dict[str, Any]) -> list[tuple[int, bool]]:
    return [(s["clock"]["remaining_ms"], s["clock"]["running"]) for s in seen["seats"]]


def _commit(client: Any, game_id: str, token: str, seat: int, step: str) -> tuple[Any, Any]:
    move = view(client, game_id, token)["legal"][0]
    salt = f"{seat:02d}" * 16
    digest = commitment(game_id, step, seat, move, salt)
    answer = client.post(
        f"/v1/games/{game_id}/commitments", json={"commitment": digest}, headers=auth(token)
    )
    assert answer.status_code == 200, answer.text
    return answer.json(), (move, salt)


def test_banks_are_charged_while_awaited_in_public_and_sealed_steps_and_credited(
    client: Any,
) -> None:
    cap, increment = 600_000, 1_000
    created = _create(
        client, HUMANS2, {"initial_seconds": 600, "increment_seconds": 1, "on_time_out": "lose"}
    )
    game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
    opened = _at(client, game_id, created["version"])
    seen = view(client, game_id, tokens[0])
    # The view says the clock the game was made with, for each seat's share of its bank.
    clock = {"initial_seconds": 600, "increment_seconds": 1, "on_time_out": "lose"}
    assert seen["clock"] == clock
    assert view(client, game_id, None)["clock"] == clock  # a spectator's too
    assert seen["awaiting"][0]["deadline"] == opened + cap  # the moment the flag falls
    # The first seat is awaited from the opening on: its bank runs, the other's does not.
    first = seen["awaiting"][0]["seat"]
    elapsed = max(0, seen["server_time_ms"] - opened)
    expected = [(cap, False), (cap, False)]
    expected[first] = (cap - elapsed, True)
    assert _clocks(seen) == expected

    # Public steps: each seat releases in turn (FBI's opening), each charged its own wait.
    banks, since = [cap, cap], opened
    for seat in (first, 1 - first):
        move = view(client, game_id, tokens[seat])["legal"][0]
        answer = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.text
        at = answer.json()["events"][0]["at_ms"]
        banks[seat] = min(cap, banks[seat] - (at - since) + increment)  # capped at the start
        since = at
    seen = view(client, game_id, tokens[0])
    step = next(a["step"] for a in seen["awaiting"] if a["action"] == "commit")
    assert {a["seat"] for a in seen["awaiting"]} == {0, 1}  # a sealed step: both owe
    elapsed = max(0, seen["server_time_ms"] - since)
    assert _clocks(seen) == [(banks[0] - elapsed, True), (banks[1] - elapsed, True)]

    # Seat 0 commits: both seats were charged since the step began; seat 1 still runs.
    answer, _ = _commit(client, game_id, tokens[0], 0, step)
    at = answer["events"][0]["at_ms"]
    banks = [min(cap, banks[0] - (at - since) + increment), banks[1] - (at - since)]
    seen = view(client, game_id, tokens[1])
    elapsed = max(0, seen["server_time_ms"] - at)
    assert _clocks(seen) == [(banks[0], False), (banks[1] - elapsed, True)]
    assert banks[1] < cap


def test_a_clock_with_turn_seconds_or_away_seconds_and_bad_clocks_are_refused(client: Any) -> None:
    body = {"game": "fbi", "seats": HUMANS2}
    for clock in (
        {"initial_seconds": 4},
        {"initial_seconds": 31 * 24 * 3600},
        {"initial_seconds": 60, "increment_seconds": -1},
        {"initial_seconds": 60, "on_time_out": "resign"},
        {"initial_seconds": 60, "extra": 1},
    ):
        answer = client.post("/v1/games", json={**body, "clock": clock}, headers=auth(API_KEY))
        assert answer.status_code == 400, (clock, answer.text)
        assert answer.headers["content-type"].startswith("application/problem+json")
    for other in ({"turn_seconds": 30}, {"away_seconds": 60}):
        both = {**body, "clock": {"initial_seconds": 60}, **other}
        answer = client.post("/v1/games", json=both, headers=auth(API_KEY))
        assert answer.status_code == 422, answer.text
        assert answer.json()["type"].endswith(":invalid-options"), answer.text
    assert client.get("/v1/games", headers=auth(API_KEY)).json()["games"] == []
    # Days are fine: correspondence play.
    days = {**body, "clock": {"initial_seconds": 3 * 24 * 3600, "increment_seconds": 86400}}
    assert client.post("/v1/games", json=days, headers=auth(API_KEY)).status_code == 201


def _flagged(client: Any, game_id: str) -> list[dict[str, Any]]:
    return [e for e in _events(client, game_id) if e["event"]["type"] == "clock.flagged"]


def test_bot_seat_a_bot_plays_on_and_verify_rederives_it_and_refuses_a_forged_early_flag(
    client: Any, worker: subprocess.Popen[bytes]
) -> None:
    created = _create(client, HUMAN_AND_BOTS, {"initial_seconds": 5, "on_time_out": "bot_seat"})
    game_id, token = created["id"], created["seats"][0]["token"]
    opened = _at(client, game_id, created["version"])
    flag = wait_for(lambda: _flagged(client, game_id), timeout=60)[0]
    assert flag["event"] == {"type": "clock.flagged", "seat": 0, "on_time_out": "bot_seat"}
    assert flag["at_ms"] >= opened + 5_000  # never before the bank was empty, by the log
    # Seat 0 was awaited from the act before its flag on: its bank ran out 5 s later.
    due = _at(client, game_id, flag["version"] - 1) + 5_000
    assert flag["at_ms"] >= due
    print(f"flag fell {flag['at_ms'] - due} ms after it was due")
    after = [e for e in _events(client, game_id) if e["version"] == flag["version"] + 1]
    assert after[0]["event"]["type"] == "turn.timed_out"
    seen = view(client, game_id, token)
    assert seen["seats"][0]["type"] == "bot"
    assert seen["seats"][0]["clock"] == {"remaining_ms": 0, "running": False}
    refused = client.post(
        f"/v1/games/{game_id}/commitments", json={"commitment": "00" * 32}, headers=auth(token)
    )
    assert refused.status_code == 403, refused.text
    # The bot plays the seat to the end; the replay re-derives the banks and the time-out.
    wait_for(lambda: view(client, game_id)["status"] == "finished", timeout=120)
    replay = msgspec.json.decode(
        client.get(f"/v1/games/{game_id}/replay").content, type=ReplayDocument
    )
    assert verify(replay).game_id == game_id
    # Forged: the same time-out recorded 1 ms before the bank ran out.
    forged = msgspec.structs.replace(
        replay,
        events=[
            msgspec.structs.replace(r, at_ms=opened + 4_999)
            if r.version in (flag["version"], flag["version"] + 1)
            else r
            for r in replay.events
        ],
    )
    with pytest.raises(VerificationError, match="still has time"):
        verify(forged)


def test_lose_ranks_the_seat_last_whatever_its_bot_made(
    client: Any, worker: subprocess.Popen[bytes]
) -> None:
    created = _create(client, HUMAN_AND_BOTS, {"initial_seconds": 5, "on_time_out": "lose"})
    game_id = created["id"]
    wait_for(lambda: _flagged(client, game_id), timeout=60)
    finished = wait_for(
        lambda: (v := view(client, game_id))["status"] == "finished" and v, timeout=120
    )
    listed = client.get("/v1/games", headers=auth(API_KEY)).json()["games"]
    summary = next(g for g in listed if g["id"] == game_id)
    places = summary["rated_places"]
    assert places is not None, summary
    assert places[0] == max(places)  # last
    assert places.count(places[0]) == 1  # alone
    assert finished["seats"][0]["type"] == "bot"


def test_bot_turn_plays_one_turn_and_the_seat_plays_on_with_its_increment(
    client: Any, worker: subprocess.Popen[bytes]
) -> None:
    clock = {"initial_seconds": 8, "increment_seconds": 600, "on_time_out": "bot_turn"}
    created = _create(client, HUMAN_AND_BOTS, clock)
    game_id, token = created["id"], created["seats"][0]["token"]
    flag = wait_for(lambda: _flagged(client, game_id), timeout=60)[0]
    assert flag["event"]["on_time_out"] == "bot_turn"

    def my_turn_again() -> dict[str, Any] | None:
        seen = view(client, game_id, token)
        mine = [a for a in seen["awaiting"] if a["seat"] == 0]
        return seen if mine and seen["version"] > flag["version"] + 1 else None

    seen = wait_for(my_turn_again, timeout=60)
    assert seen["seats"][0]["type"] == "human"  # still the player's seat
    # The time-out credited the increment, capped at the initial bank: 8 s again.
    remaining, running = _clocks(seen)[0]
    assert running
    assert 0 < remaining <= 8_000
    action = next(a for a in seen["awaiting"] if a["seat"] == 0)
    if action["action"] == "move":
        answer = client.post(
            f"/v1/games/{game_id}/moves", json=seen["legal"][0], headers=auth(token)
        )
    else:
        answer = client.post(
            f"/v1/games/{game_id}/commitments",
            json={
                "commitment": commitment(game_id, action["step"], 0, seen["legal"][0], "ab" * 16)
            },
            headers=auth(token),
        )
    assert answer.status_code == 200, answer.text


def test_matched_games_get_the_default_clock_unless_their_tickets_name_one(
    api: Any, two_keys: Any
) -> None:
    ann, bob = ticket(api, "ann", seats=[2]), ticket(api, "bob", seats=[2])
    default: dict[str, Any] = {
        "initial_seconds": 300,
        "increment_seconds": 10,
        "on_time_out": "bot_seat",
    }
    assert ann["clock"] == default
    slow: dict[str, Any] = {
        "initial_seconds": 3 * 86400,
        "increment_seconds": 86400,
        "on_time_out": "lose",
    }
    cy, dee = ticket(api, "cy", seats=[2], clock=slow), ticket(api, "dee", seats=[2], clock=slow)
    eve = ticket(api, "eve", seats=[2], clock={**slow, "on_time_out": "bot_turn"})
    assert match_pass(two_keys).games == 2  # a ticket meets only tickets of its clock
    assert read(api, eve)["status"] == "waiting"
    for pair, clock in (((ann, bob), default), ((cy, dee), slow)):
        (game_id,) = {read(api, t)["match"]["game_id"] for t in pair}
        assert {read(api, t)["match"]["game_id"] for t in pair} == {game_id}
        created = _events(api, game_id)[0]["event"]
        assert created["type"] == "game.created"
        assert created["clock"] == clock  # in the log, so a replay re-derives the banks
        seen = api.get(f"/v1/games/{game_id}").json()
        awaited = seen["awaiting"][0]
        assert seen["seats"][awaited["seat"]]["clock"]["running"] is True
        assert awaited["deadline"] == _at(api, game_id, 1) + clock["initial_seconds"] * 1000
    bad = api.post(
        "/v1/matchmaking/tickets",
        json={"game": "fbi", "player": {"external_id": "fay"}, "clock": {"initial_seconds": 1}},
        headers=auth(API_KEY),
    )
    assert bad.status_code == 400, bad.text


@pytest.mark.usefixtures("webhook_worker", "worker")
def test_seat_awaited_carries_the_seats_bank_as_the_log_charged_it(fast_client: Any) -> None:
    receiver = Receiver()
    try:
        client, cap = fast_client, 600_000
        created = _create(client, HUMANS2, {"initial_seconds": 600})
        game_id, tokens = created["id"], [s["token"] for s in created["seats"]]
        hook = {"url": receiver.url, "events": ["seat.awaited"], "game_id": game_id}
        assert client.post("/v1/webhooks", json=hook, headers=auth(API_KEY)).status_code == 201
        first = view(client, game_id)["awaiting"][0]["seat"]
        times = [_at(client, game_id, created["version"])]
        for seat in (first, 1 - first):
            move = view(client, game_id, tokens[seat])["legal"][0]
            answer = client.post(
                f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[seat])
            )
            assert answer.status_code == 200, answer.text
            times.append(answer.json()["events"][0]["at_ms"])

        def commits() -> dict[int, int] | None:
            notes = [json.loads(body) for _, body in receiver.requests]
            found = {n["seat"]: n["clock_remaining_ms"] for n in notes if n["action"] == "commit"}
            return found if len(found) == 2 else None

        # In the sealed step each seat's bank is what its own wait cost it, from the log.
        charged = {first: cap - (times[1] - times[0]), 1 - first: cap - (times[2] - times[1])}
        assert wait_for(commits, timeout=60) == charged
    finally:
        receiver.close()
