"""The SDKs' tests run against a real `stakeout run` (its embedded Valkey, workers and API
process), one per module; the Python SDK is imported from clients/python, as a program
that installed it would."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.processes import Processes, free_port, run_env

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))


@dataclass(frozen=True)
class Server:
    base: str
    processes: Processes


def start_run(processes: Processes, data: Path, **extra: str) -> str:
    """`stakeout run` with its own port and data folder, the test's API key and ``extra``
    settings; its URL once ready."""
    env = run_env(data, free_port(), api_key=True, **extra)
    env.update(STAKEOUT_API_PROCESSES="1", STAKEOUT_WEBHOOK_ALLOW_PRIVATE="1")
    return processes.run(env).base


@pytest.fixture(scope="module")
def stakeout_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `stakeout run` for the module's tests (no rate limit)."""
    folder = tmp_path_factory.mktemp("stakeout-run")
    processes = Processes(folder)
    try:
        yield Server(start_run(processes, folder / "data"), processes)
    finally:
        processes.close()
