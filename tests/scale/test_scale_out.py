"""Scale-out: two API processes and two RQ workers on one Redis, many clients, many games.

Every client plays its human seats to the end with seeded random legal moves (commit and
reveal for sealed steps), sending each request to one of the two API processes at random;
now and then it repeats a request with the same Idempotency-Key at the other process.
Bots (level "random") play on the two workers. Then every game must have finished with a
result recorded exactly once, and its event log — paged over HTTP and read from Redis —
must run 1..N without a gap or a duplicate, each batch being exactly what its act decides.

Sizes: ``STAKEOUT_SCALE_GAMES`` (default 24) and ``STAKEOUT_SCALE_CLIENTS`` (default 16).
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
import redis
from rq import Queue, Worker

from domain import registry
from service.follow_ups.jobs import QUEUES
from tests.helpers import API_KEY
from tests.processes import (
    HumanSeat,
    Processes,
    auth,
    events_key,
    next_request,
    page_events,
    quick_options,
    read_seed,
    read_stream,
    service_env,
    verify_stream,
)

SEED = 20240607
GAMES = int(os.environ.get("STAKEOUT_SCALE_GAMES", "24"))
CLIENTS = int(os.environ.get("STAKEOUT_SCALE_CLIENTS", "16"))
TIMEOUT = 240.0
REPEAT_RATE = 0.05  # share of acts repeated with the same Idempotency-Key at the other API


# Tables in turn: one human against a bot, two humans, two humans and a bot, one human
# against two bots (capped at the game's seat range).
PLANS = [("human", "bot"), ("human", "human"), ("human", "human", "bot"), ("human", "bot", "bot")]


def _seats(index: int, game: str) -> list[dict[str, Any]]:
    """The seats of the ``index``-th table of ``game``."""
    found = registry.get(game)
    assert found is not None
    plan = list(PLANS[index % len(PLANS)])[: found.max_seats]
    plan += ["bot"] * (found.min_seats - len(plan))
    return [{"type": "human"} if t == "human" else {"type": "bot", "level": "random"} for t in plan]


@dataclass
class Tally:
    """What one client saw (merged at the end)."""

    requests: Counter[str] = field(default_factory=Counter)  # per API process
    statuses: Counter[int] = field(default_factory=Counter)
    acts: int = 0
    repeats: int = 0
    refused: list[str] = field(default_factory=list)


def _client(
    index: int, bases: list[str], seats: list[HumanSeat], deadline: float, stop: threading.Event
) -> Tally:
    rng = random.Random(f"{SEED}-client-{index}")
    tally = Tally()
    apis = [httpx.Client(base_url=b, timeout=30) for b in bases]

    def call(method: str, path: str, api: int, **kwargs: Any) -> httpx.Response:
        response = apis[api].request(method, path, **kwargs)
        tally.requests[bases[api]] += 1
        tally.statuses[response.status_code] += 1
        assert response.status_code < 500, f"{method} {path}: {response.text}"
        return response

    try:
        pending = list(seats)
        serial = 0
        while pending:
            assert time.monotonic() < deadline, f"client {index}: seats still playing"
            if stop.is_set():
                return tally
            acted = False
            for seat in list(pending):
                seen_response = call(
                    "GET", f"/v1/games/{seat.game_id}", rng.randrange(2), headers=auth(seat.token)
                )
                assert seen_response.status_code == 200, seen_response.text
                seen = seen_response.json()
                if seen["status"] == "finished":
                    assert seen["result"] is not None
                    pending.remove(seat)
                    continue
                request = next_request(seat, seen, rng)
                if request is None:
                    continue
                path, body = request
                serial += 1
                api = rng.randrange(2)
                headers = {**auth(seat.token), "Idempotency-Key": f"c{index}-{serial}"}
                response = call("POST", path, api, json=body, headers=headers)
                if response.status_code in (409, 422):
                    # Another seat moved the table between our GET and POST: look again.
                    tally.refused.append(response.json()["type"])
                    continue
                assert response.status_code == 200, f"{path}: {response.text}"
                tally.acts += 1
                acted = True
                if rng.random() < REPEAT_RATE:
                    again = call("POST", path, 1 - api, json=body, headers=headers)
                    assert again.status_code == 200, again.text
                    assert again.json()["replayed"] is True
                    assert again.json()["version"] == response.json()["version"]
                    tally.repeats += 1
            if not acted:
                time.sleep(0.03)  # bots are thinking: poll gently
        return tally
    except BaseException:
        stop.set()  # one failure ends every client early
        raise
    finally:
        for client in apis:
            client.close()


def test_two_apis_and_two_workers_play_many_games_to_a_consistent_end(
    own_redis: str, processes: Processes
) -> None:
    started = time.monotonic()
    deadline = started + TIMEOUT
    env = service_env(own_redis)
    workers = [processes.worker(env) for _ in range(2)]
    apis = [processes.api(env), processes.api(env)]
    bases = [api.base for api in apis]

    # Create the games (spread over both processes), then deal the human seats to clients
    # so that the two humans of a table sit at two different clients.
    names = registry.names()
    games: list[tuple[str, str, int]] = []  # id, game, seats
    seats: list[HumanSeat] = []
    with httpx.Client(timeout=30) as http:
        for i in range(GAMES):
            name = names[i % len(names)]
            plan = _seats(i // len(names), name)
            response = http.post(
                f"{bases[i % 2]}/v1/games",
                json={"game": name, "seats": plan, "options": quick_options(name)},
                headers=auth(API_KEY),
            )
            assert response.status_code == 201, response.text
            created = response.json()
            games.append((created["id"], name, len(plan)))
            seats += [
                HumanSeat(created["id"], grant["seat"], grant["token"])
                for grant in created["seats"]
                if grant["type"] == "human"
            ]
    dealt = [seats[i::CLIENTS] for i in range(CLIENTS)]

    stop = threading.Event()
    with ThreadPoolExecutor(CLIENTS) as pool:
        futures = [pool.submit(_client, i, bases, dealt[i], deadline, stop) for i in range(CLIENTS)]
        tallies = [f.result() for f in futures]
    played = time.monotonic() - started
    for proc in [*workers, *(a.proc for a in apis)]:
        assert proc.poll() is None, processes.tail(proc)

    connection = redis.Redis.from_url(own_redis)
    http = httpx.Client(timeout=30)
    try:
        # The scoring job records each result once; wait for the last ones.
        def spectator_get(path: str, params: dict[str, Any]) -> httpx.Response:
            return http.get(bases[random.randrange(2)] + path, params=params)

        totals: Counter[str] = Counter()
        for game_id, name, n_seats in games:
            while True:
                events = page_events(spectator_get, game_id, limit=100)
                recorded = [e for e in events if e["event"]["type"] == "game.result_recorded"]
                if recorded or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            versions = [e["version"] for e in events]
            assert versions == list(range(1, len(events) + 1)), f"{game_id}: gaps or duplicates"
            assert connection.xlen(events_key(game_id)) == len(events)
            assert len(recorded) == 1, f"{game_id} ({name}): {len(recorded)} results recorded"
            seed = read_seed(connection, game_id)
            verified = verify_stream(read_stream(connection, game_id), seed)
            assert verified.game == name
            assert len(verified.match.seats) == n_seats
            assert verified.results_recorded == 1
            assert verified.match.version == len(events)
            totals["events"] += len(events)
            totals["human acts"] += len(verified.acts_by("human"))
            totals["bot acts"] += len(verified.acts_by("bot"))
            totals[name] += 1

        failed = {q: Queue(q, connection=connection).failed_job_registry.count for q in QUEUES}
        assert failed == dict.fromkeys(QUEUES, 0), failed
        jobs = sorted(w.successful_job_count for w in Worker.all(connection=connection))
    finally:
        http.close()
        connection.close()

    requests: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    for t in tallies:
        requests.update(t.requests)
        statuses.update(t.statuses)
    acts = sum(t.acts for t in tallies)
    assert acts == totals["human acts"], "every acknowledged act is in a stream, once"
    assert all(requests[b] > 0 for b in bases), requests
    assert len(jobs) == 2
    assert all(j > 0 for j in jobs), f"both workers ran jobs: {jobs}"
    elapsed = time.monotonic() - started
    refused = Counter(r.rsplit(":", 1)[-1] for t in tallies for r in t.refused)
    print(
        f"\nscale-out (seed {SEED}): {len(games)} games "
        f"({', '.join(f'{n} {totals[n]}' for n in names)}), {len(seats)} human seats, "
        f"{CLIENTS} clients\n"
        f"  processes: 2 API ({', '.join(f'{requests[b]} requests' for b in bases)}), "
        f"2 RQ workers ({' + '.join(map(str, jobs))} jobs), 1 Valkey\n"
        f"  moves: {totals['human acts']} by humans over HTTP "
        f"(+{sum(t.repeats for t in tallies)} idempotent repeats, "
        f"{sum(refused.values())} refused: {dict(refused)}), {totals['bot acts']} by bots; "
        f"{totals['events']} events\n"
        f"  statuses: {dict(sorted(statuses.items()))}\n"
        f"  duration: {played:.1f} s playing, {elapsed:.1f} s in all "
        f"({sum(requests.values()) / played:.0f} requests/s)"
    )
