"""Snapshots of a game's match, so that a cold load folds only the events after one.

A cold load (another process, a restart) folded a game's whole stream: for the longest
Bonnie and Clyde games, about 2,100 events (`bench/cold_load.py` measures it). A snapshot
is the folded `Match` at a version, msgpack (msgspec), kept beside the stream in
``game:{<id>}:snapshot`` with the version, the tip of the entry it was folded to and a
format stamp; the opening script hands back the snapshot and the entries after it, and
the game service folds only those.

A snapshot is derived data, never the truth:

- it is read only if its stamp is this code's (`FORMAT`: a hash of the rules' source and
  the msgspec version), so a code change never reads an old snapshot as new: the game is
  folded from its stream again and a new snapshot written later;
- it is read only if its tip is the stream's entry at its version (a store restored from
  an older copy and written to since is folded from the start);
- it is written off the act's path, by the follow-up of the change that crosses a multiple
  of ``STAKEOUT_SNAPSHOT_EVERY`` events, and only over an older one.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import msgspec

import domain
from domain.match import Match, MatchEngine
from service.play.records import Loaded
from service.store.event_store import EventStore

log = logging.getLogger("stakeout.games")

_encode = msgspec.msgpack.Encoder().encode
_decode_match = msgspec.msgpack.Decoder(Match).decode


def _format() -> str:
    """This code's stamp: the rules' source (every module of ``domain/``) and msgspec."""
    digest = hashlib.sha256(msgspec.__version__.encode())
    root = Path(domain.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return "1." + digest.hexdigest()[:16]


_FORMAT: list[str] = []


def snapshot_format() -> str:
    if not _FORMAT:
        _FORMAT.append(_format())
    return _FORMAT[0]


def encode(match: Match) -> bytes:
    return _encode(match)


def decode(engine: MatchEngine, blob: bytes) -> Match:
    """A snapshot's match, its state typed as the game's."""
    match = _decode_match(blob)
    state: Any = msgspec.convert(match.state, engine.game.state_type)
    return msgspec.structs.replace(match, state=state)


class Snapshots:
    """Keeps a snapshot of a game every ``every`` events (0: never)."""

    def __init__(self, store: EventStore, every: int) -> None:
        self.store = store
        self.every = every

    def due(self, version: int, appended: int) -> bool:
        """Whether the change that appended ``appended`` events up to ``version`` crossed
        a multiple of ``every``."""
        every = self.every
        return every > 0 and version // every > (version - max(appended, 1)) // every

    async def after_change(self, loaded: Loaded, appended: int) -> None:
        """Keep a snapshot of ``loaded`` if its change crossed a multiple of ``every``."""
        match = loaded.match
        if self.due(match.version, appended) and not loaded.engine.ended(match):
            await self.store.keep_snapshot(
                loaded.game_id, match.version, loaded.tip, snapshot_format(), encode(match)
            )
