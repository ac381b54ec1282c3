"""The workers and the process's wiring load no web framework: `Answers` and the live feeds
live below the HTTP layer (service/seats, service/live), so an RQ worker never imports
Litestar, the API's controllers or the HTTP pipeline (checked in a fresh interpreter: this
test process has loaded the app already)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, sys
import workers.main, workers.jobs, service.wiring
print(json.dumps(sorted(m for m in sys.modules
                        if m.split(".")[0] == "litestar"
                        or m.startswith(("service.api", "service.http", "service.app")))))
"""


def test_a_worker_and_the_wiring_load_no_web_framework() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
