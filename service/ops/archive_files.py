"""``stakeout archive export`` and ``stakeout archive import``: archives to files and back.

A file is NDJSON compressed with zstd (``.ndjson.zst``): one line per game, ``{"game_id",
"version", "archived_ms", "archive"}``, where ``archive`` is the value of its
``game:{<id>}:archive`` key, byte for byte (base64): an archive exported, deleted and
imported reads exactly as before. See docs/operations.md for keeping them in object storage.
"""

from __future__ import annotations

import asyncio
import io
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


async def import_(settings: Settings, source: BinaryIO) -> tuple[int, int]:
    """Store every archive of ``source`` (a game hot here is left as it is). How many
    were stored and how many games were hot."""
    store, client = _store(settings)
    stored = hot = 0
    try:
        for line in lines(source):
            if await store.import_archive(line.game_id, line.archive) == "ok":
                stored += 1
            else:
                hot += 1
        return stored, hot
    finally:
        store.close()
        await client.aclose()


def run_export(settings: Settings, path: Path, since_ms: int, delete: bool) -> str:
    with path.open("wb") as out:
        written, deleted = asyncio.run(export(settings, out, since_ms, delete))
    note = f", {deleted} deleted from Redis" if delete else ""
    return f"{written} archives written to {path}{note}"


def run_import(settings: Settings, path: Path) -> str:
    with path.open("rb") as source:
        stored, hot = asyncio.run(import_(settings, source))
    return f"{stored} archives imported from {path}, {hot} left out (the game is hot here)"
