"""Matchmaking against real processes (issue 30): 200 tickets made through two API
processes, cancellations racing the matchers of two game workers. Every ticket ends matched
once or cancelled (a cancel the API accepted is never matched; one it refused is), every game
has a legal seat count that all its tickets accept, no player sits twice in one game, and
every person's seat of a game is a ticket's (no half-seated game)."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.helpers import API_KEY
from tests.processes import Processes, auth, service_env

TICKETS = 200
PLAYERS = 70
CANCELS = 70


def _body(rng: random.Random, number: int) -> dict[str, Any]:
    counts = sorted(rng.sample([2, 3, 4, 5], rng.randint(1, 3)))
    player = f"player-{rng.randrange(PLAYERS)}"
    return {
        "game": "fbi",
        "player": {"external_id": player, "name": f"P{number}"},
        "seats": counts,
        "bots_after_seconds": rng.choice([1, 2, 3]),
        "expires_in_seconds": 300,
    }


def test_two_hundred_tickets_two_apis_cancels_racing_the_matchers(
    own_redis: str, processes: Processes
) -> None:
    # 200 tickets of 70 players made at once: a player may wait in more queues than the
    # default cap lets it (the caps have tests of their own: test_matchmaking_caps.py).
    env = service_env(own_redis, STAKEOUT_MAX_PLAYER_TICKETS="0")
    bases = [processes.api(env).base, processes.api(env).base]
    processes.worker(env)
    processes.worker(env)  # two matchers: one works (lease), the other stands by
    rng = random.Random(30)
    bodies = [_body(rng, i) for i in range(TICKETS)]
    to_cancel = set(rng.sample(range(TICKETS), CANCELS))
    made: dict[int, dict[str, Any]] = {}
    cancels: dict[int, int] = {}
    lock = threading.Lock()

    def make_and_maybe_cancel(i: int) -> None:
        base = bases[i % 2]
        with httpx.Client(base_url=base, timeout=30) as http:
            response = http.post("/v1/matchmaking/tickets", json=bodies[i], headers=auth(API_KEY))
            assert response.status_code == 201, response.text
            ticket = response.json()
            with lock:
                made[i] = ticket
            if i in to_cancel:
                time.sleep(random.Random(i).uniform(0, 1.5))  # around the matcher's passes
                other = bases[(i + 1) % 2]  # through the other API process, with the secret
                gone = httpx.delete(
                    f"{other}/v1/matchmaking/tickets/{ticket['id']}",
                    headers=auth(ticket["secret"]),
                    timeout=30,
                )
                assert gone.status_code in (200, 409), gone.text
                with lock:
                    cancels[i] = gone.status_code

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(make_and_maybe_cancel, range(TICKETS)))
    assert len(made) == TICKETS

    def final(i: int, http: httpx.Client) -> dict[str, Any]:
        ticket = made[i]
        response = http.get(
            f"{bases[i % 2]}/v1/matchmaking/tickets/{ticket['id']}", headers=auth(ticket["secret"])
        )
        if response.status_code == 404 and cancels.get(i) == 200:
            # A cancelled ticket is gone: its DELETE's answer was its last read.
            return {"status": "cancelled"}
        assert response.status_code == 200, response.text
        return dict(response.json())

    deadline = time.monotonic() + 120
    with httpx.Client(timeout=30) as http:
        while True:
            seen = {i: final(i, http) for i in range(TICKETS)}
            if all(s["status"] in ("matched", "cancelled") for s in seen.values()):
                break
            assert time.monotonic() < deadline, Counter(s["status"] for s in seen.values())
            time.sleep(0.5)
        _check(seen, cancels, bodies, bases, http)


def _check(
    seen: dict[int, dict[str, Any]],
    cancels: dict[int, int],
    bodies: list[dict[str, Any]],
    bases: list[str],
    http: httpx.Client,
) -> None:
    # Both sides of the race happened: cancels that came first (bots after 2-3 s) and cancels
    # that came after the seating (people matched at once, or bots after 1 s).
    assert set(cancels.values()) == {200, 409}, Counter(cancels.values())
    for i, code in cancels.items():  # a cancel accepted stands; one refused was matched
        assert seen[i]["status"] == ("cancelled" if code == 200 else "matched"), (i, code)
    assert all(seen[i]["status"] == "matched" for i in seen if i not in cancels)
    tables: dict[str, list[int]] = defaultdict(list)
    for i, ticket in seen.items():
        if ticket["status"] == "matched":
            tables[ticket["match"]["game_id"]].append(i)
    assert len(tables) >= 10
    for game_id, members in tables.items():
        view = http.get(f"{bases[0]}/v1/games/{game_id}", headers=auth(API_KEY)).json()
        seats = view["seats"]
        assert 2 <= len(seats) <= 5
        people = [s for s in seats if s["type"] == "human"]
        assert len(people) == len(members), (game_id, seats, members)  # every seat a ticket's
        ids = [s["external_id"] for s in people]
        assert len(ids) == len(set(ids)), (game_id, ids)  # nobody twice at one table
        for i in members:
            match = seen[i]["match"]
            assert len(seats) in bodies[i]["seats"]
            assert seats[match["seat"]]["external_id"] == bodies[i]["player"]["external_id"]
            mine = http.get(f"{bases[1]}/v1/games/{game_id}", headers=auth(match["token"]))
            assert mine.json()["you"] == match["seat"]
    seated = [(seen[i]["match"]["game_id"], seen[i]["match"]["seat"]) for i in seen
              if seen[i]["status"] == "matched"]  # fmt: skip
    assert len(seated) == len(set(seated))  # one ticket per seat
