"""One feed of all an API key's games (``GET /v1/feed``), and the lifecycle notifications
it shares with webhooks.

Notifications: ``seat.awaited`` (a human seat must act), ``game.started`` (no seat is open
any more; at creation for a game without open seats), ``game.finished`` (played to the end,
or abandoned), ``game.aborted`` (ended by its creator), ``rematch.created`` (the next game of
a table). Each carries the seats' names and external ids, never a token.

The feed is a Redis stream per API key, ``owner:{<key>}:feed`` (trimmed to about
``FEED_LENGTH`` entries), appended by the follow-up of each change (the same step that sends
webhooks), with each notification's id checked once (``SET NX`` on a short-lived key, in one
script with the append), so a follow-up that runs twice records a notification once. Its
entry ids are Redis's, so a reader resumes with ``Last-Event-ID`` exactly where it was.

A key's feed is recorded while the key uses it: opening the feed (or asking for a feed
ticket) marks the key for ``FEED_ACTIVE_SECONDS`` (7 days, renewed on each use), so keys
that never read a feed cost the move path nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import msgspec

from domain.match import GameAborted, GameCreated, GameStarted, RematchCreated
from service.notify.webhooks import Notification, NotifiedSeat
from service.play.records import Loaded
from service.store.clients import AnyRedis
from service.store.keys import feed_active_key, feed_key, feed_seen_prefix

FEED_LENGTH = 10_000
FEED_ACTIVE_SECONDS = 7 * 24 * 3600
SEEN_SECONDS = 24 * 3600
BLOCK_MS = 5_000  # within the blocking client's timeout (service/live/feed.py)

_APPEND = f"""
local appended = 0
for i = 1, #ARGV, 2 do
  if redis.call('SET', KEYS[2] .. ARGV[i], '1', 'NX', 'EX', {SEEN_SECONDS}) then
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', {FEED_LENGTH}, '*', 'n', ARGV[i + 1])
    appended = appended + 1
  end
end
return appended
"""


def seats_of(loaded: Loaded) -> list[NotifiedSeat]:
    return [
        NotifiedSeat(i, s.type, s.name, s.external_id) for i, s in enumerate(loaded.match.seats)
    ]


def lifecycle(loaded: Loaded, events: Sequence[Any], at_ms: int) -> list[Notification]:
    """The lifecycle notifications ``events`` (just appended) call for (pure)."""
    game_id, version = loaded.game_id, loaded.match.version
    out: list[Notification] = []
    for event in events:
        if isinstance(event, GameStarted) or (
            isinstance(event, GameCreated) and all(s.type != "open" for s in event.seats)
        ):
            out.append(Notification(f"{game_id}-started", "game.started", game_id, version, at_ms))
        elif isinstance(event, GameAborted):
            out.append(Notification(f"{game_id}-aborted-", "game.aborted", game_id, version, at_ms))
        elif isinstance(event, RematchCreated):
            out.append(
                Notification(
                    f"{game_id}-rematch",
                    "rematch.created",
                    game_id,
                    version,
                    at_ms,
                    rematch_game_id=event.game_id,
                )
            )
    return out


def for_feed(notes: Sequence[Notification]) -> list[Notification]:
    """What the account feed shows: an abort is ``game.aborted`` (webhooks also get
    ``game.finished`` with status aborted, as before); results are not in the feed."""
    return [
        n
        for n in notes
        if n.kind != "result.recorded" and not (n.kind == "game.finished" and n.status == "aborted")
    ]


class AccountFeed:
    def __init__(self, redis: AnyRedis, blocking: AnyRedis | None = None) -> None:
        self.redis = redis
        self.blocking = blocking or redis
        self._append = redis.register_script(_APPEND)
        self._active: dict[str, tuple[float, bool]] = {}

    async def touch(self, owner: str) -> None:
        """The key uses its feed: record its games' notifications from now on."""
        await self.redis.set(feed_active_key(owner), "1", ex=FEED_ACTIVE_SECONDS)

    async def active(self, owner: str) -> bool:
        """Whether ``owner`` reads its feed (read at most once a second per process)."""
        now = time.monotonic()
        known = self._active.get(owner)
        if known is not None and now - known[0] < 1.0:
            return known[1]
        on = bool(await self.redis.exists(feed_active_key(owner)))
        if len(self._active) > 4096:
            self._active.clear()
        self._active[owner] = (now, on)
        return on

    async def record(self, owner: str, notes: Sequence[Notification]) -> int:
        if not notes:
            return 0
        args: list[Any] = []
        for note in notes:
            args += [note.id, msgspec.json.encode(note)]
        keys = [feed_key(owner), feed_seen_prefix(owner)]
        return int(await self._append(keys=keys, args=args))

    async def read(
        self, owner: str, after: str, block_ms: int = BLOCK_MS
    ) -> list[tuple[str, dict[str, Any]]]:
        """Entries after ``after`` (an entry id; ``0`` from the start), waiting up to
        ``block_ms`` for the first."""
        rows: Any = await self.blocking.xread({feed_key(owner): after}, count=200, block=block_ms)
        out: list[tuple[str, dict[str, Any]]] = []
        for _key, entries in rows or []:
            for entry_id, fields in entries:
                eid = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
                out.append((eid, msgspec.json.decode(fields[b"n"])))
        return out

    async def last_id(self, owner: str) -> str:
        rows: Any = await self.redis.xrevrange(feed_key(owner), count=1)
        if not rows:
            return "0"
        entry_id = rows[0][0]
        return entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)


# The largest part of a Redis stream entry id (each is an unsigned 64-bit integer).
MAX_ID_PART = 2**64 - 1


def stream_cursor(after: str) -> str:
    """``after`` (``ms-seq``, each up to 20 digits as the contract allows) as an entry id
    Redis takes: a part beyond the largest id is the largest, after which nothing comes."""
    ms, _, seq = after.partition("-")
    if int(ms) > MAX_ID_PART:
        return f"{MAX_ID_PART}-{MAX_ID_PART}"
    return f"{int(ms)}-{min(int(seq or 0), MAX_ID_PART)}"


async def messages(
    feed: AccountFeed, owner: str, after: str | None
) -> AsyncIterator[tuple[str | None, dict[str, Any]]]:
    """(entry id, notification) pairs from ``after`` (None: from now), forever; pings as
    (None, {"kind": "ping"}) when nothing came for a while."""
    cursor = stream_cursor(after) if after is not None else await feed.last_id(owner)
    while True:
        rows = await feed.read(owner, cursor)
        if not rows:
            yield None, {"kind": "ping"}
            continue
        for entry_id, note in rows:
            cursor = entry_id
            yield entry_id, note
        await asyncio.sleep(0)
