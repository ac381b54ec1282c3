"""Live feeds: one blocking stream reader per watched game per process, fanned out.

Every open Server-Sent-Events connection is an asyncio task waiting on its own queue; one
``XREAD BLOCK`` loop per game (on a client without a socket timeout, as a blocking read
needs) feeds all the game's subscribers. So a process holds many open streams without a
thread, or a Redis connection, per stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from service.store import AnyRedis, EventStore, StoredEvent

BLOCK_MS = 5_000


@dataclass
class _Watch:
    subscribers: set[asyncio.Queue[StoredEvent]] = field(default_factory=set)
    task: asyncio.Task[None] | None = None


class LiveFeed:
    def __init__(self, blocking: AnyRedis, store: EventStore) -> None:
        self._redis = blocking
        self._store = store
        self._watches: dict[str, _Watch] = {}

    @property
    def watched_games(self) -> int:
        return len(self._watches)

    @property
    def subscribers(self) -> int:
        return sum(len(w.subscribers) for w in self._watches.values())

    async def attach(self, game_id: str) -> asyncio.Queue[StoredEvent]:
        """A queue receiving every event appended from now on."""
        queue: asyncio.Queue[StoredEvent] = asyncio.Queue()
        watch = self._watches.get(game_id)
        if watch is None:
            watch = self._watches[game_id] = _Watch()
            start = await self._store.version(game_id)
            watch.task = asyncio.create_task(self._pump(game_id, watch, start))
        watch.subscribers.add(queue)
        return queue

    def detach(self, game_id: str, queue: asyncio.Queue[StoredEvent]) -> None:
        watch = self._watches.get(game_id)
        if watch is None:
            return
        watch.subscribers.discard(queue)
        if not watch.subscribers:
            self._watches.pop(game_id, None)
            if watch.task is not None:
                watch.task.cancel()

    async def _pump(self, game_id: str, watch: _Watch, last: int) -> None:
        key = f"game:{{{game_id}}}:events"
        while watch.subscribers:
            rows: Any = await self._redis.xread({key: f"0-{last}"}, count=200, block=BLOCK_MS)
            for _stream, entries in rows or []:
                for entry_id, fields in entries:
                    version = int(bytes(entry_id).split(b"-")[1])
                    event = StoredEvent(version, bytes(fields[b"e"]), int(fields.get(b"t", 0)))
                    for queue in list(watch.subscribers):
                        queue.put_nowait(event)
                    last = version

    async def close(self) -> None:
        for watch in list(self._watches.values()):
            if watch.task is not None:
                watch.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await watch.task
        self._watches.clear()
