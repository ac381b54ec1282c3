"""Live feeds and long-polls: a few shared stream readers per process, fanned out.

Every open Server-Sent-Events connection, and every view read waiting for a new version
(``?after_version=N&wait=S``), is an asyncio task waiting on its own queue. The games
watched by a process are spread over ``READERS`` reader tasks; each reader holds one
Redis connection and waits on all of its games at once with one ``XREAD BLOCK`` over their
streams, then hands each new event to the game's subscribers. So a process holds
thousands of feeds with ``READERS`` connections, not one per watched game.

A reader's ``XREAD`` also names a small stream of its own (its *wake* stream): when a game
is added to a reader, a write there ends the pending ``XREAD`` at once, and the next one
includes the new game. Nothing is missed meanwhile: a game is read from the version it was
watched at.

On Redis Cluster the streams of different games live in different slots, and one
``XREAD`` cannot name them together: there each watched game gets a reader of its own, as
before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any

from redis import RedisError
from redis.asyncio.cluster import RedisCluster

from service.store.clients import AnyRedis
from service.store.event_store import EventStore, StoredEvent
from service.store.keys import events_key, game_of_events_key, live_wake_key

log = logging.getLogger("stakeout.live")

BLOCK_MS = 5_000
READERS = 4
BATCH = 200
RETRY_SECONDS = 1.0


@dataclass
class _Watch:
    last: int
    subscribers: set[asyncio.Queue[StoredEvent]] = field(default_factory=set)


class _Reader:
    """One task, one connection: ``XREAD BLOCK`` over every game it watches."""

    def __init__(self, redis: AnyRedis, wake_key: str | None) -> None:
        self._redis = redis
        self.games: dict[str, _Watch] = {}
        self._wake_key = wake_key
        self._wake_last = "0-0"
        self._nonempty = asyncio.Event()
        self.task: asyncio.Task[None] = asyncio.create_task(self._run())

    async def add(self, game_id: str, watch: _Watch) -> None:
        self.games[game_id] = watch
        self._nonempty.set()
        if self._wake_key is not None:
            await self._wake()

    def remove(self, game_id: str) -> None:
        self.games.pop(game_id, None)
        if not self.games:
            self._nonempty.clear()

    async def _wake(self) -> None:
        assert self._wake_key is not None
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.xadd(self._wake_key, {"w": 1}, maxlen=1, approximate=False)
                pipe.expire(self._wake_key, 3600)
                await pipe.execute()
        except RedisError:
            # The reader's own XREAD fails too, and retries with the new game included.
            log.warning("could not wake a live reader", exc_info=True)

    async def _run(self) -> None:
        while True:
            await self._nonempty.wait()
            streams: dict[Any, Any] = {events_key(g): f"0-{w.last}" for g, w in self.games.items()}
            if self._wake_key is not None:
                streams[self._wake_key] = self._wake_last
            try:
                rows: Any = await self._redis.xread(streams, count=BATCH, block=BLOCK_MS)
            except RedisError as exc:
                log.warning("live reader: %s: %s; retrying", type(exc).__name__, exc)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            for stream, entries in rows or []:
                key = bytes(stream)
                if self._wake_key is not None and key == self._wake_key.encode():
                    self._wake_last = bytes(entries[-1][0]).decode()
                    continue
                watch = self.games.get(game_of_events_key(key))
                if watch is None:
                    continue
                for entry_id, fields in entries:
                    version = int(bytes(entry_id).split(b"-")[1])
                    if version <= watch.last:
                        continue
                    event = StoredEvent(version, bytes(fields[b"e"]), int(fields.get(b"t", 0)))
                    for queue in list(watch.subscribers):
                        queue.put_nowait(event)
                    watch.last = version

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


# What a subscriber's queue gets when its process begins to shut down (`LiveFeed.drain`,
# called by the HTTP server: service/http/protocol.py): the feeds end and the long polls
# answer, so the server's graceful shutdown need not wait for them.
DRAINED = StoredEvent(-1, b"", 0)


class LiveFeed:
    def __init__(self, blocking: AnyRedis, store: EventStore, readers: int = READERS) -> None:
        self._redis = blocking
        self._store = store
        self._shared = not isinstance(blocking, RedisCluster)
        self._size = readers
        self._readers: list[_Reader] = []
        self._per_game: dict[str, _Reader] = {}  # Redis Cluster: one reader a game
        self._watches: dict[str, _Watch] = {}
        self._token = secrets.token_hex(8)
        self._lock = asyncio.Lock()
        self.draining = False

    def drain(self) -> None:
        """Hand every subscriber `DRAINED` (and every later one at once)."""
        self.draining = True
        for watch in self._watches.values():
            for queue in watch.subscribers:
                queue.put_nowait(DRAINED)

    @property
    def blocking_client(self) -> AnyRedis:
        """The client for blocking reads (its timeout allows a ``BLOCK_MS`` block)."""
        return self._redis

    @property
    def subscribers(self) -> int:
        return sum(len(w.subscribers) for w in self._watches.values())

    @property
    def readers(self) -> int:
        """Reader tasks (each holds at most one Redis connection)."""
        return len(self._readers) + len(self._per_game)

    def _reader_for(self, game_id: str) -> _Reader:
        if not self._readers:
            self._readers = [
                _Reader(self._redis, live_wake_key(self._token, i)) for i in range(self._size)
            ]
        return self._readers[hash(game_id) % len(self._readers)]

    async def attach(self, game_id: str) -> asyncio.Queue[StoredEvent]:
        """A queue receiving every event appended from now on (`DRAINED` once the process
        begins to shut down)."""
        queue: asyncio.Queue[StoredEvent] = asyncio.Queue()
        if self.draining:
            queue.put_nowait(DRAINED)
        async with self._lock:  # one watch per game, also when many attach at once
            watch = self._watches.get(game_id)
            if watch is None:
                watch = _Watch(await self._store.version(game_id))
                self._watches[game_id] = watch
                watch.subscribers.add(queue)
                if self._shared:
                    await self._reader_for(game_id).add(game_id, watch)
                else:
                    reader = self._per_game[game_id] = _Reader(self._redis, None)
                    await reader.add(game_id, watch)
                return queue
        watch.subscribers.add(queue)
        return queue

    def detach(self, game_id: str, queue: asyncio.Queue[StoredEvent]) -> None:
        watch = self._watches.get(game_id)
        if watch is None:
            return
        watch.subscribers.discard(queue)
        if watch.subscribers:
            return
        self._watches.pop(game_id, None)
        if self._shared:
            self._reader_for(game_id).remove(game_id)
        else:
            reader = self._per_game.pop(game_id, None)
            if reader is not None:
                reader.task.cancel()

    async def wait_past(self, game_id: str, version: int, timeout: float) -> bool:
        """Wait (at most ``timeout`` s) until the game's version exceeds ``version``;
        True if it did."""
        queue = await self.attach(game_id)
        try:
            if await self._store.version(game_id) > version:
                return True
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while (left := deadline - loop.time()) > 0:
                try:
                    event = await asyncio.wait_for(queue.get(), left)
                except TimeoutError:
                    return False
                if event is DRAINED:  # shutting down: answer as it is
                    return False
                if event.version > version:
                    return True
            return False
        finally:
            self.detach(game_id, queue)

    async def close(self) -> None:
        for reader in [*self._readers, *self._per_game.values()]:
            await reader.close()
        self._readers = []
        self._per_game.clear()
        self._watches.clear()
