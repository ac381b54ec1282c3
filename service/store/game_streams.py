"""A game's stream: created with its meta and seed, appended by one script per act, caught up
with, opened from cold (from its snapshot, or from its archive once it is over) and read."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from service.store import archive as archives
from service.store import unique_ids
from service.store.archive import Archived, Header, RecentArchives
from service.store.clients import AnyRedis
from service.store.keys import archive_key, game_keys, seat_tokens_key, snapshot_key, summary_key
from service.store.outbox import Outbox
from service.store.scripts import Script
from service.store.stored_events import (
    Appended,
    Batch,
    Opening,
    StoredEvent,
    Tail,
    as_bytes,
    now_ms,
    text,
    xrange_events,
)


class GameStreams:
    """The game's stream and what reads it: create, append, catch up, open from cold, read."""

    redis: AnyRedis
    idempotency_ms: int
    outbox: Outbox
    recent: RecentArchives
    _create: Script
    _append: Script
    _catch_up: Script
    _opening: Script
    _state: Script
    _listed: Script
    _keep_snapshot: Script

    async def create(
        self, game_id: str, meta: Mapping[str, str], seed: bytes, events: Sequence[bytes]
    ) -> bool:
        events_key, _, meta_key, seed_key = game_keys(game_id)
        args: list[Any] = [len(meta)]
        for name, value in meta.items():
            args += [name, value]
        args += [seed.hex(), now_ms(), self.outbox.shard_of(game_id), *events]
        keys = [meta_key, seed_key, events_key, archive_key(game_id)]
        status, _ = await self._create(keys=keys, args=args)
        return text(status) == "ok"

    async def append(self, batch: Batch) -> Appended:
        """Append ``batch`` at its expected version (one script, one round trip; see
        `Appended` for the answers)."""
        events_key, idem_key, meta_key, _ = game_keys(batch.game_id)
        granted = ",".join(f"{seat}={digest}" for seat, digest in (batch.grants or {}).items())
        # Without an idempotency key the call carries a nonce of its own, kept on the
        # batch's first entry: if the connection breaks after the script ran and the call
        # is sent again (service/store/scripts/), the script knows its own batch and
        # answers ``ok``, not a lost race (which would decide the act again on a state that
        # already holds it: refused, or applied twice).
        nonce = "" if batch.key else unique_ids.nonce()
        game_id = batch.game_id
        reply = await self._append(
            keys=[events_key, idem_key, meta_key, seat_tokens_key(game_id), summary_key(game_id)],
            args=[
                batch.expected,
                batch.key or "",
                batch.fingerprint,
                batch.at_ms,
                batch.cause,
                batch.tip,
                granted,
                batch.summary,
                nonce,
                self.outbox.shard_of(game_id),
                "" if batch.seat is None else batch.seat,
                self.idempotency_ms,
                *batch.events,
            ],
        )
        status, value = text(reply[0]), text(reply[1])
        if status == "duplicate":
            return _duplicate(value, _entries(reply[2]))
        if status == "ok":
            return Appended("ok", int(value), batch.expected + 1, at_ms=batch.at_ms)
        if status == "conflict":
            return Appended("conflict", int(value), events=_entries(reply[2]))
        if status == "behind":
            return Appended("behind", int(value))
        where, version, _ = await self.state(game_id)
        return Appended("archived", version) if where == "archived" else Appended("missing", 0)

    async def keep_summary(self, game_id: str, summary: bytes) -> None:
        """The game list's record of a game, written alone (a new game; a listing that
        found it behind); every append writes it with the events."""
        await self.redis.set(summary_key(game_id), summary)

    async def catch_up(
        self, game_id: str, after: int, tip: str = "", idempotency_key: str | None = None
    ) -> Tail:
        """The entries after ``after`` (and the key's earlier answer first, if any); for
        an archived game, from its archive."""
        events_key, idem_key, _, _ = game_keys(game_id)
        for _ in range(3):
            reply = await self._catch_up(
                keys=[events_key, idem_key, archive_key(game_id)],
                args=[after, tip, idempotency_key or ""],
            )
            status, value = text(reply[0]), as_bytes(reply[1])
            if status == "duplicate":
                prior = _duplicate(value.decode(), _entries(reply[2]))
                events, first = prior.events, prior.first
                return Tail("duplicate", prior.version, events, first, prior.fingerprint)
            if status == "behind":
                return Tail("behind", int(value))
            if status == "ok":
                return Tail("ok", int(value), _entries(reply[2]))
            header = archives.header_of(value)
            if header is None:
                raise ValueError(f"game {game_id}: an archive of an unknown format")
            if idempotency_key is None and after == header.version and tip in ("", header.tip):
                return Tail("ok", header.version)  # nothing new: no need to read it
            archived = await self.archived(game_id, header)
            if archived is not None:
                return _archived_tail(archived, after, tip, idempotency_key)
        raise ValueError(f"game {game_id} keeps being archived and restored")

    async def opening(self, game_id: str, snapshot_format: str = "") -> Opening:
        """A game from cold, in one round trip: its meta, its seed and its stream (after
        its snapshot, if it has one in ``snapshot_format``), or its archive."""
        events_key, _, meta_key, seed_key = game_keys(game_id)
        reply = await self._opening(
            keys=[meta_key, seed_key, events_key, archive_key(game_id), snapshot_key(game_id)],
            args=[snapshot_format],
        )
        status = text(reply[0])
        if status == "missing":
            return Opening(None, None, [])
        if status == "archived":
            archived = archives.decode(as_bytes(reply[1]))
            self.recent.keep(game_id, archived)
            record = archived.record
            meta = {name: value.decode() for name, value in record.meta.items()}
            secret = bytes.fromhex(record.seed.decode())
            kept = record.snapshot
            if kept is not None and snapshot_format and kept.format == snapshot_format:
                # As from a hot game's snapshot: the entries from its own on.
                events = _archived_events(archived, kept.version - 1)
                return Opening(meta, secret, events, kept.version, kept.state, archived=True)
            return Opening(meta, secret, _archived_events(archived, 0), archived=True)
        raw_meta = reply[1]
        meta = {text(raw_meta[i]): text(raw_meta[i + 1]) for i in range(0, len(raw_meta), 2)}
        seed = bytes.fromhex(text(reply[2])) if reply[2] else None
        state = as_bytes(reply[5]) if reply[5] else None
        return Opening(meta, seed, _raw_rows(reply[3]), int(reply[4]), state)

    async def keep_snapshot(
        self, game_id: str, version: int, tip: str, snapshot_format: str, state: bytes
    ) -> bool:
        """Keep ``state`` (the match folded to ``version``, whose entry is ``tip``) as the
        game's snapshot, unless a newer one of that format is kept or the game is not hot."""
        keys = [game_keys(game_id)[0], snapshot_key(game_id)]
        args = [version, tip, snapshot_format, state]
        return bool(await self._keep_snapshot(keys=keys, args=args))

    async def state(self, game_id: str) -> tuple[str, int, Header | None]:
        """Where a game is: ``hot`` (version 0: no such game) or ``archived``, its version,
        and its archive's header."""
        reply = await self._state(keys=[game_keys(game_id)[0], archive_key(game_id)], args=[])
        if text(reply[0]) == "hot":
            return "hot", int(reply[1]), None
        header = archives.header_of(as_bytes(reply[1]))
        if header is None:
            raise ValueError(f"game {game_id}: an archive of an unknown format")
        return "archived", header.version, header

    async def archived(self, game_id: str, header: Header | None = None) -> Archived | None:
        """The game's archive, decoded (None if it has none); ``header``: the one just
        read, so that an archive decoded lately is not read again."""
        if header is not None:
            known = self.recent.get(game_id, header)
            if known is not None:
                return known
        value = await self.redis.get(archive_key(game_id))
        if value is None:
            return None
        return self.recent.keep(game_id, archives.decode(as_bytes(value)))

    async def read(
        self, game_id: str, after: int = 0, count: int | None = None
    ) -> list[StoredEvent]:
        """Events with version > ``after``, oldest first (at most ``count``); for an
        archived game, from its archive."""
        events_key = game_keys(game_id)[0]
        for _ in range(3):
            rows = await self.redis.xrange(events_key, min=f"(0-{after}", max="+", count=count)
            if rows:
                return xrange_events(rows)
            where, version, header = await self.state(game_id)
            if where == "hot" and version <= after:
                return []
            archived = None if header is None else await self.archived(game_id, header)
            if archived is not None:
                events = _archived_events(archived, after)
                return events if count is None else events[:count]
        raise ValueError(f"game {game_id} keeps being archived and restored")

    async def read_range(self, game_id: str, first: int, last: int) -> list[StoredEvent]:
        return [
            e for e in await self.read(game_id, first - 1, last - first + 1) if e.version <= last
        ]

    async def version(self, game_id: str) -> int:
        """The game's version, hot or archived (0: no such game)."""
        return (await self.state(game_id))[1]

    async def versions(self, game_ids: Sequence[str]) -> list[int]:
        """The version of each game (the calls leave together: one round trip)."""
        return list(await asyncio.gather(*(self.version(game_id) for game_id in game_ids)))

    async def meta(self, game_id: str) -> dict[str, str] | None:
        raw = await self.redis.hgetall(game_keys(game_id)[2])
        if raw:
            return {text(k): text(v) for k, v in raw.items()}
        archived = await self.archived(game_id)
        if archived is None:
            return None
        return {name: value.decode() for name, value in archived.record.meta.items()}

    async def seed(self, game_id: str) -> bytes:
        raw = await self.redis.get(game_keys(game_id)[3])
        if raw is None:
            archived = await self.archived(game_id)
            if archived is None:
                raise KeyError(game_id)
            raw = archived.record.seed
        return bytes.fromhex(text(raw))

    async def listed(self, game_ids: Sequence[str]) -> list[tuple[bytes | None, int, bool]]:
        """Each game's kept summary (as stored), its version and whether it is archived
        (the calls leave together: one round trip)."""

        async def one(game_id: str) -> tuple[bytes | None, int, bool]:
            keys = [summary_key(game_id), game_keys(game_id)[0], archive_key(game_id)]
            raw, version, archived = await self._listed(keys=keys, args=[])
            return (as_bytes(raw) if raw else None), int(version), bool(archived)

        return list(await asyncio.gather(*(one(game_id) for game_id in game_ids)))

    async def archived_seat(self, game_id: str, digest: str) -> int | None:
        """The seat of a token granted after creation (its hash) in an archived game."""
        where, _, header = await self.state(game_id)
        archived = None if where == "hot" else await self.archived(game_id, header)
        if archived is None:
            return None
        seat = archived.record.seat_tokens.get("h" + digest)
        return None if seat is None else int(seat)

    async def ping(self) -> bool:
        return bool(await self.redis.ping())


def _duplicate(recorded: str, events: tuple[StoredEvent, ...] = ()) -> Appended:
    fingerprint, first, last = recorded.rsplit("|", 2)
    return Appended("duplicate", int(last), int(first), fingerprint, events=events)


def _raw_rows(rows: Any) -> list[StoredEvent]:
    """XRANGE's rows as a script returns them: ``[entry id, [field, value, ...]]``."""
    out: list[StoredEvent] = []
    for entry_id, flat in rows or []:
        data, at_ms, cause = b"", 0, None
        for i in range(0, len(flat), 2):
            name = flat[i]
            if name == b"e":
                data = as_bytes(flat[i + 1])
            elif name == b"t":
                at_ms = int(flat[i + 1])
            elif name == b"c":
                cause = as_bytes(flat[i + 1])
        out.append(StoredEvent(int(text(entry_id).split("-", 1)[1]), data, at_ms, cause))
    return out


def _archived_events(archived: Archived, after: int) -> list[StoredEvent]:
    """An archive's entries with version > ``after``, as stored events."""
    out = []
    for entry in archived.record.entries:
        if entry.version <= after:
            continue
        fields = dict(zip(entry.fields[::2], entry.fields[1::2], strict=True))
        at_ms = int(fields.get(b"t", b"0"))
        out.append(StoredEvent(entry.version, fields[b"e"], at_ms, fields.get(b"c")))
    return out


def _archived_tail(archived: Archived, after: int, tip: str, key: str | None) -> Tail:
    """What the catch-up script answers, from an archive: the key's earlier answer (while
    the idempotency records last), else the entries after ``after``, or ``behind``."""
    if key:
        prior = archived.idempotency(key, now_ms())
        if prior is not None:
            fingerprint, first, last = prior.decode().rsplit("|", 2)
            events = _archived_events(archived, int(first) - 1)[: int(last) - int(first) + 1]
            return Tail("duplicate", int(last), tuple(events), int(first), fingerprint)
    if after > archived.version:
        return Tail("behind", archived.version)
    events = _archived_events(archived, 0)
    if tip and after and events[after - 1].tip != tip:
        return Tail("behind", archived.version)
    return Tail("ok", archived.version, tuple(events[after:]))


def _entries(raw: Any) -> tuple[StoredEvent, ...]:
    """The scripts' entries: ``{version, data, at_ms, cause or false}`` each."""
    out = []
    for version, data, at_ms, cause in raw or []:
        out.append(
            StoredEvent(
                int(text(version)),
                as_bytes(data),
                int(text(at_ms)),
                as_bytes(cause) if cause not in (None, False, 0) else None,
            )
        )
    return tuple(out)
