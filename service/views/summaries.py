"""The game list's summary of each game, kept with the game so that a listing folds no stream.

Every append writes the summary of the game as it leaves it to ``game:{<id>}:summary``, in
the append script itself (`GameService.summarize`: no round trip of its own; an append that
loses a race writes nothing), and a new game gets its first at creation. A listing reads
the summaries of a page's games together with the games' versions, in one round trip, and
takes a summary only when it is at its game's version. Any other game (a game from before
summaries were kept, a summary of another format) is loaded as before, and its summary
written then: a listing answers exactly what loading every game would, and folds a stream
only for a game whose summary is behind.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from service.play.game_service import GameService
from service.play.records import Loaded
from service.store.clients import AnyRedis
from service.store.event_store import EventStore
from service.store.keys import summary_key
from service.views.presenter import summary_of
from service.views.schemas import GameSummary

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(GameSummary).decode
# Kept summaries start with the format they were written in: the wire type's schema (so a
# changed GameSummary, SeatInfo, ... never reads an old record as if it were new) and a
# number to bump when `summary_of` changes what it says of a game. Another format is no
# summary: the game is loaded and its summary written anew.
_FORMAT = (
    b"1."
    + hashlib.sha256(_encode(msgspec.json.schema(GameSummary))).hexdigest()[:12].encode()
    + b"|"
)


@dataclass(frozen=True, slots=True)
class Kept:
    """One listed game's kept summary (``None``: none kept) and its game's version;
    ``archived``: from its archive (nothing is written beside an archived game)."""

    game_id: str
    created_ms: int
    summary: GameSummary | None
    version: int
    archived: bool = False


class GameSummaries:
    def __init__(self, redis: AnyRedis, events: EventStore) -> None:
        """``events``: the event store, which reads the kept summaries with the games'
        versions (an archived game's from its archive)."""
        self.redis = redis
        self.events = events

    async def keep(self, loaded: Loaded) -> GameSummary:
        """Write the summary of ``loaded`` (the creation time is the game's own)."""
        summary = summary_of(loaded, loaded.meta.created_ms)
        await self.redis.set(summary_key(loaded.game_id), _FORMAT + _encode(summary))
        return summary

    async def kept(self, rows: Sequence[tuple[str, int]]) -> list[Kept]:
        """The kept summaries of ``rows`` (game id, creation time) and the games'
        versions, in one round trip."""
        replies = await self.events.listed([game_id for game_id, _ in rows])
        out = []
        for (game_id, created_ms), (raw, version, archived) in zip(rows, replies, strict=True):
            out.append(Kept(game_id, created_ms, _summary(raw), int(version), bool(archived)))
        return out

    async def current(self, kept: Kept, games: GameService) -> GameSummary:
        """The game's summary at its version: the kept one if it is, else from the game
        (and kept, unless the game is archived)."""
        summary = kept.summary
        if summary is None or summary.version != kept.version:
            loaded = await games.load(kept.game_id)
            if kept.archived:
                summary = summary_of(loaded, loaded.meta.created_ms)
            else:
                summary = await self.keep(loaded)
        if summary.created_ms != kept.created_ms:  # the listing's index says when
            summary = msgspec.structs.replace(summary, created_ms=kept.created_ms)
        return summary


def kept_record(loaded: Loaded) -> bytes:
    """What is kept for ``loaded``: its summary in this code's format. The event store
    writes it with every append (`GameService.summarize`) and at a game's creation."""
    return _FORMAT + _encode(summary_of(loaded, loaded.meta.created_ms))


def _summary(raw: bytes | None) -> GameSummary | None:
    """A kept summary, if it is in this code's format."""
    if raw is None or not raw.startswith(_FORMAT):
        return None
    return _decode(raw[len(_FORMAT) :])
