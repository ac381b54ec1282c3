"""A real server process (uvicorn, real Redis) for the contract tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.helpers import API_KEY


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server_url(redis_url: str) -> Iterator[str]:
    port = _free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "STAKEOUT_API_KEYS": API_KEY,
        "PORT": str(port),
        "LOG_LEVEL": "WARNING",
    }
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "serve"], env=env)
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
