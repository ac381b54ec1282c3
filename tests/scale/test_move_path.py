"""The move path, with real API processes on real Valkey servers (issue 13, issue 12.6/12.8).

- Concurrent readers and writers on one game: every act's answer names the versions that
  the event log holds afterwards (the cached state is an immutable snapshot per request).
- The same Idempotency-Key sent to two API processes, at once and one after the other:
  every copy gets the stored answer, including a copy decided on a state where the act
  would now be refused (the key is re-checked before a refusal stands).
- The queue Redis stopped mid-game: acts still answer 2xx (their follow-up work waits), and
  the bots and the turn deadline carry on once it is back.
- The event store restarted from an older copy of its AOF: the API finds its cache ahead
  of the streams, reloads, says so on /readyz, and plays on from the older version.
"""

from __future__ import annotations

import random
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import redis

from service.ops.embedded import EmbeddedRedis
from tests.helpers import API_KEY
from tests.processes import (
    HumanSeat,
    Processes,
    auth,
    next_request,
    page_events,
    read_seed,
    read_stream,
    service_env,
    verify_stream,
)

SEED = 1313
TIMEOUT = 120.0


def _create(base: str, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    response = httpx.post(
        f"{base}/v1/games",
        json={"game": "fbi", "seats": seats, **extra},
        headers=auth(API_KEY),
        timeout=30,
    )
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _humans(created: dict[str, Any]) -> list[HumanSeat]:
    return [
        HumanSeat(created["id"], s["seat"], s["token"])
        for s in created["seats"]
        if s["type"] == "human"
    ]


def _view(base: str, seat: HumanSeat) -> dict[str, Any]:
    response = httpx.get(f"{base}/v1/games/{seat.game_id}", headers=auth(seat.token), timeout=30)
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()
    return view


def _log(base: str, seat: HumanSeat) -> list[dict[str, Any]]:
    def get(path: str, params: dict[str, Any]) -> httpx.Response:
        return httpx.get(f"{base}{path}", params=params, headers=auth(seat.token), timeout=30)

    return page_events(get, seat.game_id, limit=500)


# ---- versions under concurrency ----------------------------------------------------------


def test_every_act_answer_names_the_versions_the_log_holds_under_concurrent_readers(
    processes: Processes, own_redis: str
) -> None:
    api = processes.api(service_env(own_redis))
    created = _create(api.base, [{"type": "human"}] * 4)
    seats = _humans(created)
    game_id = created["id"]
    answered: list[tuple[int, dict[str, Any]]] = []  # (seat, event record) from act answers
    done = threading.Event()
    lock = threading.Lock()
    deadline = time.monotonic() + TIMEOUT

    def play(seat: HumanSeat) -> int:
        rng = random.Random(f"{SEED}-{seat.seat}")
        acts = 0
        with httpx.Client(base_url=api.base, headers=auth(seat.token), timeout=30) as client:
            while not done.is_set() and time.monotonic() < deadline:
                view = client.get(f"/v1/games/{game_id}").json()
                if view["status"] == "finished":
                    done.set()
                    break
                request = next_request(seat, view, rng)
                if request is None:
                    time.sleep(0.005)
                    continue
                path, body = request
                response = client.post(path, json=body)
                if response.status_code == 200:
                    acts += 1
                    with lock:
                        answered.extend((seat.seat, e) for e in response.json()["events"])
                else:  # another seat's act got there first (a stale view): try again
                    assert response.status_code == 409, response.text
        return acts

    def read() -> int:
        reads = 0
        with httpx.Client(base_url=api.base, timeout=30) as client:
            while not done.is_set() and time.monotonic() < deadline:
                assert client.get(f"/v1/games/{game_id}").status_code == 200
                assert client.get(f"/v1/games/{game_id}/events", params={"after": 0}).is_success
                reads += 2
        return reads

    with ThreadPoolExecutor(len(seats) + 3) as pool:
        players = [pool.submit(play, s) for s in seats]
        readers = [pool.submit(read) for _ in range(3)]
        acts = sum(p.result() for p in players)
        reads = sum(r.result() for r in readers)
    assert done.is_set(), "the game did not finish in time"
    assert acts > 50
    assert reads > 0
    logs = {s.seat: {e["version"]: e for e in _log(api.base, s)} for s in seats}
    versions = [e["version"] for _, e in answered]
    assert len(versions) == len(set(versions)), "two answers claimed the same version"
    for seat, record in answered:
        assert logs[seat][record["version"]] == record, f"seat {seat}: v{record['version']}"
    client = redis.Redis.from_url(own_redis)
    verify_stream(read_stream(client, game_id), read_seed(client, game_id))
    client.close()


# ---- one Idempotency-Key, two API processes -----------------------------------------------


def test_the_same_idempotency_key_on_two_api_processes_always_gets_the_stored_answer(
    processes: Processes, own_redis: str
) -> None:
    env = service_env(own_redis)
    one, two = processes.api(env), processes.api(env)
    created = _create(one.base, [{"type": "human"}] * 4)
    seats = _humans(created)
    game_id = created["id"]
    rng = random.Random(SEED)
    acts = copies = refused_path = 0
    deadline = time.monotonic() + TIMEOUT
    with ThreadPoolExecutor(3) as pool:
        while time.monotonic() < deadline:
            view = _view(one.base, seats[0])
            if view["status"] == "finished":
                break
            awaited = {a["seat"] for a in view["awaiting"]}
            for seat in (s for s in seats if s.seat in awaited):
                request = next_request(seat, _view(one.base, seat), rng)
                assert request is not None
                path, body = request
                key = f"k-{acts}"
                headers = {**auth(seat.token), "Idempotency-Key": key}

                def post(
                    base: str,
                    h: dict[str, str] = headers,
                    p: str = path,
                    b: dict[str, Any] = body,
                ) -> httpx.Response:
                    return httpx.post(f"{base}{p}", json=b, headers=h, timeout=30)

                # Three copies at once, on both processes.
                answers = list(pool.map(post, [one.base, two.base, one.base]))
                # Then a late copy on a process that has just read the act's effect: its
                # fresh state refuses the act, so only the re-checked key can answer it.
                _view(two.base, seat)
                answers.append(post(two.base))
                refused_path += 1
                statuses = [a.status_code for a in answers]
                assert statuses == [200] * 4, [a.text for a in answers]
                bodies = [a.json() for a in answers]
                assert sum(not b["replayed"] for b in bodies) == 1, bodies
                assert all(
                    (b["version"], b["events"]) == (bodies[0]["version"], bodies[0]["events"])
                    for b in bodies
                )
                acts += 1
                copies += len(answers)
    assert acts > 50, f"only {acts} acts"
    assert copies == 4 * acts
    assert refused_path == acts
    client = redis.Redis.from_url(own_redis)
    entries = read_stream(client, game_id)
    verified = verify_stream(entries, read_seed(client, game_id))
    client.close()
    assert len(verified.batches) - 1 == acts  # each act appended once, opening aside


# ---- the queue Redis stopped mid-game ----------------------------------------------------


def _wait(what: str, check: Callable[[], bool], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_acts_answer_while_the_queue_redis_is_down_and_bots_and_deadlines_resume(
    processes: Processes, own_redis: str, tmp_path: Path
) -> None:
    queue_server = EmbeddedRedis(tmp_path / "queue")
    queue_url = queue_server.start()
    queue_port = queue_server.port
    # The sweep is slowed right down: what resumes the game here is the dispatcher's retry.
    env = service_env(own_redis, QUEUE_REDIS_URL=queue_url, STAKEOUT_SWEEP_SECONDS="3600")
    api = processes.api(env)
    processes.worker(env)
    bots = {"type": "bot", "level": "random"}
    created = _create(api.base, [{"type": "human"}, bots, bots, bots], turn_seconds=5)
    (human,) = _humans(created)
    rng = random.Random(SEED)
    store = redis.Redis.from_url(own_redis)

    def awaited() -> dict[str, Any] | None:
        view = _view(api.base, human)
        mine = [a for a in view["awaiting"] if a["seat"] == human.seat]
        return view if mine and view["status"] == "active" else None

    def act(view: dict[str, Any]) -> httpx.Response:
        request = next_request(human, view, rng)
        assert request is not None
        path, body = request
        return httpx.post(f"{api.base}{path}", json=body, headers=auth(human.token), timeout=30)

    # A few turns with everything up: the bots answer.
    for _ in range(3):
        _wait("the human's turn", lambda: awaited() is not None)
        view = awaited()
        assert view is not None
        assert act(view).status_code == 200
    try:
        _wait("the human's turn", lambda: awaited() is not None)
        queue_server.stop()
        # The queue is down: the human's acts are still answered, and stored.
        answered: list[int] = []
        while (view := awaited()) is not None and len(answered) < 4:
            response = act(view)
            if response.status_code == 503:  # allowed, if it changed nothing
                assert _view(api.base, human)["version"] == view["version"]
                continue
            assert response.status_code == 200, response.text
            answered.append(response.json()["version"])
        assert answered
        assert store.xlen(f"game:{{{human.game_id}}}:events") >= max(answered)
        logged = {e["version"] for e in _log(api.base, human)}
        assert set(answered) <= logged
        # The bots cannot be scheduled now: the human stays unawaited.
        time.sleep(1.0)
        paused_at = _view(api.base, human)["version"]
        assert awaited() is None
    finally:
        queue_server = EmbeddedRedis(tmp_path / "queue", port=queue_port)
        queue_server.start()
    try:
        # The dispatcher retries the follow-up in place (the outbox keeps it) and enqueues
        # the bots' turn once the queue is back: they move, and it is the human's turn
        # again (or the game ends).
        _wait(
            "the bots to move again",
            lambda: (
                _finished(api.base, human)
                or (awaited() is not None and _view(api.base, human)["version"] > paused_at)
            ),
        )
        if not _finished(api.base, human):
            # The human now waits out its turn: the deadline job stands in for it.
            before = _view(api.base, human)["version"]
            _wait(
                "the deadline to play for the human",
                lambda: any(
                    e["event"]["type"] == "turn.timed_out" and e["version"] > before
                    for e in _log(api.base, human)
                ),
                timeout=60.0,
            )
        verify_stream(read_stream(store, human.game_id), read_seed(store, human.game_id))
    finally:
        store.close()
        queue_server.stop()


def _ready(base: str) -> bool:
    return httpx.get(f"{base}/readyz", timeout=10).status_code == 200


def _finished(base: str, seat: HumanSeat) -> bool:
    return bool(_view(base, seat)["status"] == "finished")


# ---- the event store went backwards --------------------------------------------------------


def test_a_store_restored_from_an_older_aof_is_found_and_the_games_reload(
    processes: Processes, tmp_path: Path
) -> None:
    data = tmp_path / "store"
    server = EmbeddedRedis(data)
    url = server.start()
    port = server.port
    api = processes.api(service_env(url))
    created = _create(api.base, [{"type": "human"}] * 4)
    seats = _humans(created)
    rng = random.Random(SEED)

    secrets: dict[tuple[int, str], tuple[dict[str, Any], str]] = {}  # kept per step

    def play(acts: int) -> int:
        for _ in range(acts):
            view = _view(api.base, seats[0])
            action = view["awaiting"][0]
            seat = next(s for s in seats if s.seat == action["seat"])
            if action["action"] == "reveal":  # the stream may be older than the seat's memory
                seat.kept = secrets[(seat.seat, action["step"])]
            request = next_request(seat, _view(api.base, seat), rng)
            assert request is not None
            path, body = request
            if action["action"] == "commit":
                assert seat.kept is not None
                secrets[(seat.seat, action["step"])] = seat.kept
            response = httpx.post(
                f"{api.base}{path}", json=body, headers=auth(seat.token), timeout=30
            )
            assert response.status_code == 200, response.text
        return int(_view(api.base, seats[0])["version"])

    older = play(4)
    server.stop()  # a clean stop: the AOF holds everything so far
    shutil.copytree(data, tmp_path / "older")
    server = EmbeddedRedis(data, port=port)
    server.start()
    # The API's pooled connections died with the server: wait until it answers again.
    _wait("the API to reconnect", lambda: _ready(api.base))
    newer = play(6)
    assert newer > older
    # The store comes back from the older copy (a restore; a lagging replica promoted).
    server.stop()
    shutil.rmtree(data)
    shutil.copytree(tmp_path / "older", data)
    server = EmbeddedRedis(data, port=port)
    server.start()
    try:
        client = redis.Redis.from_url(url)
        assert client.xlen(f"game:{{{created['id']}}}:events") == older
        client.close()
        # /readyz compares the cached games with their streams: it finds this one behind.
        readiness: list[dict[str, Any]] = []

        def ready() -> bool:
            response = httpx.get(f"{api.base}/readyz", timeout=10)
            if response.status_code == 200:
                readiness.append(response.json())
                return bool(response.json().get("store_regressions"))
            assert response.status_code == 503, response.text
            return False

        _wait("/readyz to report the regression", ready, timeout=30.0)
        assert readiness[-1]["store_regressions"] >= 1
        # The game answers from the stream as it now is, and plays on from there.
        assert _view(api.base, seats[0])["version"] == older
        assert play(3) > older
        log = _log(api.base, seats[0])
        assert [e["version"] for e in log] == list(range(1, len(log) + 1))
    finally:
        server.stop()
