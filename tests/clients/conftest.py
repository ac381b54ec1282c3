"""The SDKs' tests run against a real `stakeout run` (its embedded Valkey, workers and API
process), one per module; the Python SDK is imported from clients/python, as a program
that installed it would."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.helpers import API_KEY, wait_for
from tests.processes import Processes, free_port, service_env

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))


@dataclass(frozen=True)
class Server:
    base: str
    processes: Processes


def start_run(processes: Processes, data: Path, **extra: str) -> str:
    """`stakeout run` with its own port and data folder, the test's API key and ``extra``
    settings; its URL once ready."""
    port = free_port()
    env = service_env("", PORT=str(port), STAKEOUT_DATA_DIR=str(data), **extra)
    env.pop("REDIS_URL")  # its embedded Valkey
    env.update(STAKEOUT_API_PROCESSES="1", STAKEOUT_WEBHOOK_ALLOW_PRIVATE="1")
    env.setdefault("STAKEOUT_API_KEYS", API_KEY)
    run = processes.spawn("run", [sys.executable, "-m", "stakeout.cli", "run"], env)
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        assert run.poll() is None, processes.tail(run)
        try:
            return httpx.get(base + "/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    wait_for(ready, timeout=120, interval=0.2)
    return base


@pytest.fixture(scope="module")
def stakeout_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `stakeout run` for the module's tests (no rate limit)."""
    folder = tmp_path_factory.mktemp("stakeout-run")
    processes = Processes(folder)
    try:
        yield Server(start_run(processes, folder / "data"), processes)
    finally:
        processes.close()
