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

import redis.asyncio
from redis.asyncio.connection import (
    AbstractConnection,
    Connection,
    ConnectionPool,
    UnixDomainSocketConnection,
)


class _WritesAtOnce(AbstractConnection):
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


class DirectConnection(_WritesAtOnce, Connection):
    """TCP."""


class DirectUnixConnection(_WritesAtOnce, UnixDomainSocketConnection):
    """A Unix socket (the embedded server of `stakeout run`)."""


def direct_client(url: str, **options: Any) -> redis.asyncio.Redis:
    """An asyncio client of ``url`` (``redis://`` or ``unix://``) whose connections write at
    once; ``options`` as for ``Redis.from_url``. A TLS URL keeps redis-py's own class."""
    pool = ConnectionPool.from_url(url, **options)
    # from_url names the class from the URL's scheme (the Unix one included); ours replace
    # the two plain ones.
    direct = {Connection: DirectConnection, UnixDomainSocketConnection: DirectUnixConnection}
    pool.connection_class = direct.get(pool.connection_class, pool.connection_class)
    client = redis.asyncio.Redis(connection_pool=pool)
    client.auto_close_connection_pool = True  # as from_url's: closing the client closes these
    return client


__all__ = ["DirectConnection", "DirectUnixConnection", "direct_client"]
