"""A game that is over as one archive (service/store/archive.py holds its format): archiving
and restoring it, granting a seat's token into it, importing, exporting and dropping it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal, NamedTuple

import msgspec

from service.store import archive as archives
from service.store.game_streams import GameStreams
from service.store.keys import (
    ARCHIVE_PATTERN,
    archive_key,
    bot_seal_key,
    caller_of_idempotency,
    deadlines_key,
    game_keys,
    game_of_key,
    owner_games_key,
    presence_key,
    seat_tokens_key,
    snapshot_key,
    summary_key,
)
from service.store.scripts import Script
from service.store.stored_events import SealsOf, StoredEvent, as_bytes, now_ms, text, xrange_events

# An archive keeps the idempotency records of each caller's (each seat's, the creator's)
# last acts only: a client retries the request it sent last; an older act retried is
# decided again on the game that is over, and refused. The service's own records (bots,
# deadlines, scoring) go: nothing of theirs runs once a game is over.
ARCHIVED_IDEMPOTENCY_PER_CALLER = 4


class GameArchives(GameStreams):
    """A game that is over, as one archive: archived, restored, a token granted into it,
    imported, exported and dropped."""

    archive_ttl_ms: int
    _archive: Script
    _restore: Script
    _import: Script
    _drop: Script
    _replace: Script

    async def archive(
        self,
        game_id: str,
        version: int,
        tip: str,
        seals: SealsOf | None = None,
        snapshot: tuple[str, bytes] | None = None,
    ) -> Literal["ok", "archived", "changed", "missing"]:
        """Archive the game as it is at ``version`` (its entry there: ``tip``): its archive
        written and its hot keys deleted in one script, which does nothing if the game
        changed since (``changed``). ``seals``: the bots' kept sealed choices, from the
        game's entries, deleted with it; ``snapshot``: the match folded at ``version``
        (its format, its state), kept in the archive. ``archived``: it was already."""
        hot = await self._hot_keys(game_id)
        if not hot.rows:
            return "archived" if await self.redis.exists(archive_key(game_id)) else "missing"
        stored = xrange_events(hot.rows)
        last = stored[-1]
        if len(hot.rows) != version or last.version != version or last.tip != tip:
            return "changed"
        record = _record(game_id, version, hot, snapshot)
        summary = as_bytes(hot.summary) if hot.summary else None
        value = archives.encode(record, version, tip, summary)
        keys = _archived_keys(game_id, (seals or _none)(stored))
        args = [version, tip, len(hot.tokens), value, self.archive_ttl_ms]
        status = text(await self._archive(keys=keys, args=args))
        if status == "ok":
            self.recent.keep(game_id, archives.decode(value))
        return status  # type: ignore[return-value]

    async def _hot_keys(self, game_id: str) -> _HotKeys:
        """Everything a hot game holds, read in one round trip (a pipeline)."""
        events_key, idem_key, meta_key, seed_key = game_keys(game_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.xrange(events_key, min="-", max="+")
        pipe.hgetall(idem_key)
        pipe.pttl(idem_key)
        pipe.hgetall(meta_key)
        pipe.get(seed_key)
        pipe.hgetall(seat_tokens_key(game_id))
        pipe.get(summary_key(game_id))
        return _HotKeys(*await pipe.execute())

    async def restore(self, game_id: str) -> Literal["ok", "hot", "missing", "changed"]:
        """Make an archived game hot again (its keys written back, its archive deleted, in
        one script); ``hot``: it was not archived; ``changed``: its archive changed under
        this call (another process restored it, or it was archived again): look again."""
        value = await self.redis.get(archive_key(game_id))
        if value is None:
            return "hot" if await self.version(game_id) else "missing"
        raw = as_bytes(value)
        archived = archives.decode(raw)
        header = archives.header_of(raw)
        assert header is not None  # decode checked it
        record = archived.record
        lapsed = record.idem_expires_ms and now_ms() >= record.idem_expires_ms
        idem = {} if lapsed else record.idem
        args: list[Any] = [
            raw[: header.length],
            record.idem_expires_ms if idem else 0,
            len(record.meta),
            len(idem),
            len(record.seat_tokens),
            record.seed,
            archived.summary or b"",
        ]
        for pairs in (record.meta, idem, record.seat_tokens):
            for name, data in pairs.items():
                args += [name, data]
        for entry in record.entries:
            args += [entry.version, len(entry.fields), *entry.fields]
        events_key, idem_key, meta_key, seed_key = game_keys(game_id)
        keys = [
            events_key,
            idem_key,
            meta_key,
            seed_key,
            seat_tokens_key(game_id),
            summary_key(game_id),
            archive_key(game_id),
        ]
        return text(await self._restore(keys=keys, args=args))  # type: ignore[return-value]

    async def grant_archived(
        self, game_id: str, seat: int, digest: str
    ) -> Literal["ok", "hot", "missing"]:
        """Grant ``seat`` the token of hash ``digest`` in the game's archive (a rematch's
        seat asked for after the rematch was archived): the archive is rewritten with it,
        under a new time, so that no process reads the old one from its cache."""
        for _ in range(3):
            value = await self.archive_value(game_id)
            if value is None:
                return "hot" if await self.version(game_id) else "missing"
            archived = archives.decode(value)
            record = archived.record
            tokens = dict(record.seat_tokens)
            old = tokens.pop(f"s{seat}", None)
            if old is not None:
                tokens.pop("h" + old.decode(), None)
            tokens.update({f"s{seat}": digest.encode(), "h" + digest: str(seat).encode()})
            made = max(now_ms(), record.archived_ms + 1)
            changed = msgspec.structs.replace(record, seat_tokens=tokens, archived_ms=made)
            new = archives.encode(changed, archived.version, archived.tip, archived.summary)
            if await self._replace(keys=[archive_key(game_id)], args=[value, new]):
                self.recent.keep(game_id, archives.decode(new))
                return "ok"
        raise ValueError(f"game {game_id}: its archive keeps changing")

    async def import_archive(
        self, game_id: str, value: bytes
    ) -> Literal["ok", "hot", "newer", "same", "foreign"]:
        """Store an exported archive, unless the game is hot here (``hot``), its archive
        here is newer (``newer``) or this very one (``same``), or the record inside is of
        another game than ``game_id`` (``foreign``); nothing is written but with ``ok``."""
        header = archives.header_of(value)
        if header is None:
            raise ValueError(f"game {game_id}: not an archive of a format this code knows")
        record = archives.decode(value).record
        if record.game_id != game_id:
            return "foreign"
        events_key, _, meta_key, _ = game_keys(game_id)
        keys = [events_key, meta_key, archive_key(game_id)]
        args = [value, self.archive_ttl_ms, header.version, header.archived_ms]
        status = text(await self._import(keys=keys, args=args))
        if status == "ok":  # back in its API key's list (a listing forgets a missing game)
            meta = msgspec.json.decode(record.meta["meta"])
            await self.redis.zadd(owner_games_key(meta["owner"]), {game_id: meta["created_ms"]})
        return status  # type: ignore[return-value]

    async def archived_games(self) -> AsyncIterator[str]:
        """The ids of every archived game (a SCAN of every master; for an export)."""
        async for key in self.redis.scan_iter(match=ARCHIVE_PATTERN, count=1000):
            yield game_of_key(key)

    async def drop_archive(self, game_id: str, value: bytes) -> bool:
        """Delete the game's archive if it is still ``value`` (after an export)."""
        return bool(await self._drop(keys=[archive_key(game_id)], args=[value]))

    async def archive_value(self, game_id: str) -> bytes | None:
        """The stored archive of a game, as stored (for an export)."""
        value = await self.redis.get(archive_key(game_id))
        return None if value is None else as_bytes(value)


def _last_per_caller(idem: dict[str, bytes], keep: int) -> dict[str, bytes]:
    """The records of each caller's last ``keep`` acts (by the version they appended)."""
    by_caller: dict[str, list[tuple[int, str]]] = {}
    for field, value in idem.items():
        caller = caller_of_idempotency(field)
        if caller is not None:
            last = int(value.rsplit(b"|", 1)[1])
            by_caller.setdefault(caller, []).append((last, field))
    kept = {field for rows in by_caller.values() for _, field in sorted(rows)[-keep:]}
    return {field: value for field, value in idem.items() if field in kept}


def _none(entries: Sequence[StoredEvent]) -> Sequence[tuple[int, str]]:
    return ()


def _flat(fields: Any) -> list[bytes]:
    """A stream entry's fields and values, in order, as one list."""
    out: list[bytes] = []
    for name, value in fields.items():
        out += [as_bytes(name), as_bytes(value)]
    return out


def _mapping(raw: Any) -> dict[str, bytes]:
    return {text(k): as_bytes(v) for k, v in (raw or {}).items()}


class _HotKeys(NamedTuple):
    """A hot game's keys as read, in the order the archive script's caller reads them."""

    rows: Any
    idem: Any
    idem_ttl: Any
    meta: Any
    seed: Any
    tokens: Any
    summary: Any


def _record(
    game_id: str, version: int, hot: _HotKeys, snapshot: tuple[str, bytes] | None
) -> archives.Record:
    """The archive's record of a hot game read at ``version`` (``snapshot``: the match
    folded there, its format and state)."""
    entries = [
        archives.Entry(int(text(entry_id).split("-", 1)[1]), _flat(fields))
        for entry_id, fields in hot.rows
    ]
    now = now_ms()
    kept = None if snapshot is None else archives.Snapshot(snapshot[0], version, snapshot[1])
    return archives.Record(
        game_id=game_id,
        archived_ms=now,
        meta=_mapping(hot.meta),
        seed=as_bytes(hot.seed),
        entries=entries,
        idem=_last_per_caller(_mapping(hot.idem), ARCHIVED_IDEMPOTENCY_PER_CALLER),
        idem_expires_ms=now + int(hot.idem_ttl) if int(hot.idem_ttl) > 0 else 0,
        seat_tokens=_mapping(hot.tokens),
        snapshot=kept,
    )


def _archived_keys(game_id: str, seals: Sequence[tuple[int, str]]) -> list[str]:
    """What the archive script writes and deletes: every hot key of the game, its archive,
    and the bots' kept sealed choices ``seals``."""
    events_key, idem_key, meta_key, seed_key = game_keys(game_id)
    return [
        events_key,
        idem_key,
        meta_key,
        seed_key,
        seat_tokens_key(game_id),
        summary_key(game_id),
        deadlines_key(game_id),
        snapshot_key(game_id),
        archive_key(game_id),
        presence_key(game_id),  # who was at the table: nothing once the game is over
        *(bot_seal_key(game_id, seat, step) for seat, step in seals),
    ]
