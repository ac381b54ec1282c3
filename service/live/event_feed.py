"""One caller's Server-Sent-Events feed of a game (see `service.live.feed`)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator

import msgspec
from litestar.response import ServerSentEventMessage

from domain.match import FINAL_EVENT_TYPES
from service.play.auth import Caller
from service.play.game_service import Loaded, Versioned
from service.views.presenter import event_records
from service.wiring import Context

HEARTBEAT_SECONDS = 15.0
# An event is redacted and encoded once per seat (spectators: once), not once per feed: the
# same message goes to every feed of that seat. A small per-process cache.
RENDERED_CACHE = 4096
_rendered: OrderedDict[tuple[str, int, int | None], tuple[ServerSentEventMessage, bool]] = (
    OrderedDict()
)


async def live_messages(
    ctx: Context, loaded: Loaded, caller: Caller, after: int
) -> AsyncIterator[ServerSentEventMessage]:
    """Backlog after ``after``, then live events, redacted for ``caller``; ends with the game.

    The subscription is opened before the backlog is read, so nothing appended in between
    is missed; versions already sent are skipped.
    """
    game_id = loaded.game_id
    decoder = ctx.games.codec(loaded.rules).decoder
    queue = await ctx.live.attach(game_id)
    sent = after
    try:
        backlog = await ctx.store.read(game_id, after=after)
        finished = (
            loaded.match.recorded is not None or loaded.match.abandoned or loaded.match.aborted
        )
        for stored in backlog:
            event = decoder.decode(stored.data)
            yield _message(loaded, Versioned(stored.version, event, stored.at_ms), caller)
            sent = stored.version
            finished = finished or isinstance(event, FINAL_EVENT_TYPES)
        while not finished:
            try:
                stored = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
            except TimeoutError:
                yield ServerSentEventMessage(comment="ping")
                continue
            if stored.version <= sent:
                continue
            key = (game_id, stored.version, caller.seat)
            rendered = _rendered.get(key)
            if rendered is None:
                event = decoder.decode(stored.data)
                versioned = Versioned(stored.version, event, stored.at_ms)
                rendered = (
                    _message(loaded, versioned, caller),
                    isinstance(event, FINAL_EVENT_TYPES),
                )
                _rendered[key] = rendered
                if len(_rendered) > RENDERED_CACHE:
                    _rendered.popitem(last=False)
            yield rendered[0]
            sent = stored.version
            finished = rendered[1]
    finally:
        ctx.live.detach(game_id, queue)


def _message(loaded: Loaded, versioned: Versioned, caller: Caller) -> ServerSentEventMessage:
    record = event_records(loaded, [versioned], caller)[0]
    return ServerSentEventMessage(
        data=msgspec.json.encode(record).decode(),
        event=type(versioned.event).__struct_config__.tag_field
        and str(type(versioned.event).__struct_config__.tag),
        id=versioned.version,
    )
