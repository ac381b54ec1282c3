"""A game that is over, as one compact record: what `game:{<id>}:archive` holds.

Archiving (`EventStore.archive`) replaces every hot key of a game with one string, in one
script guarded by the game's version and tip; restoring (`EventStore.restore`, before a
rematch of an archived game) does the reverse. Reads go through to it: the event store
answers an archived game's opening, catch-ups and pages from it, with the same bytes.

The stored value::

    sa1|<version>|<tip>|<archived ms>|<summary length>|<summary><zstd frame>

- ``sa1``: the format (stakeout archive, format 1). A new format gets a new prefix; this
  code reads every prefix it ever wrote.
- ``version`` and ``tip`` (sha1 of the last entry's time and data, as the scripts compute
  it): what the scripts compare a caller's cached state with, without decompressing;
  ``archived ms`` tells two archives of one game apart (restored for a seat's token and
  archived again: same version and tip, one more token).
- ``summary``: the game list's kept record of the game (``<format>|<JSON>``, as
  ``game:{<id>}:summary`` held it), uncompressed, so a listing reads it in a script.
- the zstd frame: a `Record`, msgpack (msgspec), compressed with zstd (``zstandard``).
  The stream's entries keep their fields and values exactly as stored (``e`` the event's
  JSON, ``t`` the time, ``c`` the act, ``n`` an append's nonce), so a restored stream is
  the one archived, byte for byte.

What is not kept: the awaited turns (``deadlines``: an ended game awaits nobody) and the bots'
sealed choices (revealed in the stream by then). The record carries a snapshot of the match
folded at the archived version (``snapshot``: derived data, read only in its own format,
service/play/snapshots.py), so an archived game's cold load folds nothing, however long
the game; a record archived before it had one has none, and is folded from its entries.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass

import msgspec
import zstandard

MAGIC = b"sa1"
# Archives are written once, on a worker, and read rarely: a high level costs the worker
# a few milliseconds a game and saves memory for as long as the archive is kept.
ZSTD_LEVEL = 15
# What a script reads of the value to learn the header (GETRANGE 0 HEADER_BYTES-1).
HEADER_BYTES = 96
_HEADER = re.compile(rb"^sa1\|(\d+)\|([0-9a-f]*)\|(\d+)\|(\d+)\|")


class Entry(msgspec.Struct, array_like=True, frozen=True):
    """One stream entry: its version and its fields and values, as the stream held them."""

    version: int
    fields: list[bytes]


class Snapshot(msgspec.Struct, frozen=True):
    """The match folded at ``version`` (msgpack), in the snapshot format ``format``."""

    format: str
    version: int
    state: bytes


class Record(msgspec.Struct, frozen=True, forbid_unknown_fields=False):
    """Everything of a game that outlives its play (compressed in the archive)."""

    game_id: str
    archived_ms: int
    meta: dict[str, bytes]
    seed: bytes  # the seed key's value as stored (hex)
    entries: list[Entry]
    idem: dict[str, bytes] = msgspec.field(default_factory=dict)
    # When the idempotency records lapse (epoch ms; 0: they did not expire when archived).
    idem_expires_ms: int = 0
    seat_tokens: dict[str, bytes] = msgspec.field(default_factory=dict)
    snapshot: Snapshot | None = None  # None in the archives made before they carried one


@dataclass(frozen=True)
class Header:
    version: int
    tip: str
    archived_ms: int
    summary_length: int
    length: int  # bytes of the header itself


@dataclass(frozen=True)
class Archived:
    """An archive as read back: its header, the kept summary and the record."""

    version: int
    tip: str
    summary: bytes | None
    record: Record

    @property
    def key(self) -> tuple[int, str, int]:
        return self.version, self.tip, self.record.archived_ms

    def idempotency(self, field: str, now_ms: int) -> bytes | None:
        """The idempotency record of ``field``, unless the records have lapsed."""
        if self.record.idem_expires_ms and now_ms >= self.record.idem_expires_ms:
            return None
        return self.record.idem.get(field)


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Record)
_compressor: zstandard.ZstdCompressor | None = None
_decompressor: zstandard.ZstdDecompressor | None = None


def header_of(value: bytes) -> Header | None:
    found = _HEADER.match(value)
    if found is None:
        return None
    return Header(int(found[1]), found[2].decode(), int(found[3]), int(found[4]), found.end())


def encode(record: Record, version: int, tip: str, summary: bytes | None) -> bytes:
    global _compressor  # noqa: PLW0603 - one compressor per process, made on first use
    if _compressor is None:
        _compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    kept = summary or b""
    head = b"%s|%d|%s|%d|%d|" % (MAGIC, version, tip.encode(), record.archived_ms, len(kept))
    return head + kept + _compressor.compress(_encoder.encode(record))


def decode(value: bytes) -> Archived:
    global _decompressor  # noqa: PLW0603 - as above
    header = header_of(value)
    if header is None:
        raise ValueError("not an archive of a format this code knows")
    if _decompressor is None:
        _decompressor = zstandard.ZstdDecompressor()
    start = header.length + header.summary_length
    summary = value[header.length : start] or None
    record = _decoder.decode(_decompressor.decompress(value[start:]))
    return Archived(header.version, header.tip, summary, record)


class RecentArchives:
    """The archives a process read lately, decoded (an archive never changes: a game
    restored and archived again has another header)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[str, tuple[int, str, int]], Archived] = OrderedDict()

    def get(self, game_id: str, header: Header) -> Archived | None:
        key = (game_id, (header.version, header.tip, header.archived_ms))
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def keep(self, game_id: str, archived: Archived) -> Archived:
        self._kept[(game_id, archived.key)] = archived
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)
        return archived
