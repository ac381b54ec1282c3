"""Presence on the live feeds: a ``presence`` message when a seat's presence changes.

Presence is not an event (it is not in the log, service/play/presence.py), so it has a
message kind of its own: SSE ``event: presence`` without an ``id`` (it is no version of the
game), NDJSON ``{"kind": "presence", ...}``. Its body is `presence_message`: every seat's
``presence`` and ``substituted``, as the view's ``seats`` show them.

Each process watches the presence of the games its feeds are open on: one task per game,
however many feeds, reads the game's presence hash every `POLL_SECONDS` (one round trip)
and hands a message to every feed of the game when a seat's status, its last time seen
while not online, or its substitution changed. A feed opened or closed in any process
(its lease written or deleted within a quarter second) and a request window that lapsed
(worked out at the read) so reach the feeds within `POLL_SECONDS` and a little.

The message goes into the feed's own queue of stored events, as a `StoredEvent` of version
`PRESENCE_VERSION` (never a game's version), so a feed waits on one queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from redis import RedisError

from service.play.errors import ServiceError
from service.play.game_service import GameService
from service.play.presence import PresenceTracker, SeatPresence
from service.store.event_store import StoredEvent
from service.views.presenter import at_table_of

log = logging.getLogger("stakeout.live")

POLL_SECONDS = 1.0
PRESENCE_VERSION = -2
_encoder = msgspec.json.Encoder()


def presence_message(presence: Sequence[SeatPresence | None]) -> dict[str, Any]:
    """The ``presence`` message's body: each seat's presence and substitution."""
    seats = []
    for i, p in enumerate(presence):
        shown, substituted = at_table_of(p)
        seats.append({"seat": i, "presence": shown, "substituted": substituted})
    return {"seats": seats}


def _key(presence: Sequence[SeatPresence | None]) -> tuple[Any, ...]:
    """What a change is: a status, a last time seen while not online, a substitution (an
    online seat's last time seen moves on every lease renewal: not a change)."""
    return tuple(
        None
        if p is None
        else (p.status, None if p.status == "online" else p.last_seen_ms, p.substituted_since_ms)
        for p in presence
    )


def is_presence(stored: StoredEvent) -> bool:
    return stored.version == PRESENCE_VERSION


def body_of(stored: StoredEvent) -> dict[str, Any]:
    decoded: dict[str, Any] = msgspec.json.decode(stored.data)
    return decoded


@dataclass
class _Watch:
    queues: set[asyncio.Queue[StoredEvent]] = field(default_factory=set)
    last: tuple[Any, ...] | None = None
    task: asyncio.Task[None] | None = None


class PresenceWatches:
    """The presence watches of this process's feeds, one per game."""

    def __init__(self, games: GameService, presence: PresenceTracker) -> None:
        self.games = games
        self.presence = presence
        self._watches: dict[str, _Watch] = {}

    async def now(self, game_id: str) -> dict[str, Any] | None:
        """The game's presence message now (None: presence is off)."""
        found = await self.presence.of(await self.games.snapshot(game_id))
        return None if found is None else presence_message(found)

    @contextlib.contextmanager
    def watching(self, game_id: str, queue: asyncio.Queue[StoredEvent]) -> Iterator[None]:
        """While the block runs, ``queue`` gets the game's presence changes."""
        if not self.presence.on:
            yield
            return
        watch = self._watches.get(game_id)
        if watch is None:
            watch = self._watches[game_id] = _Watch()
            watch.task = asyncio.get_running_loop().create_task(self._run(game_id, watch))
        watch.queues.add(queue)
        try:
            yield
        finally:
            watch.queues.discard(queue)
            if not watch.queues and self._watches.get(game_id) is watch:
                del self._watches[game_id]
                if watch.task is not None:
                    watch.task.cancel()

    async def _run(self, game_id: str, watch: _Watch) -> None:
        while True:
            try:
                loaded = await self.games.snapshot(game_id)
                found = await self.presence.of(loaded, max_age=POLL_SECONDS / 2)
            except (RedisError, ServiceError) as exc:  # the store away (a 503's cause)
                log.warning("presence not read: %s: %s", type(exc).__name__, exc)
                found = None
            except Exception:  # never the end of the game's watch: its feeds wait on it
                log.exception("presence watch of game %s", game_id)
                found = None
            if found is not None:
                key = _key(found)
                if watch.last is not None and key != watch.last:
                    data = _encoder.encode(presence_message(found))
                    for queue in list(watch.queues):
                        queue.put_nowait(StoredEvent(PRESENCE_VERSION, data, 0))
                watch.last = key
            await asyncio.sleep(POLL_SECONDS)

    async def close(self) -> None:
        for watch in list(self._watches.values()):
            if watch.task is not None:
                watch.task.cancel()
        self._watches.clear()
