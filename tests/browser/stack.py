"""The real app for the browser tests: an embedded Valkey, one API process and one RQ worker
(bots and scoring), each a real OS process, stopped whole when the tests end.

Run it by hand to look at the pages: ``.venv/bin/python -m tests.browser.stack`` prints
the address and the API key and serves until Ctrl+C.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers import API_KEY
from tests.processes import Processes, embedded_redis, free_port, running, service_env


class Stack:
    """The running app; `drop_api`/`restart_api` take the API away and bring it back on
    the same address (the worker and Valkey keep running, so bots play on meanwhile)."""

    def __init__(self, redis_url: str, processes: Processes) -> None:
        self.redis_url = redis_url
        self.api_key = API_KEY
        self.processes = processes
        self.env = service_env(redis_url, STAKEOUT_SWEEP_SECONDS="2")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.api: subprocess.Popen[bytes] | None = None

    def start_api(self) -> None:
        args = [sys.executable, "-m", "stakeout.cli", "serve"]
        self.api = self.processes.spawn("api", args, {**self.env, "PORT": str(self.port)})
        self.processes.wait_ready(self.api, self.base, timeout=30)

    def drop_api(self) -> None:
        """Kill the API process: every open connection drops at once."""
        assert self.api is not None
        self.processes.stop(self.api, sig=signal.SIGKILL)

    def restart_api(self) -> None:
        self.start_api()


@contextmanager
def running_stack(folder: Path) -> Iterator[Stack]:
    """Valkey, the API and a game worker, on free ports under ``folder``."""
    with embedded_redis(folder / "valkey") as url, running(folder) as processes:
        stack = Stack(url, processes)
        stack.start_api()
        processes.worker(stack.env)
        yield stack


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with tempfile.TemporaryDirectory() as folder, running_stack(Path(folder)) as stack:
        print(f"{stack.base}/web/  API key: {stack.api_key}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            sys.exit(0)


if __name__ == "__main__":
    main()
