"""The real app for the browser tests: an embedded Valkey, one API process and one RQ worker
(bots and scoring), each a real OS process, stopped whole when the tests end.

Run it by hand to look at the pages: ``.venv/bin/python -m tests.browser.stack`` prints
the address and the API key and serves until Ctrl+C.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from service.embedded import EmbeddedRedis
from tests.helpers import API_KEY
from tests.processes import Processes, service_env


@dataclass(frozen=True)
class Stack:
    base: str
    api_key: str
    processes: Processes


@contextmanager
def running_stack(folder: Path) -> Iterator[Stack]:
    """Valkey, the API and a game worker, on free ports under ``folder``."""
    redis = EmbeddedRedis(folder / "valkey")
    url = redis.start()
    processes = Processes(folder)
    try:
        env = service_env(url, STAKEOUT_SWEEP_SECONDS="2")
        api = processes.api(env)
        processes.worker(env)
        yield Stack(api.base, API_KEY, processes)
    finally:
        processes.close()
        redis.stop()


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, running_stack(Path(folder)) as stack:
        print(f"{stack.base}/web/  API key: {stack.api_key}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            sys.exit(0)


if __name__ == "__main__":
    main()
