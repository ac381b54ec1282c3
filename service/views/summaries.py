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
from service.store.keys import events_key, summary_key
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
    """One listed game's kept summary (``None``: none kept) and its game's version."""

    game_id: str
    created_ms: int
    summary: GameSummary | None
    version: int


class GameSummaries:
    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def keep(self, loaded: Loaded) -> GameSummary:
        """Write the summary of ``loaded`` (the creation time is the game's own)."""
        summary = summary_of(loaded, loaded.meta.created_ms)
        await self.redis.set(summary_key(loaded.game_id), _FORMAT + _encode(summary))
        return summary

    async def kept(self, rows: Sequence[tuple[str, int]]) -> list[Kept]:
        """The kept summaries of ``rows`` (game id, creation time) and the games'
        versions, in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id, _ in rows:
            pipe.get(summary_key(game_id))
            pipe.xlen(events_key(game_id))
        replies = await pipe.execute()
        out = []
        for i, (game_id, created_ms) in enumerate(rows):
            raw, version = replies[2 * i], int(replies[2 * i + 1])
            out.append(Kept(game_id, created_ms, _summary(raw), version))
        return out

    async def current(self, kept: Kept, games: GameService) -> GameSummary:
        """The game's summary at its version: the kept one if it is, else from the game."""
        summary = kept.summary
        if summary is None or summary.version != kept.version:
            summary = await self.keep(await games.load(kept.game_id))
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
