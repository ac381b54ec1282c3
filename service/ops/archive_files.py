"""``stakeout archive export`` and ``stakeout archive import``: archives to files and back.

A file is NDJSON compressed with zstd (``.ndjson.zst``): one line per game, ``{"game_id",
"version", "archived_ms", "archive"}``, where ``archive`` is the value of its
``game:{<id>}:archive`` key, byte for byte (base64): an archive exported, deleted and
imported reads exactly as before. An import never rolls a game back: a line is written only
where the game is not hot and holds no newer archive (a line of an older export of a game
archived again since is left out, and said so). Files are written 0600: they hold every
tenant's archives. See docs/operations.md for keeping them in object storage.
"""

from __future__ import annotations

import asyncio
import io
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import msgspec
import zstandard

from service.settings import Settings
from service.store import archive as archives
from service.store.clients import AnyRedis, event_redis
from service.store.event_store import EventStore


class Line(msgspec.Struct, frozen=True):
    """One exported archive."""

    game_id: str
    version: int
    archived_ms: int
    archive: bytes


def _store(settings: Settings) -> tuple[EventStore, AnyRedis]:
    client = event_redis(settings)
    return EventStore(client, archive_ttl_ms=settings.archive_ttl_seconds * 1000), client


async def export(
    settings: Settings, out: BinaryIO, since_ms: int = 0, delete: bool = False
) -> tuple[int, int]:
    """Write every archive made at or after ``since_ms`` to ``out``; with ``delete``, then
    delete each from Redis (unless it changed meanwhile). How many written and deleted."""
    store, client = _store(settings)
    written: list[tuple[str, bytes]] = []
    encode = msgspec.json.Encoder().encode
    try:
        with zstandard.ZstdCompressor(level=10).stream_writer(out, closefd=False) as sink:
            async for game_id in store.archived_games():
                value = await store.archive_value(game_id)
                header = None if value is None else archives.header_of(value)
                if value is None or header is None or header.archived_ms < since_ms:
                    continue
                line = Line(game_id, header.version, header.archived_ms, value)
                sink.write(encode(line) + b"\n")
                written.append((game_id, value))
        out.flush()
        deleted = 0
        if delete:
            for game_id, value in written:
                deleted += await store.drop_archive(game_id, value)
        return len(written), deleted
    finally:
        store.close()
        await client.aclose()


def lines(source: BinaryIO) -> Iterator[Line]:
    decode = msgspec.json.Decoder(Line).decode
    reader = zstandard.ZstdDecompressor().stream_reader(source, closefd=False)
    for raw in io.BufferedReader(reader):
        if raw.strip():
            yield decode(raw)


# What an import did with each line (`EventStore.import_archive`), as the report says it.
SKIPPED = {
    "hot": "the game is hot here",
    "newer": "a newer archive of the game is here",
    "same": "already here",
    "foreign": "the record inside is of another game",
}


async def import_(settings: Settings, source: BinaryIO) -> Counter[str]:
    """Store every archive of ``source`` that is newer than what Redis holds of its game
    (a hot game, or a newer archive, is left as it is). How many lines had each outcome."""
    store, client = _store(settings)
    outcomes: Counter[str] = Counter()
    try:
        for line in lines(source):
            outcomes[await store.import_archive(line.game_id, line.archive)] += 1
        return outcomes
    finally:
        store.close()
        await client.aclose()


def _private(path: str, flags: int) -> int:
    """Open ``path`` readable by its owner only (0600): it holds every tenant's archives."""
    fd = os.open(path, flags, 0o600)
    os.fchmod(fd, 0o600)  # a file that was there already keeps no wider mode
    return fd


def run_export(settings: Settings, path: Path, since_ms: int, delete: bool) -> str:
    with open(path, "wb", opener=_private) as out:
        written, deleted = asyncio.run(export(settings, out, since_ms, delete))
    note = f", {deleted} deleted from Redis" if delete else ""
    return f"{written} archives written to {path}{note}"


def run_import(settings: Settings, path: Path) -> str:
    with path.open("rb") as source:
        outcomes = asyncio.run(import_(settings, source))
    skipped = [f"{outcomes[k]} ({why})" for k, why in SKIPPED.items() if outcomes[k]]
    left_out = f", left out: {', '.join(skipped)}" if skipped else ""
    return f"{outcomes['ok']} archives imported from {path}{left_out}"
