"""The store's Lua scripts, by concern (`streams`, `archives`, `leases`), and how they are
called: on the request path with less Python per call.

An act and a view read each cost one script call (the event store's append and catch-up).
Through redis-py, one call passes the script object, the client's command execution (its
retry wrapper, per-command observability hooks, response callbacks) and a pure-Python
command packer: in an in-process profile of the GET + POST loop that machinery cost more
CPU than the game's rules (`bench/act_profile.py`; docs/design-move-path.md, "The scripts
over one shared connection").

`Script` keeps what matters and drops the rest: the command packed by hiredis in C (byte
for byte redis-py's packing) and sent over one connection that every call of the process
shares (`service.store.multiplex`: the calls of one event loop turn leave in one write, the
replies are matched by order; a reply later than the socket timeout fails the calls in
flight and drops the connection). The client's retry policy is kept: a command whose
connection broke is sent again once, at once (service/wiring.py), never after a timeout.
A server that does not know the script yet (a restart, a failover) gets it through
redis-py's own path, which loads it. Over TLS, and with a Redis Cluster client (it routes
each call by its keys), the calls are redis-py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis.asyncio
from redis.asyncio.connection import SSLConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

from service.store.clients import AnyRedis
from service.store.multiplex import Multiplexed, pack


class Scripts:
    """The scripts of one client, and the connection they share.

    The lean path is for a plain client over TCP or a Unix socket: one `Multiplexed`
    connection, made from the client's own connection settings (host or socket, password,
    database, timeouts) and closed by `close`. Over TLS, or with a Redis Cluster client,
    the calls go through redis-py's own script objects.
    """

    def __init__(self, client: AnyRedis) -> None:
        self.client = client
        pool = (
            client.connection_pool
            if isinstance(client, redis.asyncio.Redis) and client.connection is None
            else None
        )
        self.shared = (
            Multiplexed(pool.connection_kwargs)
            if pool is not None and not issubclass(pool.connection_class, SSLConnection)
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
        shared = self._scripts.shared
        if shared is None:
            return await self._script(keys=keys, args=args)
        command = pack("EVALSHA", self._script.sha, len(keys), *keys, *args)
        try:
            try:
                return await shared.execute(command)
            except RedisConnectionError:  # it broke: once more, on a new connection
                return await shared.execute(command)
        except NoScriptError:  # loaded and run by redis-py
            return await self._script(keys=keys, args=args)


# A lease on one key (the outbox's shards, the matchmaker's pass): renewed by its holder


__all__ = ["Script", "Scripts"]
