"""`stakeout run` as a developer runs it (embedded Valkey, workers, several API processes),
with its children killed for real: a SIGKILLed worker and a SIGKILLed Valkey come back, and
a game against bots goes on, with nothing acknowledged lost."""

from __future__ import annotations

import os
import random
import re
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from service.store.keys import MM_LEASE
from tests.helpers import API_KEY, auth, text, wait_for
from tests.processes import (
    HumanSeat,
    Processes,
    child_processes,
    free_port,
    next_request,
    own_redis,
    processes,
    run_env,
)

__all__ = ["own_redis", "processes"]


def _workers(run_pid: int) -> dict[int, str]:
    return {p: c for p, c in child_processes(run_pid).items() if "stakeout.cli worker" in c}


def _valkey(run_pid: int) -> int | None:
    return next((p for p, c in child_processes(run_pid).items() if "valkey" in c), None)


def _play_until_bots_answer(http: httpx.Client, seat: HumanSeat, rng: random.Random) -> int:
    """The human seat acts once when awaited, then waits for the bots to play up to its
    next turn (or the end). Returns the version reached."""
    path = f"/v1/games/{seat.game_id}"

    def seen() -> dict[str, Any]:
        response = http.get(path, headers=auth(seat.token))
        assert response.status_code == 200, response.text
        return dict(response.json())

    start = seen()
    request = next_request(seat, start, rng)
    if request is not None:
        acted = http.post(request[0], json=request[1], headers=auth(seat.token))
        assert acted.status_code == 200, acted.text

    def bots_answered() -> dict[str, Any] | None:
        now = seen()
        mine = any(a["seat"] == seat.seat for a in now["awaiting"])
        moved = now["version"] > start["version"] + (request is not None)
        return now if now["status"] == "finished" or (mine and moved) else None

    return int(wait_for(bots_answered, timeout=90)["version"])


def test_run_restarts_a_killed_worker_and_a_killed_valkey_and_the_game_goes_on(
    processes: Processes, tmp_path: Path
) -> None:
    env = run_env(tmp_path / "data", free_port(), STAKEOUT_API_PROCESSES="2", LOG_LEVEL="WARNING")
    started = processes.run(env)
    run, base = started.proc, started.base
    output = processes.log_of(run).read_text()
    assert re.search(r"API processes: 2 ", output), output
    assert "Workers:      bots,scoring; webhooks; matchmaking" in output, output
    # Several API processes, one /metrics: every process's samples (multiprocess mode).
    for _ in range(6):
        assert httpx.get(base + "/v1/rules", timeout=10).status_code == 200
    rules = 'stakeout_http_requests_total{method="GET",route="/v1/rules",status="200"} '

    def rules_counted() -> float:
        scraped = httpx.get(base + "/metrics", timeout=10).text
        line = next((x for x in scraped.splitlines() if x.startswith(rules)), "- 0")
        return float(line.split()[-1])

    # Each process adds its requests to the shared files within FLUSH_SECONDS.
    wait_for(lambda: rules_counted() >= 6.0, timeout=10)
    assert rules_counted() == 6.0

    rng = random.Random(12)
    with httpx.Client(base_url=base, timeout=30) as http:
        seats = [{"type": "human"}] + [{"type": "bot", "level": "random"}] * 3
        created = http.post(
            "/v1/games", json={"game": "fbi", "seats": seats}, headers=auth(API_KEY)
        )
        assert created.status_code == 201, created.text
        game = created.json()
        seat = HumanSeat(game["id"], 0, game["seats"][0]["token"])
        version = _play_until_bots_answer(http, seat, rng)

        # A worker dies: another takes its place, and the bots keep playing.
        workers = wait_for(lambda: len(w := _workers(run.pid)) == 3 and w, timeout=30)
        bots_worker = next(p for p, c in workers.items() if "bots" in c)
        os.kill(bots_worker, signal.SIGKILL)
        replaced = wait_for(
            lambda: (w := _workers(run.pid)) and len(w) == 3 and bots_worker not in w and w,
            timeout=60,
        )
        assert any("bots" in c for c in replaced.values())
        for _ in range(2):
            version = max(version, _play_until_bots_answer(http, seat, rng))

        # The embedded Valkey dies: it comes back on its AOF (same port) and play goes on.
        valkey = _valkey(run.pid)
        assert valkey is not None
        os.kill(valkey, signal.SIGKILL)
        wait_for(lambda: (v := _valkey(run.pid)) is not None and v != valkey, timeout=60)
        processes.wait_ready(run, base, timeout=60)
        # Nothing acknowledged was lost: the game is at least where we saw it.
        # (Each API process learns of the restart on its next command: a 503 then is fair.)
        after = wait_for(
            lambda: (r := http.get(f"/v1/games/{seat.game_id}")).status_code == 200 and r,
            timeout=30,
        )
        assert after.json()["version"] >= version
        for _ in range(2):
            _play_until_bots_answer(http, seat, rng)
        assert run.poll() is None, processes.tail(run)

    # Ctrl+C (SIGINT to the whole group, as a terminal sends it): everything stops, nothing
    # is restarted.
    os.killpg(run.pid, signal.SIGINT)
    deadline = time.monotonic() + 60
    while run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert run.poll() is not None, processes.tail(run)


def test_ctrl_c_stops_run_quietly_and_the_embedded_valkey_last(
    processes: Processes, tmp_path: Path
) -> None:
    """A terminal's Ctrl+C signals the whole process group. The embedded Valkey runs in a
    session of its own (service/ops/embedded.py), so it outlives the workers' warm shutdown
    and `stakeout run` stops it last: no worker logs that Redis went away."""
    run = processes.run(run_env(tmp_path / "data", free_port(), LOG_LEVEL="WARNING")).proc
    wait_for(lambda: len(_workers(run.pid)) == 3, timeout=30)
    valkey = _valkey(run.pid)
    assert valkey is not None
    assert os.getsid(valkey) == valkey != os.getsid(run.pid)  # a session of its own
    os.killpg(run.pid, signal.SIGINT)  # what Ctrl+C does (spawn gave run its own group)
    assert run.wait(timeout=90) is not None
    output = processes.log_of(run).read_text(errors="replace")
    assert "ConnectionError" not in output, output[-3000:]
    assert "could not connect" not in output, output[-3000:]
    assert not Path(f"/proc/{valkey}").exists() or "zombie" in _state(valkey)


@pytest.mark.parametrize("api_processes", ["1", "2"])
def test_sigterm_stops_run_its_workers_and_the_embedded_valkey(
    processes: Processes, tmp_path: Path, api_processes: str
) -> None:
    """A process manager (or `kill`) sends SIGTERM to `stakeout run` alone: it stops its
    API processes, workers and embedded Valkey and exits 0, leaving no process behind. With
    one API process uvicorn serves in run's own process and raises the signal again once it
    has shut down."""
    env = run_env(
        tmp_path / "data", free_port(), LOG_LEVEL="WARNING", STAKEOUT_API_PROCESSES=api_processes
    )
    run = processes.run(env).proc
    wait_for(lambda: len(_workers(run.pid)) == 3, timeout=30)
    valkey = _valkey(run.pid)
    children = list(child_processes(run.pid))
    assert valkey in children
    os.kill(run.pid, signal.SIGTERM)
    assert run.wait(timeout=90) == 0, processes.tail(run)

    def left() -> list[int]:
        return [
            pid for pid in children if Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid)
        ]

    # A helper of the children's own (multiprocessing's resource tracker, with two API
    # processes) ends when run's end closes its pipe, a moment later on a loaded machine:
    # every child must be gone soon after run, none may stay.
    try:
        wait_for(lambda: not left(), timeout=30)
    except AssertionError:
        still = [_cmdline(pid) for pid in left()]
        raise AssertionError(f"still running after run: {still}") from None


def _cmdline(pid: int) -> str:
    try:
        return (Path(f"/proc/{pid}") / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return f"{pid} (gone)"


def test_run_gives_the_matchmaker_a_process_of_its_own(
    processes: Processes, tmp_path: Path, own_redis: str
) -> None:
    """Two tickets through the API are matched by `stakeout run`'s matchmaking worker, a
    process apart from the game worker's (whose bot turns its passes cannot slow)."""
    started = processes.run(run_env(tmp_path / "data", free_port(), own_redis))
    run, base = started.proc, started.base
    workers = wait_for(lambda: len(w := _workers(run.pid)) == 3 and w, timeout=30)
    matchmaker = [p for p, c in workers.items() if " --queues matchmaking " in f"{c} "]
    assert len(matchmaker) == 1, workers
    with httpx.Client(base_url=base, timeout=30) as http:
        made = []
        for player in ("ann", "bob"):
            body = {"game": "fbi", "player": {"external_id": player}, "seats": [2]}
            created = http.post("/v1/matchmaking/tickets", json=body, headers=auth(API_KEY))
            assert created.status_code == 201, created.text
            made.append(created.json())

        def matched() -> bool:
            for ticket in made:
                read = http.get(f"/v1/matchmaking/tickets/{ticket['id']}", headers=auth(API_KEY))
                if read.json()["status"] != "matched":
                    return False
            return True

        wait_for(matched, timeout=60, interval=0.2)
    holder = redis.Redis.from_url(own_redis).get(MM_LEASE)
    assert int(text(holder).rsplit("-", 1)[1]) == matchmaker[0]


def _state(pid: int) -> str:
    try:
        return (Path(f"/proc/{pid}") / "status").read_text().split("State:", 1)[1].split("\n")[0]
    except OSError:
        return "zombie"


def _banner_key(text: str) -> str:
    found = re.search(r"API key:\s+(\S+)", text)
    assert found is not None, text[-2000:]
    return found.group(1)


def test_run_keeps_its_api_key_in_the_data_folder_across_restarts(
    processes: Processes, tmp_path: Path
) -> None:
    """With no STAKEOUT_API_KEYS, `stakeout run` makes a key the first time and keeps it in
    its data folder: after a restart it prints the same key, and the games made with it are
    still listed."""
    data = tmp_path / "data"
    env = run_env(data, free_port(), api_key=False)  # the embedded Valkey in data too
    started = processes.run(env)
    run, base = started.proc, started.base
    key = _banner_key(processes.log_of(run).read_text(errors="replace"))
    created = httpx.post(
        f"{base}/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}] * 3},
        headers=auth(key),
        timeout=30,
    )
    assert created.status_code == 201, created.text
    assert (data / "api-key").stat().st_mode & 0o777 == 0o600
    processes.stop(run, signal.SIGINT)
    restarted = processes.run(env)
    again, base = restarted.proc, restarted.base
    assert _banner_key(processes.log_of(again).read_text(errors="replace")) == key
    listed = httpx.get(f"{base}/v1/games", headers=auth(key), timeout=30).json()
    assert [g["id"] for g in listed["games"]] == [created.json()["id"]]


def test_ctrl_c_with_live_feeds_open_ends_them_and_exits_without_a_traceback(
    processes: Processes, tmp_path: Path
) -> None:
    """A table open in a browser holds live feeds (its game's, the lobby's account feed) and
    long polls. Ctrl+C ends them at once: the game feeds end as a feed ends, the long poll
    answers, the account feed is hung up; `stakeout run` exits with no error logged."""
    import threading

    started = processes.run(run_env(tmp_path / "data", free_port()))
    run, base = started.proc, started.base
    created = httpx.post(
        f"{base}/v1/games",
        json={"game": "fbi", "seats": [{"type": "human"}] * 3},
        headers=auth(API_KEY),
        timeout=30,
    ).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    ended: dict[str, str] = {}
    opened = threading.Barrier(5)

    def follow(name: str, url: str, **kwargs: Any) -> None:
        try:
            with httpx.stream("GET", url, timeout=60, **kwargs) as response:
                opened.wait(30)
                for _ in response.iter_lines():
                    pass
            ended[name] = "ended"
        except httpx.HTTPError as exc:
            ended[name] = type(exc).__name__

    def poll() -> None:
        opened.wait(30)
        answer = httpx.get(
            f"{base}/v1/games/{game_id}",
            params={"after_version": 1000, "wait": 30},
            headers=auth(token),
            timeout=60,
        )
        ended["poll"] = str(answer.status_code)

    feeds = [
        ("events", f"{base}/v1/games/{game_id}/stream", {"headers": auth(token)}),
        ("view", f"{base}/v1/games/{game_id}/stream?feed=view", {"headers": auth(token)}),
        ("account", f"{base}/v1/feed", {"headers": auth(API_KEY)}),
    ]
    threads = [threading.Thread(target=follow, args=(n, u), kwargs=k) for n, u, k in feeds]
    threads.append(threading.Thread(target=poll))
    for thread in threads:
        thread.start()
    opened.wait(30)
    time.sleep(0.5)  # the poll is waiting in the server
    os.killpg(run.pid, signal.SIGINT)  # what Ctrl+C does
    assert run.wait(timeout=60) is not None
    for thread in threads:
        thread.join(timeout=30)
    assert ended["events"] == ended["view"] == "ended", ended
    assert ended["poll"] == "200", ended
    assert "account" in ended, ended
    output = processes.log_of(run).read_text(errors="replace")
    assert "Traceback" not in output, output[-3000:]
    assert "Exception in ASGI application" not in output, output[-3000:]
