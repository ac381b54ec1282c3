"""Lua scripts called on the request path with less Python per call.

An act and a view read each cost one script call (the event store's append and catch-up).
Through redis-py, one call passes the script object, the client's command execution (its
retry wrapper, per-command observability hooks, response callbacks) and a pure-Python
command packer: in an in-process profile of the GET + POST loop that machinery cost more
CPU than the game's rules (`bench/act_profile.py`, docs/design-move-path.md "Speed").

`Script` keeps what matters and drops the rest: a connection from the client's own pool
(checked out and released as redis-py does, so its health checks and reconnects stay),
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

import hiredis
import redis.asyncio
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

if TYPE_CHECKING:
    from service.store import AnyRedis


class Script:
    def __init__(self, client: AnyRedis, source: str) -> None:
        self._script = client.register_script(source)
        # The lean path only for a plain client over a pool of its own connections.
        self._pool = (
            client.connection_pool
            if isinstance(client, redis.asyncio.Redis) and client.connection is None
            else None
        )

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        pool = self._pool
        if pool is None:
            return await self._script(keys=keys, args=args)
        command = hiredis.pack_command(("EVALSHA", self._script.sha, len(keys), *keys, *args))
        for attempt in (1, 2):
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
                await pool.release(connection)
        return await self._script(keys=keys, args=args)


__all__ = ["Script"]
