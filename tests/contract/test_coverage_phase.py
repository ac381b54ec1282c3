"""Schemathesis's coverage phase against the real server, with every check: boundary and
schema-violating values for every parameter and body, undeclared methods (405 with
`Allow`), missing content types (415) and unknown fields (400). The CLI is the reference
runner for this phase; it runs in its own process against the session's server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers import API_KEY

ROOT = Path(__file__).resolve().parents[2]


def test_the_coverage_phase_with_every_check_passes(server_url: str, tmp_path: Path) -> None:
    command = [
        str(Path(sys.executable).parent / "st"),
        "--config-file",
        str(ROOT / "schemathesis.toml"),
        "--no-color",
        "run",
        f"{server_url}/schema/openapi.json",
        "--phases",
        "coverage",
        "--checks",
        "all",
        "--seed",
        "15",
        "--header",
        f"Authorization: Bearer {API_KEY}",
        # The live feeds stay open (a game's until it ends, an account's for good);
        # tests/e2e covers them.
        "--exclude-path-regex",
        "(/stream|/v1/feed)$",
    ]
    run = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False
    )
    summary = run.stdout[-6000:]
    assert run.returncode == 0, summary
    assert "Coverage" in run.stdout, summary
    assert " passed" in run.stdout, summary
    assert "failure" not in run.stdout.splitlines()[-1], summary
