"""The schemathesis CLI run of `make contract-cli`, small: one seed, five examples an
operation, every check and phase against a real `stakeout run` (tests/contract/
schemathesis_cli.py). About two minutes; `make contract-cli` runs four seeds in full."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_schemathesis_cli_finds_nothing() -> None:
    command = ["-m", "tests.contract.schemathesis_cli", "--seeds", "11", "--max-examples", "5"]
    run = subprocess.run(
        [sys.executable, *command],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
