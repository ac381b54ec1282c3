"""`stakeout run` keeps its children alive: the RQ workers and the embedded Valkey.

A thread checks every ``CHECK_SECONDS`` whether a worker process or the embedded server
has died (a crash or a kill: a non-zero exit status), logs it, and starts it again (the
server on the same port and data directory, so its AOF brings back everything
acknowledged, and every client reconnects to the same URL). A child that exits with status
0 was told to stop (a Ctrl+C reaches the whole process group) and is left alone. A child
that keeps dying is restarted with a growing delay (up to ``MAX_DELAY_SECONDS``). The API
processes are the ASGI server's (uvicorn's or granian's: `STAKEOUT_API_SERVER`), which
restarts those itself.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from service.ops.embedded import EmbeddedRedis

log = logging.getLogger("stakeout.run")

CHECK_SECONDS = 0.5
MAX_DELAY_SECONDS = 10.0
STOP_SECONDS = 20.0


@dataclass
class _Child:
    queues: tuple[str, ...]
    proc: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    failures: int = 0  # exits in a row soon after a start
    started_at: float = field(default=0.0)


class Supervisor:
    def __init__(
        self,
        env: dict[str, str],
        workers: Sequence[tuple[str, ...]],
        embedded: EmbeddedRedis | None = None,
    ) -> None:
        self._env = env
        self._children = [_Child(tuple(queues)) for queues in workers]
        self._embedded = embedded
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="supervisor", daemon=True)
        self.valkey_restarts = 0

    def _spawn(self, child: _Child) -> None:
        args = [
            sys.executable,
            "-m",
            "stakeout.cli",
            "worker",
            "--queues",
            ",".join(child.queues),
            "--with-parent",
        ]
        child.proc = subprocess.Popen(args, env=self._env)  # noqa: S603 - our own command
        child.started_at = time.monotonic()

    def start(self) -> None:
        for child in self._children:
            self._spawn(child)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(CHECK_SECONDS):
            try:
                self._check()
            except Exception:
                log.exception("supervisor check failed")

    def _check(self) -> None:
        embedded = self._embedded
        died = embedded is not None and embedded.exited() and embedded.returncode != 0
        if embedded is not None and died and not self._stop.is_set():
            log.warning("the embedded Valkey died; starting it again on its AOF")
            embedded.restart()
            self.valkey_restarts += 1
            log.warning("the embedded Valkey is back on %s", embedded.url)
        for child in self._children:
            proc = child.proc
            if proc is None or proc.poll() in (None, 0) or self._stop.is_set():
                continue
            quick = time.monotonic() - child.started_at < MAX_DELAY_SECONDS
            child.failures = child.failures + 1 if quick else 0
            delay = min(MAX_DELAY_SECONDS, 0.5 * 2 ** max(0, child.failures - 1))
            log.warning(
                "worker for %s exited with %s; starting another in %.1f s",
                ",".join(child.queues),
                proc.returncode,
                delay,
            )
            if self._stop.wait(delay):
                return
            self._spawn(child)
            child.restarts += 1

    def stop(self) -> None:
        """SIGTERM every worker (a warm shutdown), then SIGKILL what is left."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=STOP_SECONDS)
        procs = [c.proc for c in self._children if c.proc is not None]
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
