"""The README tour's Python client, run as a reader runs it: in the clone's folder (its
`.data/api-key`), with PORT set, the SDK installed (here: on the path), to the game's end."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.clients.conftest import ROOT, Server
from tests.helpers import API_KEY


def readme_client() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("\n## A five-minute tour")
    found = re.search(r"^```python\n(.*?)^```$", readme[start:], re.S | re.M)
    assert found is not None, "the tour has no Python client"
    return found.group(1)


def test_the_readme_python_client_plays_a_game_to_the_end(
    stakeout_run: Server, tmp_path: Path
) -> None:
    program = readme_client()
    assert len(program.strip().splitlines()) <= 11  # the ten-line client, blank line aside
    (tmp_path / ".data").mkdir()
    (tmp_path / ".data" / "api-key").write_text(API_KEY + "\n")
    env = {**os.environ, "PORT": stakeout_run.base.rsplit(":", 1)[1]}
    env["PYTHONPATH"] = str(ROOT / "clients" / "python")
    result = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Outcome("), result.stdout  # the result, printed
