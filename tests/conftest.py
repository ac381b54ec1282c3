"""Shared fixtures. Tests that need Redis get a real server: the embedded Valkey started
here (one per test process), or the server at ``REDIS_URL`` when that is set."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from litestar import Litestar
from litestar.testing import TestClient

from service.app import create_app
from service.settings import Settings
from tests.processes import embedded_redis


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    external = os.environ.get("REDIS_URL")
    if external:
        # Parallel test processes share the server: each takes its own database.
        worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
        yield f"{external.rstrip('/').rsplit('/', 1)[0]}/{1 + int(worker.removeprefix('gw'))}"
        return
    with embedded_redis(Path(tmp_path_factory.mktemp("valkey"))) as url:
        yield url


@pytest.fixture
def clean_redis(redis_url: str) -> str:
    """The shared server, emptied before the test (tests in one process run one by one)."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    client.close()
    return redis_url


API_KEY = "test-api-key"


@pytest.fixture
def settings(clean_redis: str) -> Settings:
    # Tests poll as fast as they like; test_rate_limit.py turns the limit on.
    return Settings(redis_url=clean_redis, api_keys=(API_KEY,), rate_limit_per_minute=0)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient[Litestar]]:
    """The real app (real Redis, real RQ enqueueing) behind Litestar's test client."""
    with TestClient(app=create_app(settings)) as test_client:
        yield test_client


def start_worker(
    redis_url: str, queues: str = "bots,scoring", **extra: str
) -> subprocess.Popen[bytes]:
    """A real RQ worker process (its own process group, so a test can kill it whole).

    ``queues="webhooks"`` makes it a webhook delivery worker. Test webhook receivers listen
    on loopback, so its deliveries may reach private addresses unless ``extra`` says
    otherwise.
    """
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "LOG_LEVEL": "WARNING",
        "STAKEOUT_SWEEP_SECONDS": "2",
        "STAKEOUT_WEBHOOK_ALLOW_PRIVATE": "1",
        **extra,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "stakeout.cli", "worker", "--queues", queues],
        env=env,
        start_new_session=True,
    )


def stop_worker(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture
def worker(settings: Settings) -> Iterator[subprocess.Popen[bytes]]:
    """A real RQ worker process on the test Redis."""
    proc = start_worker(settings.redis_url or "")
    yield proc
    stop_worker(proc)


@pytest.fixture
def webhook_worker(settings: Settings) -> Iterator[subprocess.Popen[bytes]]:
    """A real webhook delivery worker process on the test Redis."""
    proc = start_worker(settings.redis_url or "", queues="webhooks")
    yield proc
    stop_worker(proc)


@pytest.fixture
def dispatcher(settings: Settings) -> Iterator[None]:
    """The outbox's dispatcher (as a game worker runs it, workers/main.py), on a thread of
    this process: every change is followed up (jobs enqueued, turns recorded, webhooks and
    feed entries made), and no job is run."""
    from workers.main import _dispatch

    done = threading.Event()
    thread = threading.Thread(target=_dispatch, args=(settings, "test-dispatcher", done))
    thread.start()
    yield
    done.set()
    thread.join(timeout=10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(redis_url: str) -> Iterator[str]:
    """A real API process (`stakeout serve`) on ``redis_url``, until the generator closes."""
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "STAKEOUT_API_KEYS": API_KEY,
        "STAKEOUT_RATE_LIMIT_PER_MINUTE": "0",
        "PORT": str(port),
        "LOG_LEVEL": "WARNING",
    }
    proc = subprocess.Popen([sys.executable, "-m", "stakeout.cli", "serve"], env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/readyz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        proc.kill()
        raise RuntimeError("the server did not start")
    yield base
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="session")
def server_url(redis_url: str) -> Iterator[str]:
    """A real API process on the test process's Redis (tests that read the store or run a
    worker beside it share its database)."""
    yield from serve(redis_url)
