"""One Redis connection shared by every concurrent script call, written once a loop turn.

The act and the view read each cost one script call (`service.store.scripts`). Through
redis-py each call in flight holds a connection of its own: one write and one read system
call per call, a timeout context armed and disarmed around every read, and Valkey reading
each connection separately. Under load many calls are in flight at once (one per game being
played), so this connection does what a pipeline does, without the caller building one:
every call made during one turn of the event loop is queued, and at the end of the turn
they leave in one write; Redis answers in order on the same connection, so the replies are
matched to the callers by position (hiredis parses them, in C). redis-py has no such mode
for asyncio (ioredis calls it auto-pipelining); the rest of the service keeps redis-py.

Failure is redis-py's vocabulary, so callers and `service.play.errors` see what they saw:

- a reply error is `redis.exceptions.ResponseError` (``NoScriptError`` for NOSCRIPT);
- a connection that breaks fails every call in flight with ``ConnectionError``, and the
  next call connects again;
- a reply that takes longer than ``socket_timeout`` fails every call in flight with
  ``TimeoutError`` and drops the connection (a frozen Redis: nothing more is written to
  it, and its late replies can never be matched to later calls);
- connecting takes at most ``socket_connect_timeout``; AUTH and SELECT (from the URL) are
  the first commands of every connection.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Sequence
from typing import Any, cast

import hiredis
from redis.exceptions import (
    AuthenticationError,
    NoScriptError,
    ResponseError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError


def pack(*parts: Any) -> bytes:
    """A command packed by hiredis, in C (byte for byte redis-py's packing)."""
    packed: bytes = hiredis.pack_command(cast(Any, parts))  # its stub types one-tuples only
    return packed


def reply_error(error: hiredis.ReplyError) -> ResponseError:
    """redis-py's exception for an error reply."""
    message = str(error)
    if message.startswith("NOSCRIPT"):
        return NoScriptError(message)
    return ResponseError(message)


class _Wire(asyncio.Protocol):
    """One connected socket: queued commands out, replies matched to their callers."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float | None) -> None:
        self._loop = loop
        self._timeout = timeout
        self._reader = hiredis.Reader()
        self._transport: asyncio.Transport | None = None
        self._out: list[bytes] = []
        # Each call in flight: its future and when it was queued (loop time).
        self._waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None
        self.broken: BaseException | None = None

    # ---- the transport's side -----------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        waiting = self._waiting
        while True:
            try:
                reply = reader.gets()
            except hiredis.ProtocolError as exc:
                self._fail(RedisConnectionError(f"unreadable reply from Redis: {exc}"))
                return
            if reply is False:
                return
            if not waiting:  # a reply nobody asked for: the stream is out of step
                self._fail(RedisConnectionError("Redis sent a reply no call was waiting for"))
                return
            future, _ = waiting.popleft()
            if future.done():  # its caller was cancelled: the reply is dropped
                continue
            if isinstance(reply, hiredis.ReplyError):
                future.set_exception(reply_error(reply))
            else:
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError("Connection closed by server."), close=False)

    # ---- the callers' side --------------------------------------------------------------

    def call(self, command: bytes) -> asyncio.Future[Any]:
        """Queue a packed command; the future has its reply (or its error)."""
        future: asyncio.Future[Any] = self._loop.create_future()
        if self.broken is not None:
            future.set_exception(RedisConnectionError("the connection to Redis broke"))
            return future
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(command)
        self._waiting.append((future, self._loop.time()))
        if self._timer is None and self._timeout is not None:
            self._timer = self._loop.call_later(self._timeout, self._check_timeout)
        return future

    def _flush(self) -> None:
        if self._out and self.broken is None and self._transport is not None:
            self._transport.write(b"".join(self._out))
        self._out.clear()

    def _check_timeout(self) -> None:
        self._timer = None
        if not self._waiting or self._timeout is None:
            return
        _, queued = self._waiting[0]
        late = queued + self._timeout - self._loop.time()
        if late <= 0:
            self._fail(RedisTimeoutError("Timeout reading from Redis"))
        else:
            self._timer = self._loop.call_later(late, self._check_timeout)

    def _fail(self, error: BaseException, close: bool = True) -> None:
        """Every call in flight fails with ``error``; the connection is not used again."""
        if self.broken is None:
            self.broken = error
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._out.clear()
        while self._waiting:
            future, _ = self._waiting.popleft()
            if not future.done():
                future.set_exception(error)
        if close and self._transport is not None:
            self._transport.abort()

    def close(self) -> None:
        self._fail(RedisConnectionError("the connection was closed"))


class Multiplexed:
    """Script calls (or any single command) over one shared connection.

    ``options`` are a redis-py pool's ``connection_kwargs``: ``path`` (a Unix socket) or
    ``host`` and ``port``; ``username``, ``password`` and ``db``; ``socket_timeout`` and
    ``socket_connect_timeout``.
    """

    def __init__(self, options: dict[str, Any]) -> None:
        self._options = options
        self._wire: _Wire | None = None
        self._connecting: asyncio.Future[_Wire] | None = None
        self._closed = False

    async def execute(self, command: bytes) -> Any:
        """The reply to a packed command (`pack`)."""
        wire = self._wire
        if wire is None or wire.broken is not None:
            if self._closed:  # shutting down: no new connection
                raise RedisConnectionError("the connection to Redis was closed")
            wire = await self._connected()
        return await wire.call(command)

    async def _connected(self) -> _Wire:
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect())
        connecting = self._connecting
        try:
            return await asyncio.shield(connecting)
        finally:
            if connecting.done() and self._connecting is connecting:
                self._connecting = None

    async def _connect(self) -> _Wire:
        loop = asyncio.get_running_loop()
        options = self._options
        wire = _Wire(loop, options.get("socket_timeout"))
        try:
            async with asyncio.timeout(options.get("socket_connect_timeout")):
                if options.get("path"):
                    await loop.create_unix_connection(lambda: wire, options["path"])
                else:
                    await loop.create_connection(
                        lambda: wire, options.get("host", "localhost"), options.get("port", 6379)
                    )
                await self._introduce(wire)
        except TimeoutError as exc:
            wire.close()
            raise RedisTimeoutError("Timeout connecting to Redis") from exc
        except OSError as exc:
            wire.close()
            raise RedisConnectionError(f"Error connecting to Redis: {exc}") from exc
        self._wire = wire
        return wire

    async def _introduce(self, wire: _Wire) -> None:
        """AUTH and SELECT, as the URL asks."""
        options = self._options
        password, username = options.get("password"), options.get("username")
        if password is not None:
            auth: Sequence[Any] = ("AUTH", username, password) if username else ("AUTH", password)
            try:
                await wire.call(pack(*auth))
            except ResponseError as exc:
                wire.close()
                raise AuthenticationError(str(exc)) from exc
        db = int(options.get("db") or 0)
        if db:
            await wire.call(pack("SELECT", db))

    def close(self) -> None:
        """Fail the calls in flight and connect no more."""
        self._closed = True
        if self._wire is not None:
            self._wire.close()


__all__ = ["Multiplexed", "pack", "reply_error"]
