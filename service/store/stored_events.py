"""What the event store hands back (stored events, an append's and a catch-up's answers, a
game from cold) and what it is handed (a batch), with the readers of Redis' replies that
every part of the store shares."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class StoredEvent:
    version: int
    data: bytes
    at_ms: int
    cause: bytes | None = None

    @property
    def tip(self) -> str:
        """What the scripts compare to tell this entry from another at the same version."""
        return tip_of(self.at_ms, self.data)


def tip_of(at_ms: int, data: bytes) -> str:
    return hashlib.sha1(b"%d|" % at_ms + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True)
class Batch:
    """The events of one act, to append at version ``expected``.

    ``tip``: the tip of the entry at ``expected`` that the caller folded ("" skips the
    check); ``cause``: the act, kept on the batch's first entry (for verification);
    ``key``/``fingerprint``: the idempotency key and what it was used for; ``grants``:
    seat -> token hash, stored with the events atomically ("" withdraws the seat's token:
    a claim's token exists exactly when its event does); ``summary``: the game list's
    record of the game after the batch, written with it."""

    game_id: str
    expected: int
    events: Sequence[bytes]
    at_ms: int
    cause: bytes = b""
    tip: str = ""
    key: str | None = None
    fingerprint: str = ""
    grants: Mapping[int, str] | None = None
    summary: bytes = b""
    seat: int | None = None  # who acted, for the outbox entry (None: nobody's seat)


@dataclass(frozen=True)
class Appended:
    """What an append did.

    - ``ok``: appended; ``first..version`` are the new events' versions.
    - ``duplicate``: the idempotency key was used before; ``first..version`` is that
      append's range and ``events`` its events.
    - ``conflict``: the stream is at ``version``, past ``expected``; ``events`` are the
      entries after ``expected`` (the caller catches up without another read).
    - ``behind``: the stream is shorter than ``expected``, or its entry at ``expected`` is
      not the one the caller folded (the store went backwards: restored, failed over).
    - ``missing``: no such game.
    - ``archived``: the game is archived (`restore` it first); ``version`` is its version.
    """

    status: Literal["ok", "conflict", "duplicate", "behind", "missing", "archived"]
    version: int
    first: int = 0
    fingerprint: str = ""
    at_ms: int = 0
    events: tuple[StoredEvent, ...] = ()


@dataclass(frozen=True)
class Tail:
    """A catch-up read: ``status`` ``ok`` (``events`` after the caller's version),
    ``duplicate`` (the idempotency key's earlier answer) or ``behind`` (as above)."""

    status: Literal["ok", "duplicate", "behind"]
    version: int
    events: tuple[StoredEvent, ...] = ()
    first: int = 0
    fingerprint: str = ""


# The (seat, step) of the bots' kept sealed choices of a game, from its entries.
SealsOf = Callable[[Sequence["StoredEvent"]], Sequence[tuple[int, str]]]


@dataclass(frozen=True)
class Opening:
    """A game from cold: its meta (None: no such game), its seed, and its entries: all of
    them, or with a snapshot (``snapshot``: the match folded to ``snapshot_version``) the
    entries from that version on (its own entry first). ``archived``: read from its
    archive."""

    meta: dict[str, str] | None
    seed: bytes | None
    events: list[StoredEvent]
    snapshot_version: int = 0
    snapshot: bytes | None = None
    archived: bool = False


def text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def as_bytes(value: Any) -> bytes:
    return bytes(value) if isinstance(value, bytes) else str(value).encode()


def xrange_events(rows: Any) -> list[StoredEvent]:
    """XRANGE rows (entry id, fields) as stored events."""
    out: list[StoredEvent] = []
    for entry_id, fields in rows or []:
        assert fields is not None  # stream entries always carry their fields
        version = int(text(entry_id).split("-", 1)[1])
        cause = fields.get(b"c")
        out.append(
            StoredEvent(
                version,
                as_bytes(fields[b"e"]),
                int(fields.get(b"t", b"0")),
                cause if isinstance(cause, bytes) else None,
            )
        )
    return out


def now_ms() -> int:
    return int(time.time() * 1000)
