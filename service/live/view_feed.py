"""The view feed of a game (``GET /v1/games/{id}/stream?feed=view``) and the NDJSON form
of both game feeds.

Messages are dicts with a ``kind``: ``view`` (the caller's whole view, as
GET /v1/games/{id} gives it), ``events`` (a batch of event records, redacted for the
caller), ``event`` (one record: the event feed in NDJSON), ``ping`` (a heartbeat).
The view feed sends the view first; then, after each batch of new events, an ``events``
message followed by a ``view`` message. Resuming (``Last-Event-ID`` or ``after_version``)
first sends the events after that version, then the view.

After the game ends the view feed stays open for ``REMATCH_WAIT_SECONDS`` so the table
learns of a rematch (the view's ``rematch`` and a ``rematch.created`` event); it closes
once the rematch is made or that time has passed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from litestar.response import ServerSentEventMessage

from domain.match import FINAL_EVENT_TYPES
from service.live.event_feed import HEARTBEAT_SECONDS
from service.play.auth import Caller
from service.play.game_service import Loaded, Versioned
from service.views.presenter import event_records, game_view
from service.views.schemas import GameView
from service.wiring import Context

REMATCH_WAIT_SECONDS = 600.0
_encoder = msgspec.json.Encoder()


async def view_messages(
    ctx: Context, loaded: Loaded, caller: Caller, after: int | None
) -> AsyncIterator[tuple[int | None, dict[str, Any]]]:
    """(version, message) pairs of the view feed; version None for a ping."""
    game_id = loaded.game_id
    decoder = ctx.games.codec(loaded.rules).decoder
    queue = await ctx.live.attach(game_id)
    try:
        loaded = await ctx.games.load(game_id)
        if after is not None and after < loaded.match.version:
            stored = await ctx.store.read(game_id, after=after)
            batch = [Versioned(s.version, decoder.decode(s.data), s.at_ms) for s in stored]
            yield batch[-1].version, _events(loaded, batch, caller)
            loaded = await ctx.games.load(game_id)
        sent = loaded.match.version
        yield sent, {"kind": "view", "view": await _view(ctx, loaded, caller)}
        ended_at: float | None = time.monotonic() if _over(loaded) else None
        while loaded.match.rematch is None:
            if ended_at is not None and time.monotonic() - ended_at > REMATCH_WAIT_SECONDS:
                return
            try:
                first = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                yield None, {"kind": "ping"}
                continue
            batch_stored = [first]
            while not queue.empty():
                batch_stored.append(queue.get_nowait())
            batch = [
                Versioned(s.version, decoder.decode(s.data), s.at_ms)
                for s in batch_stored
                if s.version > sent
            ]
            if not batch:
                continue
            loaded = await ctx.games.load(game_id)
            sent = max(batch[-1].version, loaded.match.version)
            yield batch[-1].version, _events(loaded, batch, caller)
            view = await _view(ctx, loaded, caller)
            yield loaded.match.version, {"kind": "view", "view": view}
            if ended_at is None and (
                _over(loaded) or any(isinstance(v.event, FINAL_EVENT_TYPES) for v in batch)
            ):
                ended_at = time.monotonic()
    finally:
        ctx.live.detach(game_id, queue)


async def _view(ctx: Context, loaded: Loaded, caller: Caller) -> GameView:
    """The view as GET /v1/games/{id} gives it, turn deadlines included (the table's
    countdown)."""
    if loaded.meta.turn_seconds is None:  # no turn has a deadline
        return game_view(loaded, caller)
    from service.api.v1.games import _turn_deadlines  # (games.py imports this module)

    return game_view(loaded, caller, await _turn_deadlines(ctx, loaded))


def _over(loaded: Loaded) -> bool:
    match = loaded.match
    return match.recorded is not None or match.abandoned or match.aborted


def _events(loaded: Loaded, batch: list[Versioned], caller: Caller) -> dict[str, Any]:
    return {"kind": "events", "events": event_records(loaded, batch, caller)}


async def as_sse(
    messages: AsyncIterator[tuple[int | None, dict[str, Any]]],
) -> AsyncIterator[ServerSentEventMessage]:
    async for version, message in messages:
        if message["kind"] == "ping":
            yield ServerSentEventMessage(data=None, comment="ping")
            continue
        body = {k: v for k, v in message.items() if k != "kind"}
        payload = body["view"] if message["kind"] == "view" else body
        yield ServerSentEventMessage(
            data=_encoder.encode(payload).decode(), event=message["kind"], id=version
        )


async def as_ndjson(
    messages: AsyncIterator[tuple[int | None, dict[str, Any]]],
) -> AsyncIterator[bytes]:
    async for version, message in messages:
        line = message if version is None else {**message, "version": version}
        yield _encoder.encode(line) + b"\n"


async def sse_as_ndjson(messages: AsyncIterator[ServerSentEventMessage]) -> AsyncIterator[bytes]:
    """The event feed (SSE messages of event records) as NDJSON lines."""
    async for message in messages:
        if message.comment is not None:
            yield b'{"kind":"ping"}\n'
            continue
        record = msgspec.json.decode(str(message.data).encode())
        yield _encoder.encode({"kind": "event", **record}) + b"\n"
