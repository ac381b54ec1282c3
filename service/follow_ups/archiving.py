"""Archiving a game once it is over: the job that turns its hot keys into one compact record.

A game that ended (its result recorded, aborted or abandoned) stays hot for
``STAKEOUT_ARCHIVE_AFTER_SECONDS`` after its last change (a rematch, a last look), then the
scoring worker archives it (`service.store.archive`): it leaves every index of active games
(the sweep's, the activity index, the public lobby, its API key's quota), and one script
writes its archive and deletes its hot keys, only if the game is still at the version and
tip it was archived from. So a crash anywhere leaves the hot game or its archive, and two
workers archiving one game archive it once. Reads go through to the archive; a rematch
restores the game first (`GameService`), and it is archived again later.

The job is scheduled by the change that ended the game (a later change, such as a rematch,
schedules its own), with an id of its game and version; a job that finds the game changed
since asks to run again when the window after that change has passed.

A job can be lost, or never made: its id already used (RQ keeps a job's record for an hour,
so a game ended again at the same version schedules nothing), its queue's Redis emptied. So
the change also enters the game in ``games:archive-due`` (when its archive is due), which
the archiving leaves; the sweep archives every game due longer ago than its own period
(`Archiver.archive_overdue`). Both may run on a game at once: the archive script decides.

Archiving also deletes the game's invites (their hashes are in its meta), and enters the
game in the index of what it leaves in its API key's sets (service/store/remains.py), for
the sweep to prune once the archive is gone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from service.follow_ups import abandonment
from service.follow_ups.abandonment import ActivityIndex
from service.lobby.invites import InviteStore
from service.lobby.public_lobby import PublicLobby
from service.play import snapshots
from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.play.quota import GameQuota
from service.play.records import Loaded
from service.store.clients import AnyRedis
from service.store.event_store import EventStore, SealsOf, StoredEvent
from service.store.keys import INDEX_BUCKETS, archive_due_key, bucket_of
from service.store.remains import GameRemains, Remains


@dataclass(frozen=True)
class Outcome:
    """What an archive job did, and when to run again (epoch ms; None: never)."""

    said: str
    again_at_ms: int | None = None
    version: int = 0


class ArchiveDue:
    """Ended games not archived yet, each with when its archive is due
    (``games:archive-due``, in buckets)."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def due(self, game_id: str, at_ms: int) -> None:
        """The game's archive is due at ``at_ms`` (never earlier than a later change said:
        a follow-up of an older change may come late)."""
        await self.redis.zadd(archive_due_key(bucket_of(game_id)), {game_id: at_ms}, gt=True)

    async def done(self, game_id: str) -> None:
        await self.redis.zrem(archive_due_key(bucket_of(game_id)), game_id)

    async def overdue(self, before_ms: int, count: int) -> list[str]:
        """Up to ``count`` games of each bucket due before ``before_ms`` (one round trip)."""
        pipe = self.redis.pipeline(transaction=False)
        for bucket in range(INDEX_BUCKETS):
            pipe.zrangebyscore(archive_due_key(bucket), "-inf", before_ms, start=0, num=count)
        rows: list[list[bytes | str]] = await pipe.execute()
        return [m.decode() if isinstance(m, bytes) else m for found in rows for m in found]


@dataclass(frozen=True)
class Leftovers:
    """What an ended game leaves behind when it is archived: the indexes of active games it
    leaves (the activity index, the public lobby, its key's quota), its invites, and the
    index of what stays of it in its key's sets."""

    activity: ActivityIndex
    lobby: PublicLobby
    quota: GameQuota
    invites: InviteStore
    remains: GameRemains


class Archiver:
    """Archives ended games: the game service (to load them), the event store (the
    archive itself), what they leave behind and the index of archives due."""

    def __init__(
        self,
        games: GameService,
        store: EventStore,
        leftovers: Leftovers,
        after_ms: int,
        due: ArchiveDue,
    ) -> None:
        self.games = games
        self.store = store
        self.leftovers = leftovers
        self.after_ms = after_ms
        self.due = due

    async def archive(self, game_id: str, now_ms: int) -> Outcome:
        outcome = await self._archive(game_id, now_ms)
        if outcome.again_at_ms is None:
            await self.due.done(game_id)  # archived, gone, or not over: nothing is due
        else:
            await self.due.due(game_id, outcome.again_at_ms)
        return outcome

    async def archive_overdue(self, now_ms: int, late_ms: int, count: int = 100) -> int:
        """Archive the ended games whose archive was due more than ``late_ms`` ago (the
        sweep's: their job never ran); how many were archived."""
        archived = 0
        for game_id in await self.due.overdue(now_ms - late_ms, count):
            outcome = await self.archive(game_id, now_ms)
            archived += outcome.said.startswith("archived at")
        return archived

    async def _archive(self, game_id: str, now_ms: int) -> Outcome:
        for _ in range(3):
            where, _, _ = await self.store.state(game_id)
            if where == "archived":
                return Outcome("already archived")
            try:
                loaded = await self.games.load(game_id)
            except GameNotFound:
                return Outcome("no such game")
            if not abandonment.ended(loaded):
                return Outcome("not over")  # the change that ends it schedules the job
            due = loaded.changed_ms + self.after_ms
            if now_ms < due:
                return Outcome("changed since", due, loaded.match.version)
            await self.leave_indexes(loaded)
            seals = bot_seals(loaded)
            # The match as folded now goes into the archive: its cold loads fold nothing.
            snapshot = (snapshots.snapshot_format(), snapshots.encode(loaded.match))
            version = loaded.match.version
            status = await self.store.archive(game_id, version, loaded.tip, seals, snapshot)
            if status == "ok":
                await self.leftovers.remains.record(remains_of(loaded), self._gone_ms(now_ms))
                return Outcome(f"archived at version {loaded.match.version}")
            if status in ("archived", "missing"):
                return Outcome("already archived" if status == "archived" else "no such game")
        return Outcome("changed while archiving", now_ms + self.after_ms)

    def _gone_ms(self, now_ms: int) -> int:
        """When an archive written now expires (one kept forever: when the sweep looks
        whether it is still there, a grace period from now)."""
        return now_ms + self.store.archive_ttl_ms

    async def leave_indexes(self, loaded: Loaded) -> None:
        """An ended game leaves every index of active games, and its invites are deleted
        (each step idempotent)."""
        game_id, meta, left = loaded.game_id, loaded.meta, self.leftovers
        await self.store.retire_game(game_id)
        await left.activity.forget(game_id)
        await left.quota.release(meta.owner, game_id)
        if meta.public:
            await left.lobby.delist(game_id, meta.game)
        # Its invites lead nowhere once it is over: gone before the archive is written, so
        # no crash in between leaves them (a claim of the ended game got 409 till now).
        await left.invites.forget(meta.invites)


def remains_of(loaded: Loaded) -> Remains:
    """Whose per-game sets hold the game: its API key's, and those of the players seated
    at its creation or at its end."""
    seats = [*loaded.meta.seats, *loaded.match.seats]
    players = sorted({s.external_id for s in seats if s.external_id is not None})
    return Remains(loaded.game_id, loaded.meta.owner, players)


class _Commit(msgspec.Struct):
    kind: str = ""
    seat: int | None = None
    step: str | None = None


_commit = msgspec.json.Decoder(_Commit)


def bot_seals(loaded: Loaded) -> SealsOf:
    """The (seat, step) of every sealed choice a bot seat committed to: its kept choice
    (``game:{<id>}:botseal:<seat>:<step>``) goes with the archive."""
    bots = {i for i, seat in enumerate(loaded.match.seats) if seat.type == "bot"}

    def of(entries: Sequence[StoredEvent]) -> Sequence[tuple[int, str]]:
        out = []
        for entry in entries:
            if entry.cause is None:
                continue
            act = _commit.decode(entry.cause)
            if act.kind == "commit" and act.seat in bots and act.step is not None:
                out.append((act.seat, act.step))
        return out

    return of
