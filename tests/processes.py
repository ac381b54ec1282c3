"""Real processes for the cluster, scale-out and shutdown tests (and the benches that start
processes), and a stream verifier.

- `Processes` starts API servers, RQ workers and `stakeout run` as real OS processes (each
  in its own process group, output in a log file) and stops every one it started when the
  test ends: SIGTERM, then SIGKILL to that process group after a bound. `running` is the
  same as a context manager, `valkey_and_processes` that on a Valkey of its own (a bench's).
- `embedded_redis` is a fresh embedded Valkey (AOF on) until the block ends; `own_redis` is
  one owned by one test, so tests that flood the queues or count jobs never share a server
  with other tests (``make test`` runs two pytest processes at once).
- `verify_stream` replays a game's stream as Redis holds it and re-decides every act that
  was stored beside its events: versions must run 1..N without a gap, and each batch of
  events must be exactly what its act produces on the state before it.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from domain import registry
from domain.match import Act, Match, event_union
from domain.sealed import commitment
from service.ops.embedded import EmbeddedRedis
from tests.helpers import API_KEY

ROOT = Path(__file__).resolve().parent.parent

# Short games keep the process tests quick; the options are validated like a client's.
QUICK_OPTIONS: dict[str, dict[str, Any]] = {"bonnie_clyde": {"target": 10}}


def quick_options(game: str) -> dict[str, Any]:
    return dict(QUICK_OPTIONS.get(game, {}))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def child_processes(pid: int, *, zombies: bool = True) -> dict[int, str]:
    """The direct children of ``pid`` (read from /proc): their command lines. Ended ones
    not reaped yet (zombies) only with ``zombies``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and (zombies or fields[0] != "Z"):
            found[int(entry.name)] = cmdline
    return found


def _group_of(pid: int) -> int | None:
    """The process group of ``pid`` (None once it is gone)."""
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def service_env(redis_url: str, **extra: str) -> dict[str, str]:
    """The environment of a service process: inherited, minus settings a test must own."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "REDIS_CLUSTER", "QUEUE_REDIS_URL", "PORT", "HOST"}
    }
    env.update(
        REDIS_URL=redis_url,
        STAKEOUT_API_KEYS=API_KEY,
        STAKEOUT_RATE_LIMIT_PER_MINUTE="0",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def run_env(
    data: Path, port: int, redis_url: str | None = None, *, api_key: bool = True, **extra: str
) -> dict[str, str]:
    """`stakeout run`'s environment (`service_env`'s) with its own port and data folder: the
    embedded Valkey unless ``redis_url``; the tests' API key, or with ``api_key=False`` the
    key run makes and keeps in ``data``."""
    env = service_env(redis_url or "", PORT=str(port), STAKEOUT_DATA_DIR=str(data), **extra)
    if redis_url is None:
        del env["REDIS_URL"]  # the embedded Valkey
    if not api_key:
        del env["STAKEOUT_API_KEYS"]
    return env


@dataclass
class Api:
    proc: subprocess.Popen[bytes]
    base: str
    log: Path


@dataclass
class Run:
    """A ready `stakeout run`: its process, URL and data folder."""

    proc: subprocess.Popen[bytes]
    base: str
    data: Path

    @property
    def key(self) -> str:
        """The API key run made and kept in its data folder (with no STAKEOUT_API_KEYS)."""
        return (self.data / "api-key").read_text().strip()


class Processes:
    """Every process a test starts; `close` stops them all (also after a failure)."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def spawn(
        self, name: str, args: Sequence[str], env: dict[str, str], cwd: Path = ROOT
    ) -> subprocess.Popen[bytes]:
        log = self.log_dir / f"{name}-{len(self.started)}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                list(args),
                env=env,
                cwd=cwd,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own group: a worker's forked job dies with it
            )
        self.started.append((proc, log))
        return proc

    def log_of(self, proc: subprocess.Popen[bytes]) -> Path:
        return next(log for p, log in self.started if p is proc)

    def tail(self, proc: subprocess.Popen[bytes], lines: int = 40) -> str:
        text = self.log_of(proc).read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def wait_ready(self, proc: subprocess.Popen[bytes], base: str, timeout: float) -> None:
        """Until ``base``'s /readyz answers 200; RuntimeError if ``proc`` exits first or
        ``timeout`` passes."""
        name = self.log_of(proc).stem  # "api-0", "run-2"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{name} exited ({proc.returncode}):\n{self.tail(proc)}")
            try:
                if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not become ready:\n{self.tail(proc)}")

    def api(
        self,
        env: dict[str, str],
        timeout: float = 30.0,
        python: str = sys.executable,
        cwd: Path = ROOT,
    ) -> Api:
        """A ready `stakeout serve` on a free port (``python`` and ``cwd``: another
        checkout's, as a bench compares builds)."""
        port = free_port()
        args = [python, "-m", "stakeout.cli", "serve"]
        proc = self.spawn("api", args, {**env, "PORT": str(port)}, cwd)
        base = f"http://127.0.0.1:{port}"
        self.wait_ready(proc, base, timeout)
        return Api(proc, base, self.log_of(proc))

    def worker(self, env: dict[str, str], queues: str | None = None) -> subprocess.Popen[bytes]:
        """`stakeout worker` (a game worker, or one of ``queues``: "webhooks")."""
        args = [sys.executable, "-m", "stakeout.cli", "worker"]
        return self.spawn("worker", [*args, "--queues", queues] if queues else args, env)

    def run(self, env: dict[str, str], timeout: float = 120.0) -> Run:
        """A ready `stakeout run` with ``env`` (`run_env`'s: its port and data folder)."""
        proc = self.spawn("run", [sys.executable, "-m", "stakeout.cli", "run"], env)
        base = f"http://127.0.0.1:{env['PORT']}"
        self.wait_ready(proc, base, timeout)
        return Run(proc, base, Path(env["STAKEOUT_DATA_DIR"]))

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL ``proc``'s whole process group (its forked job too), as a crash does."""
        self._kill_group(proc)

    def stop(
        self, proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout: float = 25.0
    ) -> int:
        """Signal ``proc`` and wait; SIGKILL its process group after ``timeout``, and what
        it started in sessions of their own (`stakeout run`'s Valkey) if they outlive it."""
        apart = self._apart(proc)
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self._kill_group(proc)
        self._kill_group(proc)  # leftovers of the group (a forked job, a scheduler)
        self._kill_left(apart)
        return int(proc.returncode)

    @staticmethod
    def _kill_group(proc: subprocess.Popen[bytes]) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.wait(timeout=10)

    @staticmethod
    def _apart(proc: subprocess.Popen[bytes]) -> dict[int, str]:
        """The children of a live ``proc`` outside its process group: their command lines."""
        if proc.poll() is not None:
            return {}
        kids = child_processes(proc.pid, zombies=False).items()
        return {pid: line for pid, line in kids if _group_of(pid) not in {None, proc.pid}}

    @staticmethod
    def _kill_left(apart: dict[int, str]) -> None:
        """SIGKILL those of ``apart`` still running (the same command line: not a new
        process given a freed pid)."""
        for pid, line in apart.items():
            try:
                now = (Path(f"/proc/{pid}") / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if now.decode() == line:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def close(self) -> None:
        apart = [self._apart(proc) for proc, _ in self.started]
        for proc, _ in reversed(self.started):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc, _ in reversed(self.started):
            self.stop(proc, timeout=15.0)
        for left in apart:
            self._kill_left(left)


@contextlib.contextmanager
def running(log_dir: Path) -> Iterator[Processes]:
    """The processes started in the block, stopped when it ends (also on an error)."""
    procs = Processes(log_dir)
    try:
        yield procs
    finally:
        procs.close()


@contextlib.contextmanager
def embedded_redis(folder: Path) -> Iterator[str]:
    """A Valkey server (AOF on, in ``folder``) on a free port until the block ends: its URL."""
    server = EmbeddedRedis(folder)
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


@contextlib.contextmanager
def valkey_and_processes() -> Iterator[tuple[str, Processes]]:
    """A temporary folder with an embedded Valkey (its URL) and the processes started on
    it (their logs there), all stopped and removed when the block ends: a bench's setup."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        embedded_redis(Path(tmp) / "valkey") as url,
        running(Path(tmp)) as procs,
    ):
        yield url, procs


def cli_module(tree: Path) -> str:
    """The module of the ``stakeout`` command in ``tree`` (an older build had it in
    service/)."""
    return "stakeout.cli" if (tree / "stakeout" / "cli.py").exists() else "service.ops.cli"


@contextlib.contextmanager
def exported(ref: str) -> Iterator[Path]:
    """The tree of ``ref`` (`git archive`) in a temporary folder until the block ends: an
    older build a bench starts processes from (with this venv), beside this one."""
    with tempfile.TemporaryDirectory(prefix="stakeout-ref-", ignore_cleanup_errors=True) as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        yield Path(tmp)


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    with running(tmp_path) as procs:
        yield procs


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[str]:
    """A Valkey server (AOF on) for this test only."""
    with embedded_redis(tmp_path / "valkey") as url:
        yield url


# ---- playing over HTTP ------------------------------------------------------------------


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class HumanSeat:
    """One human seat a client plays: its token and the secret of its open sealed step."""

    game_id: str
    seat: int
    token: str
    kept: tuple[dict[str, Any], str] | None = None
    done: bool = False


def next_request(
    seat: HumanSeat, seen: dict[str, Any], rng: random.Random
) -> tuple[str, dict[str, Any]] | None:
    """The request the seat makes now (path, body), or None when it is not awaited.

    A random legal move; for a sealed step a commitment to it (salt from ``rng``, so the run
    is reproducible), then, once every seat has committed, the reveal of the kept move.
    """
    mine = [a for a in seen["awaiting"] if a["seat"] == seat.seat]
    if seen["status"] == "finished" or not mine:
        return None
    action = mine[0]
    base = f"/v1/games/{seat.game_id}"
    if action["action"] == "reveal":
        assert seat.kept is not None, "asked to reveal without a commitment"
        move, salt = seat.kept
        return f"{base}/reveals", {"move": move, "salt": salt}
    assert seen["legal"], f"seat {seat.seat} is awaited with no legal move: {seen['awaiting']}"
    move = rng.choice(seen["legal"])
    if action["action"] == "move":
        return f"{base}/moves", move
    salt = f"{rng.getrandbits(128):032x}"
    seat.kept = (move, salt)
    digest = commitment(seat.game_id, action["step"], seat.seat, move, salt)
    return f"{base}/commitments", {"commitment": digest}


def page_events(
    get: Callable[[str, dict[str, Any]], httpx.Response], game_id: str, limit: int = 100
) -> list[dict[str, Any]]:
    """The whole event log through ``GET /v1/games/{id}/events``, page by page."""
    events: list[dict[str, Any]] = []
    after = 0
    for _ in range(100_000):
        response = get(f"/v1/games/{game_id}/events", {"after": after, "limit": limit})
        assert response.status_code == 200, response.text
        page = response.json()
        events += page["events"]
        if not page["has_more"]:
            return events
        assert page["next_after"] > after
        after = page["next_after"]
    raise AssertionError("the event log did not end")


# ---- reading and verifying a stream as Redis holds it ----------------------------------


@dataclass(frozen=True)
class Entry:
    version: int
    data: bytes
    cause: bytes | None


def events_key(game_id: str) -> str:
    return f"game:{{{game_id}}}:events"


def read_seed(client: Any, game_id: str) -> bytes:
    """The game's secret seed, as the server keeps it (hex)."""
    raw = client.get(f"game:{{{game_id}}}:seed")
    assert isinstance(raw, bytes), f"no seed for {game_id}"
    return bytes.fromhex(raw.decode())


def read_stream(client: Any, game_id: str) -> list[Entry]:
    """Every entry of a game's stream (a sync redis-py client, plain or cluster)."""
    out: list[Entry] = []
    for entry_id, fields in client.xrange(events_key(game_id), "-", "+"):
        eid = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
        out.append(Entry(int(eid.split("-", 1)[1]), fields[b"e"], fields.get(b"c")))
    return out


@dataclass
class Batch:
    """One append: the act (None for the opening batch) and the versions it took."""

    act: Act | None
    first: int
    last: int
    types: list[str]
    seat_type: str | None = None


@dataclass
class Verified:
    game: str
    match: Match
    batches: list[Batch] = field(default_factory=list)

    @property
    def results_recorded(self) -> int:
        return sum(t == "game.result_recorded" for b in self.batches for t in b.types)

    def acts_by(self, seat_type: str) -> list[Batch]:
        return [b for b in self.batches if b.seat_type == seat_type]


_ACT = msgspec.json.Decoder(Act)


def verify_stream(entries: Sequence[Entry], seed: bytes) -> Verified:
    """Replay ``entries`` and re-decide each stored act; raise AssertionError on any flaw.

    Checks: versions are exactly 1..N; the opening batch starts with ``game.created``;
    every later batch starts with an entry carrying its act and holds exactly the events
    that act produces (same bytes) on the state before it — so nothing was appended twice,
    nothing was lost in between, and no act was taken by a seat that was not awaited.
    """
    versions = [e.version for e in entries]
    assert versions == list(range(1, len(entries) + 1)), f"versions not gap-free: {versions}"
    assert entries, "empty stream"
    opening = msgspec.json.decode(entries[0].data)
    rules = registry.engine_for(opening["game"])
    assert rules is not None, opening
    decoder = msgspec.json.Decoder(event_union(rules.game))
    encoder = msgspec.json.Encoder()
    raw_types = [msgspec.json.decode(e.data)["type"] for e in entries]

    groups: list[list[Entry]] = []
    for entry in entries:
        if entry.cause is not None or not groups:
            groups.append([entry])
        else:
            groups[-1].append(entry)
    assert groups[0][0].cause is None, "the opening batch carries no act"
    match = rules.replay([decoder.decode(e.data) for e in groups[0]])
    seats = match.seats
    verified = Verified(
        rules.game.name,
        match,
        [Batch(None, 1, len(groups[0]), raw_types[: len(groups[0])])],
    )
    for group in groups[1:]:
        assert group[0].cause is not None
        act = _ACT.decode(group[0].cause)
        before = match.version
        assert group[0].version == before + 1
        produced = [encoder.encode(e) for e in rules.perform(match, act, seed)]
        stored = [e.data for e in group]
        assert produced == stored, (
            f"batch at v{group[0].version} ({act!r}) is not what its act decides:\n"
            f"stored   {[msgspec.json.decode(s)['type'] for s in stored]}\n"
            f"produced {[msgspec.json.decode(p)['type'] for p in produced]}"
        )
        for e in group:
            match = rules.fold(match, decoder.decode(e.data))
        seat = getattr(act, "seat", None)
        verified.batches.append(
            Batch(
                act,
                group[0].version,
                group[-1].version,
                raw_types[group[0].version - 1 : group[-1].version],
                seats[seat].type if seat is not None else None,
            )
        )
    verified.match = match
    return verified
