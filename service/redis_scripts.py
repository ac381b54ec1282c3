"""Lua scripts called on the request path with less Python per call.

An act and a view read each cost one script call (the event store's append and catch-up).
Through redis-py, one call passes the script object, the client's command execution (its
retry wrapper, per-command observability hooks, response callbacks) and a pure-Python
command packer: in an in-process profile of the GET + POST loop that machinery cost more
CPU than the game's rules (`bench/act_profile.py`, docs/design-move-path.md "Speed").

`Script` keeps what matters and drops the rest: a connection from the client's own pool
(taken once and held between calls, see `Scripts`; redis-py's reconnects stay),
the command packed by hiredis in C (byte for byte redis-py's packing), the reply read by
the connection (bounded by the socket timeout as before; a timeout or an error in the
middle of a reply drops the connection). The client's retry policy is kept too: a command
whose connection broke is sent again once, at once (service/context.py), never after a
timeout. A server that does not know the script yet (a restart, a failover) gets it
through redis-py's own path, which loads it. A Redis Cluster client keeps redis-py's
script calls (it routes each call by its keys).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import redis.asyncio
from redis.asyncio.connection import AbstractConnection as Connection
from redis.asyncio.connection import SSLConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

from service.redis_multiplex import Multiplexed, pack

if TYPE_CHECKING:
    from service.store import AnyRedis


# Connections held between calls at most (per client); more in use at once go back to the
# pool after their call.
MAX_HELD = 64


class Scripts:
    """The scripts of one client, and the connections they hold.

    A connection is taken from the client's pool once (connected and checked by the pool)
    and then kept here between calls: checking it out of the pool and back for every call
    cost more Python than the call itself (the pool's lock, its observability hooks and
    release events). A held connection serves one call at a time; one that failed
    mid-call was dropped by redis-py and reconnects on its next use. The pool still counts
    them as in use, so closing the client closes them.
    """

    def __init__(self, client: AnyRedis) -> None:
        self.client = client
        # The lean path only for a plain client over a pool of its own connections.
        self.pool = (
            client.connection_pool
            if isinstance(client, redis.asyncio.Redis) and client.connection is None
            else None
        )
        self.idle: list[Connection] = []
        # Over plain TCP or a Unix socket, every call shares one connection
        # (`service.redis_multiplex`); TLS keeps the held connections.
        self.shared = (
            Multiplexed(self.pool.connection_kwargs)
            if self.pool is not None and not issubclass(self.pool.connection_class, SSLConnection)
            else None
        )

    def close(self) -> None:
        if self.shared is not None:
            self.shared.close()

    def script(self, source: str) -> Script:
        return Script(self, source)


class Script:
    def __init__(self, scripts: Scripts, source: str) -> None:
        self._scripts = scripts
        self._script = scripts.client.register_script(source)

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        scripts = self._scripts
        pool = scripts.pool
        if pool is None:
            return await self._script(keys=keys, args=args)
        command = pack("EVALSHA", self._script.sha, len(keys), *keys, *args)
        shared = scripts.shared
        if shared is not None:
            try:
                try:
                    return await shared.execute(command)
                except RedisConnectionError:  # it broke: once more, on a new connection
                    return await shared.execute(command)
            except NoScriptError:
                return await self._script(keys=keys, args=args)
        idle = scripts.idle
        for attempt in (1, 2):
            if idle and attempt == 1:  # a second try takes a connection the pool checked
                connection = idle.pop()
            else:
                connection = await pool.get_connection()  # type: ignore[no-untyped-call]
            try:
                await connection.send_packed_command(command)
                return await connection.read_response()
            except NoScriptError:
                break
            except RedisConnectionError:
                # The connection is dropped already (redis-py does it on the error).
                if attempt == 2:
                    raise
            finally:
                if len(idle) < MAX_HELD:
                    idle.append(connection)
                else:  # more at once than usual (a burst, new ones after a restart)
                    await pool.release(connection)
        return await self._script(keys=keys, args=args)


__all__ = ["Script", "Scripts"]
