"""The lifecycle around archives, against real processes: the worker archives ended games
once their window has passed; an archive job is idempotent and safe with two workers, also
when a worker is SIGKILLed mid-archive again and again; archives exported to a file,
deleted and imported read the same; idempotency records expire.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis
import zstandard
from litestar import Litestar
from litestar.testing import TestClient
from rq.job import Job

from domain.errors import DomainError
from domain.match import Abort, CommitSeal, MakeMove, RecordResult, SeatSpec
from domain.sealed import commitment
from service.app import create_app
from service.follow_ups.jobs import JobQueue, archive_job
from service.ops import archive_files
from service.play.game_service import GameService, NewGame
from service.play.records import Submission
from service.settings import Settings
from service.store.keys import INDEX_BUCKETS, archive_due_key, archive_key, game_keys
from service.wiring import open_wiring
from tests.archiving import create, listing, play, reads
from tests.conftest import start_worker, stop_worker
from tests.helpers import API_KEY, auth, wait_for
from tests.processes import ROOT, quick_options


def _keys_of(connection: redis.Redis, game_id: str) -> set[str]:
    return {k.decode() for k in connection.scan_iter(match=f"game:{{{game_id}}}:*")}


@pytest.fixture
def short_window(settings: Settings) -> Iterator[tuple[Settings, Any]]:
    """The app and a worker that archive a game 1 s after its last change."""
    quick = dataclasses.replace(settings, archive_after_seconds=1)
    worker = start_worker(quick.redis_url or "", STAKEOUT_ARCHIVE_AFTER_SECONDS="1")
    try:
        yield quick, worker
    finally:
        stop_worker(worker)


def test_the_worker_archives_ended_games_once_their_window_has_passed(
    short_window: tuple[Settings, Any], clean_redis: str
) -> None:
    settings, _ = short_window
    rng = random.Random(31)
    connection = redis.Redis.from_url(clean_redis)
    with TestClient(app=create_app(settings)) as client:
        # Created first: by the time the others are archived, its window has passed too.
        running = create(client, "bonnie_clyde", 2)
        finished = create(client, "fbi", 3)
        tokens = [s["token"] for s in finished["seats"]]
        play(client, finished["id"], tokens, rng, None)
        aborted = create(client, "feds", 2)
        play(client, aborted["id"], [s["token"] for s in aborted["seats"]], rng, 4)
        assert client.post(f"/v1/games/{aborted['id']}/abort", headers=auth(API_KEY)).is_success
        for game in (finished, aborted):
            game_id = game["id"]
            wait_for(lambda g=game_id: _keys_of(connection, g) == {archive_key(g)}, timeout=60)
        assert client.get(f"/v1/games/{finished['id']}").json()["status"] == "finished"
        assert client.get(f"/v1/games/{aborted['id']}").json()["status"] == "aborted"
        # A game being played is never archived (it was there when the others' windows
        # began, and they have passed).
        assert archive_key(running["id"]) not in _keys_of(connection, running["id"])
        assert game_keys(running["id"])[0] in _keys_of(connection, running["id"])
    # RQ's records of the jobs expire too (STAKEOUT_JOB_RESULT_TTL_SECONDS), once the job is
    # done: the worker still runs, so a sweep job (every 2 s) may be queued or running now.
    in_flight = {"queued", "started", "scheduled", "deferred"}
    for pattern in ("rq:job:*", "rq:results:*"):
        for key in connection.scan_iter(match=pattern):
            if connection.pttl(key) != -1:  # -1: no expiry (-2: expired meanwhile)
                continue
            job_id = key.decode().split(":", 2)[2]
            assert Job.fetch(job_id, connection=connection).get_status() in in_flight, key
    connection.close()


async def _random_acts(games: GameService, game_id: str, rng: random.Random, acts: int) -> None:
    """Human seats' random legal acts, in-process (commits are never revealed: a sealed
    step then waits, and the game is aborted later)."""
    for _ in range(acts):
        loaded = await games.load(game_id)
        awaited = [a for a in loaded.awaited if a.action != "reveal"]
        if not awaited:
            return
        action = rng.choice(awaited)
        seat = action.seat
        move = msgspec.to_builtins(rng.choice(loaded.engine.legal(loaded.match, seat)))
        if action.action == "move":
            act: Any = MakeMove(seat, move)
        else:
            salt = f"{rng.getrandbits(128):032x}"
            act = CommitSeal(seat, commitment(game_id, action.step, seat, move, salt), action.step)
        try:
            await games.act(Submission(game_id, act, key=f"s{seat}:{rng.getrandbits(40)}"))
        except DomainError:
            continue


async def _ended_games(settings: Settings, count: int) -> list[str]:
    rng = random.Random(2828)
    ids = []
    async with open_wiring(settings) as wiring:
        for i in range(count):
            game = ("fbi", "feds", "bonnie_clyde")[i % 3]
            seats = [SeatSpec("human")] * (3 if game == "fbi" else 2)
            created = await wiring.games.create(NewGame(API_KEY, game, quick_options(game), seats))
            await _random_acts(wiring.games, created.game_id, rng, rng.randrange(20, 120))
            try:
                await wiring.games.act(Submission(created.game_id, Abort()))
            except DomainError:  # played to its end already: its result recorded
                await wiring.games.act(Submission(created.game_id, RecordResult(), key="result"))
            ids.append(created.game_id)
    return ids


def _worker(redis_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "REDIS_URL": redis_url, "LOG_LEVEL": "WARNING"}
    env["STAKEOUT_ARCHIVE_AFTER_SECONDS"] = "0"
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "stakeout.cli", "worker", "--queues", "scoring"],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@pytest.mark.slow
def test_archiving_survives_workers_killed_mid_archive_and_two_workers_at_once(
    settings: Settings, clean_redis: str, tmp_path: Path
) -> None:
    """40 ended games of every kind, two archive jobs each (the job of its end and a
    duplicate with another id). A worker is SIGKILLed while it runs archive jobs (0-300 ms
    after it took it), eight times; then two workers finish the work together. Every game,
    checked after each kill, is hot or archived, never both, never neither; at the end each
    is archived once and reads as it did hot."""
    settings = dataclasses.replace(settings, archive_after_seconds=0)
    ids = asyncio.run(_ended_games(settings, 40))
    connection = redis.Redis.from_url(clean_redis)
    with TestClient(app=create_app(settings)) as client:
        before = {g: reads(client, g, []) for g in ids}
        jobs = JobQueue(lambda: redis.Redis.from_url(clean_redis))
        now = int(time.time() * 1000)
        requests = [archive_job(g, v, now) for g in ids for v in (1, 2)]
        jobs.enqueue([dataclasses.replace(r, at_ms=None) for r in requests])
        rng = random.Random(4)
        mid_job = 0
        for _ in range(8):
            victim = _worker(clean_redis, tmp_path / "victim.log")
            taken = False
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and not (taken := _busy(connection, victim.pid)):
                time.sleep(0.002)
            time.sleep(rng.uniform(0, 0.3))
            os.killpg(victim.pid, signal.SIGKILL)
            victim.wait()
            mid_job += taken
            states = [_state(connection, g) for g in ids]
            assert "both" not in states, states
            assert "neither" not in states, states
        archived_by_victims = sum(_state(connection, g) == "archived" for g in ids)
        pair = [_worker(clean_redis, tmp_path / f"worker{i}.log") for i in range(2)]
        try:
            wait_for(lambda: all(_state(connection, g) == "archived" for g in ids), timeout=90)
        finally:
            for proc in pair:
                stop_worker(proc)
        for game_id in ids:
            assert _keys_of(connection, game_id) == {archive_key(game_id)}
            assert reads(client, game_id, []) == before[game_id]
    connection.close()
    assert mid_job >= 6, mid_job
    print(
        f"\n{mid_job} of 8 kills while an archive job ran; {archived_by_victims} of "
        f"{len(ids)} games archived by the killed workers, the rest by the pair"
    )


def _busy(connection: redis.Redis, pid: int) -> bool:
    """Whether the worker process ``pid`` is running a job (RQ 3 keeps a worker's running
    executions in a set)."""
    return any(
        connection.scard(key)
        for key in connection.scan_iter(match=f"rq:worker:*-{pid}-*:executions", _type="set")
    )


def _state(connection: redis.Redis, game_id: str) -> str:
    keys = _keys_of(connection, game_id)
    hot = set(game_keys(game_id)[:1] + game_keys(game_id)[2:]) <= keys
    archived = archive_key(game_id) in keys
    if hot and archived:
        return "both"
    if archived:
        return "archived" if keys == {archive_key(game_id)} else "both"
    return "hot" if hot else "neither"


def test_archives_exported_deleted_and_imported_read_the_same(
    app_client_worker: TestClient[Litestar], settings: Settings, clean_redis: str, tmp_path: Path
) -> None:
    client = app_client_worker
    rng = random.Random(5)
    ids, tokens_of = [], {}
    for game, seats in (("fbi", 3), ("feds", 2), ("bonnie_clyde", 2)):
        made = create(client, game, seats)
        tokens = [s["token"] for s in made["seats"]]
        play(client, made["id"], tokens, rng, 5)
        assert client.post(f"/v1/games/{made['id']}/abort", headers=auth(API_KEY)).is_success
        ids.append(made["id"])
        tokens_of[made["id"]] = tokens
    hot = {g: reads(client, g, tokens_of[g]) for g in ids}
    hot_list = listing(client)

    async def archive() -> list[str]:
        async with open_wiring(settings) as wiring:
            return [(await wiring.archiver.archive(g, 2**62)).said for g in ids]

    assert all(s.startswith("archived") for s in asyncio.run(archive()))
    env = {**os.environ, "REDIS_URL": clean_redis, "LOG_LEVEL": "WARNING"}
    path = tmp_path / "archives.ndjson.zst"
    cli = [sys.executable, "-m", "stakeout.cli", "archive"]
    done = subprocess.run(
        [*cli, "export", str(path), "--delete"], env=env, capture_output=True, check=True
    )
    assert b"3 archives written" in done.stdout
    assert b"3 deleted" in done.stdout
    connection = redis.Redis.from_url(clean_redis)
    try:
        left = {g: _keys_of(connection, g) for g in ids}
        assert all(keys == set() for keys in left.values()), left
        fresh = TestClient(app=create_app(settings))  # no process remembers them
        with fresh:
            assert fresh.get(f"/v1/games/{ids[0]}").status_code == 404
            # The game list leaves out (and forgets) games that no longer exist.
            page = fresh.get("/v1/games", headers=auth(API_KEY)).json()
            assert page == {"games": [], "next_cursor": None}
        done = subprocess.run([*cli, "import", str(path)], env=env, capture_output=True, check=True)
        assert b"3 archives imported" in done.stdout
        assert all(_keys_of(connection, g) == {archive_key(g)} for g in ids)
        with TestClient(app=create_app(settings)) as fresh:
            for game_id in ids:
                assert reads(fresh, game_id, tokens_of[game_id]) == hot[game_id]
            assert listing(fresh) == hot_list  # back in the list, as they were
        # Importing again changes nothing, and says so.
        done = subprocess.run([*cli, "import", str(path)], env=env, capture_output=True, check=True)
        assert b"0 archives imported" in done.stdout
        assert b"3 (already here)" in done.stdout
    finally:
        connection.close()


@pytest.fixture
def app_client_worker(settings: Settings, worker: Any) -> Iterator[TestClient[Litestar]]:
    with TestClient(app=create_app(settings)) as test_client:
        yield test_client


def test_idempotency_records_expire_after_their_last_use(
    settings: Settings, clean_redis: str
) -> None:
    """The game's idempotency hash expires STAKEOUT_IDEMPOTENCY_SECONDS after the last act
    that recorded a key in it; a retry after that is a new request, decided on the game as
    it is then (here: refused, the seat having acted already)."""
    settings = dataclasses.replace(settings, idempotency_seconds=1)
    connection = redis.Redis.from_url(clean_redis)
    with TestClient(app=create_app(settings)) as client:
        made = create(client, "fbi", 3)
        game_id, tokens = made["id"], [s["token"] for s in made["seats"]]
        path, body, token, key, first = play(client, game_id, tokens, random.Random(6), 1)
        idem = game_keys(game_id)[1]
        assert 0 < connection.pttl(idem) <= 1000
        headers = {**auth(token), "Idempotency-Key": key}
        again = client.post(path, json=body, headers=headers)
        assert again.status_code == 200
        assert again.json()["replayed"] is True
        assert again.json()["events"] == first.json()["events"]
        wait_for(lambda: not connection.exists(idem), timeout=5)
        version = client.get(f"/v1/games/{game_id}").json()["version"]
        late = client.post(path, json=body, headers=headers)
        assert late.status_code == 409, late.text
        assert client.get(f"/v1/games/{game_id}").json()["version"] == version
    with TestClient(
        app=create_app(dataclasses.replace(settings, idempotency_seconds=86400))
    ) as client:
        made = create(client, "feds", 2)
        play(client, made["id"], [s["token"] for s in made["seats"]], random.Random(7), 1)
        ttl = connection.pttl(game_keys(made["id"])[1])
        assert 86_400_000 - 60_000 < ttl <= 86_400_000
    connection.close()


def test_an_older_export_never_rolls_a_game_back(
    client: TestClient[Litestar], settings: Settings, clean_redis: str, tmp_path: Path
) -> None:
    """Overlapping daily exports (docs/operations.md): yesterday's file holds a game at the
    version it was first archived at; a rematch since restored it, added `rematch.created`
    and it was archived again. Importing yesterday's file leaves today's archive (it rolled
    the game back, and the next rematch call made a second rematch game), says so, and a
    line whose record is of another game than its id is refused. Export files are 0600."""
    rng = random.Random(36)
    made = create(client, "fbi", 3)
    old, tokens = made["id"], [s["token"] for s in made["seats"]]
    play(client, old, tokens, rng, 4)
    assert client.post(f"/v1/games/{old}/abort", headers=auth(API_KEY)).is_success

    async def archive(game_id: str) -> str:
        async with open_wiring(settings) as wiring:
            return (await wiring.archiver.archive(game_id, 2**62)).said

    assert asyncio.run(archive(old)).startswith("archived")
    env = {**os.environ, "REDIS_URL": clean_redis, "LOG_LEVEL": "WARNING"}
    cli = [sys.executable, "-m", "stakeout.cli", "archive"]
    yesterday = tmp_path / "yesterday.ndjson.zst"
    yesterday.write_bytes(b"")
    yesterday.chmod(0o644)  # a file there already keeps no wider mode either
    subprocess.run([*cli, "export", str(yesterday)], env=env, capture_output=True, check=True)
    assert yesterday.stat().st_mode & 0o777 == 0o600

    rematch = client.post(f"/v1/games/{old}/rematch", headers=auth(tokens[0]))
    assert rematch.status_code in (200, 201), rematch.text
    new = rematch.json()["game_id"]
    assert asyncio.run(archive(old)).startswith("archived")
    connection = redis.Redis.from_url(clean_redis)
    try:
        today = connection.get(archive_key(old))
        assert isinstance(today, bytes), today
        before = reads(client, old, tokens)
        done = subprocess.run(
            [*cli, "import", str(yesterday)], env=env, capture_output=True, check=True
        )
        assert b"0 archives imported" in done.stdout, done.stdout
        assert b"1 (a newer archive of the game is here)" in done.stdout, done.stdout
        assert connection.get(archive_key(old)) == today
        with TestClient(app=create_app(settings)) as fresh:  # no cache to hide a rollback
            assert reads(fresh, old, tokens) == before
            assert fresh.get(f"/v1/games/{old}").json()["rematch"] == {"game_id": new}
            again = fresh.post(f"/v1/games/{old}/rematch", headers=auth(tokens[0]))
            assert again.json()["game_id"] == new  # not a second rematch game

        # A line whose archive is of another game than the id it is stored under.
        other = "0" * 24
        line = archive_files.Line(other, 1, 1, today)
        forged = tmp_path / "forged.ndjson.zst"
        forged.write_bytes(zstandard.compress(msgspec.json.encode(line) + b"\n"))
        done = subprocess.run(
            [*cli, "import", str(forged)], env=env, capture_output=True, check=True
        )
        assert b"1 (the record inside is of another game)" in done.stdout, done.stdout
        assert _keys_of(connection, other) == set()
        assert connection.get(archive_key(old)) == today
    finally:
        connection.close()


def test_the_sweep_archives_an_ended_game_whose_archive_job_was_lost(
    settings: Settings, clean_redis: str
) -> None:
    """An ended game's archive job never runs (here: deleted once scheduled; in the field,
    its id used already, or its queue's Redis emptied). The worker's sweep finds the game
    still hot past its window and archives it (it stayed hot for good)."""
    worker = start_worker(
        clean_redis, STAKEOUT_ARCHIVE_AFTER_SECONDS="3", STAKEOUT_SWEEP_SECONDS="1"
    )
    connection = redis.Redis.from_url(clean_redis)
    try:
        with TestClient(app=create_app(settings)) as client:
            made = create(client, "feds", 2)
            game_id = made["id"]
            play(client, game_id, [s["token"] for s in made["seats"]], random.Random(9), 2)
            ended = client.post(f"/v1/games/{game_id}/abort", headers=auth(API_KEY))
            assert ended.is_success, ended.text
            job_id = f"archive-{game_id}-{ended.json()['version']}"
            wait_for(lambda: connection.exists(f"rq:job:{job_id}"), timeout=30)
            Job.fetch(job_id, connection=connection).delete()
            wait_for(lambda: _keys_of(connection, game_id) == {archive_key(game_id)}, timeout=30)
            assert client.get(f"/v1/games/{game_id}").json()["status"] == "aborted"
        due = [archive_due_key(b) for b in range(INDEX_BUCKETS)]
        assert sum(connection.zcard(key) for key in due) == 0  # archived: nothing due
    finally:
        stop_worker(worker)
        connection.close()
