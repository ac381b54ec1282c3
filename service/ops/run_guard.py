"""What `stakeout run` checks before it starts anything, each failure one sentence.

- **One run per data folder.** The run holds an exclusive ``flock`` on ``run.pid`` in its
  data folder (the file says which process holds it). The kernel lets go of the lock when
  the process ends, however it ends, so the lock of a run that was killed is simply taken
  over; a second run in the same folder is refused while the first one lives.
- **The port is free.** A trial bind of the address the API is to serve on.
- **No Valkey left behind on the folder.** A run killed with SIGKILL cannot stop its
  embedded Valkey (it runs in a session of its own: service/ops/embedded.py), which keeps
  the folder's Unix socket and append-only file. Under the lock, a Valkey still answering
  on that socket can only be such a leftover: it is shut down (which writes its AOF out)
  and the run starts its own on the same data.

`banner` prints what a live run printed when it started: the address, the docs and the
API key (`stakeout banner`, `make banner`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import time
from pathlib import Path
from typing import IO

import redis

LOCK_NAME = "run.pid"
BANNER_NAME = "banner.txt"
# How long a leftover Valkey may take to write out its AOF and exit.
GONE_SECONDS = 30.0


class RunRefused(Exception):
    """Why `stakeout run` does not start, in one sentence for the terminal."""


class RunLock:
    """The data folder's run lock, held by this process until it exits (or `release`)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._file: IO[str] | None = None

    def claim(self) -> None:
        """Hold the lock, or raise `RunRefused` naming the run that holds it."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.data_dir / LOCK_NAME
        handle = path.open("a+")  # not truncated before the lock is ours
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise RunRefused(
                f"Stakeout is already running in this folder (pid {holder}, data in "
                f"{self.data_dir}): `make banner` prints its address and key; stop it "
                "(Ctrl+C where it runs) before starting another."
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._file = handle

    def write_banner(self, text: str) -> None:
        """Keep the banner for `stakeout banner` (it holds the API key: owner only)."""
        path = self.data_dir / BANNER_NAME
        path.touch(mode=0o600)
        path.write_text(text)

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                (self.data_dir / BANNER_NAME).unlink()
            self._file.close()  # closing the file lets go of the lock
            self._file = None


def running_banner(data_dir: Path) -> str | None:
    """The banner of the run that holds ``data_dir``'s lock, or None when none runs."""
    path = data_dir / LOCK_NAME
    if not path.exists():
        return None
    with path.open() as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # held: a run lives
            banner = data_dir / BANNER_NAME
            return banner.read_text() if banner.exists() else None
        return None  # nobody held it (closing the file lets go of ours)


def check_port(host: str, port: int) -> None:
    """Raise `RunRefused` unless the API could listen on ``host``:``port`` now."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise RunRefused(
                f"Port {port} on {host} is already taken by another program: stop it, or "
                f"serve on another port (PORT={port + 1} make run)."
            ) from None
        raise RunRefused(
            f"Cannot serve on {host}:{port} ({exc.strerror or exc}): set HOST and PORT to "
            "an address of this machine."
        ) from None


def stop_leftover_valkey(socket_path: Path) -> int | None:
    """Shut down a Valkey still serving ``socket_path`` (a killed run's), once its AOF is
    written; its process id, or None when there was none. Call it holding the run lock."""
    if not socket_path.exists():
        return None
    client = redis.Redis(unix_socket_path=str(socket_path), socket_timeout=5.0)
    try:
        pid = int(client.info("server")["process_id"])
        # SHUTDOWN flushes the append-only file first; the connection drops as it exits.
        with contextlib.suppress(redis.ConnectionError):
            client.shutdown(save=False)
    except redis.RedisError:
        return None  # a socket file that nothing serves: Valkey replaces it
    finally:
        client.close()
    deadline = time.monotonic() + GONE_SECONDS
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return pid


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
