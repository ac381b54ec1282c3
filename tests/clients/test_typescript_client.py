"""The TypeScript SDK (clients/typescript): its generated wire types are what the contract
generates, and its Node tests (built with tsc, run with Node's built-in runner) pass against
a real `stakeout run`. The test install (`make .venv/.installed-stamp`) ran `npm ci` there,
from the lock file."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from service.ops.embedded import EmbeddedRedis
from tests.clients.conftest import ROOT, Server
from tests.helpers import API_KEY
from tests.processes import Processes, service_env

TYPESCRIPT_SDK = ROOT / "clients" / "typescript"
NPM = shutil.which("npm")
# Without the node_modules `npm ci` installs, nothing here can run: say so, never skip.
INSTALLED = (TYPESCRIPT_SDK / "node_modules" / ".bin" / "tsc").exists()


def _npm(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    assert NPM is not None, "npm is not on PATH (Node 20 is needed)"
    assert INSTALLED, (
        "clients/typescript has no node_modules: run `make .venv/.installed-stamp` (npm ci)"
    )
    return subprocess.run(
        [NPM, *args], cwd=TYPESCRIPT_SDK, env=env or dict(os.environ),
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def test_the_typescript_wire_types_are_what_the_contract_generates(tmp_path: Path) -> None:
    fresh = tmp_path / "wire.ts"
    generator = TYPESCRIPT_SDK / "node_modules" / ".bin" / "openapi-typescript"
    assert INSTALLED, (
        "clients/typescript has no node_modules: run `make .venv/.installed-stamp` (npm ci)"
    )
    result = subprocess.run(
        [str(generator), str(ROOT / "openapi" / "v1.json"), "-o", str(fresh)],
        cwd=TYPESCRIPT_SDK, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    committed = (TYPESCRIPT_SDK / "src" / "wire.ts").read_text()
    assert fresh.read_text() == committed, "src/wire.ts is stale: run `make clients`"


# Every Node test of src/test/ (none skipped): a test lost or skipped fails this.
NODE_TESTS = 17


@pytest.mark.slow
def test_the_typescript_client_plays_against_a_real_server(
    stakeout_run: Server, tmp_path: Path
) -> None:
    """The Node tests against a real `stakeout run`, and an API process of its own with a
    low rate limit (60 a minute, bursts of 3) for the 429 test."""
    built = _npm("run", "build")
    assert built.returncode == 0, built.stdout + built.stderr
    valkey = EmbeddedRedis(tmp_path / "valkey")
    processes = Processes(tmp_path)
    try:
        limited = service_env(valkey.start(), STAKEOUT_RATE_LIMIT_PER_MINUTE="60")
        limited_base = processes.api({**limited, "STAKEOUT_RATE_LIMIT_BURST": "3"}).base
        env = {
            **os.environ,
            "STAKEOUT_URL": stakeout_run.base,
            "STAKEOUT_LIMITED_URL": limited_base,
            "STAKEOUT_API_KEY": API_KEY,
        }
        ran = _npm("test", env=env)
    finally:
        processes.close()
        valkey.stop()
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "# fail 0" in ran.stdout, ran.stdout
    assert "# skipped 0" in ran.stdout, ran.stdout
    assert f"# pass {NODE_TESTS}" in ran.stdout, ran.stdout
