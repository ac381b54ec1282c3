"""redis-py's asyncio connection, writing a command without a task of its own.

With a ``socket_timeout``, redis-py sends every command through ``asyncio.wait_for``, and on
Python 3.11 ``wait_for`` wraps the write in a new task: a task, a timer and one more turn
of the event loop before the bytes leave, for each command on the request path (a profile
of the move path under load showed it). These connections write at once instead.

What the timeout is for stays covered: connecting is bounded by ``socket_connect_timeout``
(connect happens first, as before), and the reply by ``socket_timeout`` (redis-py's read,
unchanged: a timeout there drops the connection and raises ``redis.TimeoutError``). The
write itself only copies a command of a few hundred bytes into the socket's buffer, which
does not wait even when Redis is frozen; a Redis that stops reading is found by the read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from redis.asyncio.connection import Connection


class DirectConnection(Connection):
    async def send_packed_command(
        self, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        if not self.is_connected:
            await self.connect_check_health(check_health=False)
        if check_health:
            await self.check_health()  # type: ignore[no-untyped-call]
        timeout, self.socket_timeout = self.socket_timeout, None
        try:
            # Connected and checked: redis-py's own write path (its error handling
            # included), without the wait_for.
            await super().send_packed_command(command, check_health=False)
        finally:
            self.socket_timeout = timeout


def direct_writes(url: str) -> dict[str, Any]:
    """``from_url`` options that use these connections for a ``redis://`` URL (a TLS or
    Unix-socket URL names its own connection class, which ``from_url`` keeps)."""
    return {"connection_class": DirectConnection} if urlsplit(url).scheme == "redis" else {}


__all__ = ["DirectConnection", "direct_writes"]
