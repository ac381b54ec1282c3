"""A game's live feeds, for one caller: its events, or its view after each change.

**The event feed** (``GET /v1/games/{id}/stream``): the backlog after a version, then the
live events, each one record redacted for the caller, as Server-Sent Events (``id`` the
version, ``event`` the event's type); it ends with the game.

**The view feed** (``?feed=view``): messages are dicts with a ``kind``: ``view`` (the
caller's whole view, as GET /v1/games/{id} gives it), ``events`` (a batch of event records,
redacted for the caller), ``ping`` (a heartbeat). The view comes first; then, after each
batch of new events, an ``events`` message followed by a ``view`` message. Resuming
(``Last-Event-ID`` or ``after``) first sends the events after that version, then the view.
After the game ends the view feed stays open for ``REMATCH_WAIT_SECONDS`` so the table
learns of a rematch (the view's ``rematch`` and a ``rematch.created`` event); it closes once
the rematch is made or that time has passed.

Both feeds also carry ``presence`` messages (service/live/presence.py): every seat's
presence, whenever one changes; a feed of a seat keeps that seat online while it is open.

Both feeds also come as NDJSON (`as_ndjson`, `sse_as_ndjson`). When the process begins to
shut down, both end at once (`service.live.feed.DRAINED`): the client reconnects to another
process, resuming after the last version it got. The subscription is opened
before the backlog is read, so nothing appended in between is missed; versions already sent
are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.match import FINAL_EVENT_TYPES
from service.live.feed import DRAINED, LiveFeed
from service.live.presence import PresenceWatches, body_of, is_presence
from service.play.access import Caller
from service.play.deadlines import DeadlineStore
from service.play.game_service import GameService
from service.play.presence import is_over
from service.play.records import Loaded, Versioned
from service.store.event_store import StoredEvent
from service.views.presenter import awaiting_of, event_records, game_view
from service.views.schemas import GameView

HEARTBEAT_SECONDS = 15.0
REMATCH_WAIT_SECONDS = 600.0
# An event is redacted and encoded once per seat (spectators: once), not once per feed: the
# same message goes to every feed of that seat. A small per-process cache.
RENDERED_CACHE = 4096
_rendered: OrderedDict[tuple[str, int, int | None], tuple[FeedMessage, bool]] = OrderedDict()
_encoder = msgspec.json.Encoder()

ViewMessages = AsyncIterator[tuple[int | None, dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class FeedMessage:
    """One Server-Sent Event, as the edge sends it (`service.api.v1.games`): a comment (a
    ping) or ``data`` with its ``event`` type and ``id`` (the version)."""

    data: str | None = ""
    event: str | None = None
    id: int | None = None
    comment: str | None = None


@dataclass(frozen=True, slots=True)
class PlayPush:
    """One thing a play socket is pushed: ``kind`` view (``body`` the `GameView`, ``version``
    its version), presence (``body`` the presence message) or end (``body`` why: game-over,
    drained)."""

    kind: str
    version: int | None
    body: Any


class GameFeeds:
    """The live feeds of games: the game service (the state and its events), the live
    readers (what is appended now) and the turn deadlines (the view's countdowns)."""

    def __init__(
        self,
        games: GameService,
        live: LiveFeed,
        deadlines: DeadlineStore,
        presence: PresenceWatches,
    ) -> None:
        self.games = games
        self.live = live
        self.deadlines = deadlines
        # The seats' presence: a feed of a seat keeps it online, and every feed is told of
        # its changes (service/live/presence.py).
        self.presence = presence

    @contextlib.contextmanager
    def _present(
        self, loaded: Loaded, caller: Caller, queue: asyncio.Queue[StoredEvent]
    ) -> Iterator[None]:
        """While a feed is open: its seat online, the game's presence changes in its queue."""
        game_id, over = loaded.game_id, is_over(loaded)
        self.presence.presence.seen(game_id, caller.seat, over)
        with (
            self.presence.presence.feed_open(game_id, caller.seat, over),
            self.presence.watching(game_id, queue),
        ):
            yield

    async def events(
        self, loaded: Loaded, caller: Caller, after: int
    ) -> AsyncIterator[FeedMessage]:
        """The event feed after version ``after``; ends with the game."""
        game_id = loaded.game_id
        queue = await self.live.attach(game_id)
        sent = after
        try:
            finished = _over(loaded)
            for versioned in await self.games.events_after(loaded, after):
                yield _message(loaded, versioned, caller)
                sent = versioned.version
                finished = finished or isinstance(versioned.event, FINAL_EVENT_TYPES)
            with self._present(loaded, caller, queue):
                async for message in self._live_events(loaded, caller, queue, sent, finished):
                    yield message
        finally:
            self.live.detach(game_id, queue)

    async def _live_events(
        self,
        loaded: Loaded,
        caller: Caller,
        queue: asyncio.Queue[StoredEvent],
        sent: int,
        finished: bool,
    ) -> AsyncIterator[FeedMessage]:
        """The event feed's live part: events as they come, presence changes, pings."""
        while not finished:
            try:
                stored = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                yield FeedMessage(comment="ping")
                continue
            if stored is DRAINED:  # the process shuts down: the client reconnects
                return
            if is_presence(stored):
                yield _presence(body_of(stored))
                continue
            if stored.version <= sent:
                continue
            message, finished = self._rendered(loaded, stored, caller)
            yield message
            sent = stored.version

    def _rendered(
        self, loaded: Loaded, stored: StoredEvent, caller: Caller
    ) -> tuple[FeedMessage, bool]:
        """The event's message for the caller's seat, and whether it ends the game."""
        key = (loaded.game_id, stored.version, caller.seat)
        rendered = _rendered.get(key)
        if rendered is None:
            versioned = self.games.decode(loaded, [stored])[0]
            ends = isinstance(versioned.event, FINAL_EVENT_TYPES)
            rendered = _rendered[key] = (_message(loaded, versioned, caller), ends)
            if len(_rendered) > RENDERED_CACHE:
                _rendered.popitem(last=False)
        return rendered

    async def views(self, loaded: Loaded, caller: Caller, after: int | None) -> ViewMessages:
        """(version, message) pairs of the view feed; version None for a ping."""
        game_id = loaded.game_id
        queue = await self.live.attach(game_id)
        # Its first view shows it online.
        self.presence.presence.seen(game_id, caller.seat, is_over(loaded))
        try:
            loaded = await self.games.load(game_id)
            if after is not None and after < loaded.match.version:
                batch = await self.games.events_after(loaded, after)
                yield batch[-1].version, _events(loaded, batch, caller)
                loaded = await self.games.load(game_id)
            sent = loaded.match.version
            yield sent, {"kind": "view", "view": await self.view(loaded, caller)}
            with self._present(loaded, caller, queue):
                async for message in self._live_views(loaded, caller, queue, sent):
                    yield message
        finally:
            self.live.detach(game_id, queue)

    async def _live_views(
        self, loaded: Loaded, caller: Caller, queue: asyncio.Queue[StoredEvent], sent: int
    ) -> ViewMessages:
        """The view feed's live part: events and the view after them, presence changes,
        pings; until a rematch is made or `REMATCH_WAIT_SECONDS` after the end."""
        game_id = loaded.game_id
        ended_at: float | None = time.monotonic() if _over(loaded) else None
        while loaded.match.rematch is None:
            if ended_at is not None and time.monotonic() - ended_at > REMATCH_WAIT_SECONDS:
                return
            try:
                first = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                yield None, {"kind": "ping"}
                continue
            stored = [first]
            while not queue.empty():
                stored.append(queue.get_nowait())
            if any(s is DRAINED for s in stored):  # the process shuts down
                return
            for change in [s for s in stored if is_presence(s)][-1:]:  # the latest
                yield None, {"kind": "presence", **body_of(change)}
            batch = self.games.decode(loaded, [s for s in stored if s.version > sent])
            if not batch:
                continue
            loaded = await self.games.load(game_id)
            sent = max(batch[-1].version, loaded.match.version)
            yield batch[-1].version, _events(loaded, batch, caller)
            yield (
                loaded.match.version,
                {"kind": "view", "view": await self.view(loaded, caller)},
            )
            if ended_at is None and (
                _over(loaded) or any(isinstance(v.event, FINAL_EVENT_TYPES) for v in batch)
            ):
                ended_at = time.monotonic()

    async def play_views(self, loaded: Loaded, caller: Caller) -> AsyncIterator[PlayPush]:
        """What a play socket (service/api/v1/play.py) is pushed: the caller's view on
        connect and after every change of version, never an older one after a newer;
        presence changes; and last its end: the game is over (after its final view, the one
        of its recorded result) or this process drains. A view is the whole state, so a
        client that reconnects misses nothing: its first view is the latest.

        Several events appended at once give one view, of the version after them. The live
        reader is attached before the first read, so nothing appended in between is missed.
        """
        game_id = loaded.game_id
        queue = await self.live.attach(game_id)
        self.presence.presence.seen(game_id, caller.seat, is_over(loaded))
        try:
            loaded = await self.games.load(game_id)
            sent = loaded.match.version
            yield PlayPush("view", sent, await self.view(loaded, caller))
            if _over(loaded):
                yield PlayPush("end", sent, "game-over")
                return
            with self._present(loaded, caller, queue):
                while True:
                    stored = [await queue.get()]
                    while not queue.empty():
                        stored.append(queue.get_nowait())
                    if any(s is DRAINED for s in stored):
                        yield PlayPush("end", sent, "drained")
                        return
                    for change in [s for s in stored if is_presence(s)][-1:]:  # the latest
                        yield PlayPush("presence", None, body_of(change))
                    newest = max(s.version for s in stored)
                    if newest <= sent:
                        continue
                    # The cached snapshot is often there already (the act was made through
                    # this process): no round trip. Else the tail is read.
                    loaded = await self.games.snapshot(game_id)
                    if loaded.match.version < newest:
                        loaded = await self.games.load(game_id)
                    if loaded.match.version > sent:
                        sent = loaded.match.version
                        yield PlayPush("view", sent, await self.view(loaded, caller))
                    if _over(loaded):
                        yield PlayPush("end", sent, "game-over")
                        return
        finally:
            self.live.detach(game_id, queue)

    async def view(self, loaded: Loaded, caller: Caller) -> GameView:
        """The view as GET /v1/games/{id} gives it, turn deadlines included (the table's
        countdown)."""
        awaiting = awaiting_of(loaded, await self.deadlines.shown(loaded))
        return game_view(loaded, caller, awaiting, await self.presence.presence.of(loaded))


def _over(loaded: Loaded) -> bool:
    match = loaded.match
    return match.recorded is not None or match.abandoned or match.aborted


def _message(loaded: Loaded, versioned: Versioned, caller: Caller) -> FeedMessage:
    record = event_records(loaded, [versioned], caller)[0]
    return FeedMessage(
        data=msgspec.json.encode(record).decode(),
        event=type(versioned.event).__struct_config__.tag_field
        and str(type(versioned.event).__struct_config__.tag),
        id=versioned.version,
    )


def _presence(body: dict[str, Any]) -> FeedMessage:
    """A presence message of the event feed: no ``id`` (it is no version of the game)."""
    return FeedMessage(data=_encoder.encode(body).decode(), event="presence")


def _events(loaded: Loaded, batch: list[Versioned], caller: Caller) -> dict[str, Any]:
    return {"kind": "events", "events": event_records(loaded, batch, caller)}


async def as_sse(messages: ViewMessages) -> AsyncIterator[FeedMessage]:
    """The view feed as Server-Sent Events."""
    async for version, message in messages:
        if message["kind"] == "ping":
            yield FeedMessage(data=None, comment="ping")
            continue
        body = {k: v for k, v in message.items() if k != "kind"}
        payload = body["view"] if message["kind"] == "view" else body
        yield FeedMessage(data=_encoder.encode(payload).decode(), event=message["kind"], id=version)


async def as_ndjson(messages: ViewMessages) -> AsyncIterator[bytes]:
    """The view feed as JSON lines, each with its ``version``."""
    async for version, message in messages:
        line = message if version is None else {**message, "version": version}
        yield _encoder.encode(line) + b"\n"


async def sse_as_ndjson(messages: AsyncIterator[FeedMessage]) -> AsyncIterator[bytes]:
    """The event feed (SSE messages of event records) as NDJSON lines."""
    async for message in messages:
        if message.comment is not None:
            yield b'{"kind":"ping"}\n'
            continue
        record = msgspec.json.decode(str(message.data).encode())
        kind = "presence" if message.event == "presence" else "event"
        yield _encoder.encode({"kind": kind, **record}) + b"\n"
