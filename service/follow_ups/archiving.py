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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from service.follow_ups import abandonment
from service.follow_ups.abandonment import ActivityIndex
from service.lobby.public_lobby import PublicLobby
from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.play.quota import GameQuota
from service.play.records import Loaded
from service.store.event_store import EventStore, SealsOf, StoredEvent


@dataclass(frozen=True)
class Outcome:
    """What an archive job did, and when to run again (epoch ms; None: never)."""

    said: str
    again_at_ms: int | None = None
    version: int = 0


class Archiver:
    """Archives ended games: the game service (to load them), the event store (the
    archive itself) and the indexes they leave."""

    def __init__(
        self,
        games: GameService,
        store: EventStore,
        activity: ActivityIndex,
        lobby: PublicLobby,
        quota: GameQuota,
        after_ms: int,
    ) -> None:
        self.games = games
        self.store = store
        self.activity = activity
        self.lobby = lobby
        self.quota = quota
        self.after_ms = after_ms

    async def archive(self, game_id: str, now_ms: int) -> Outcome:
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
            status = await self.store.archive(game_id, loaded.match.version, loaded.tip, seals)
            if status == "ok":
                return Outcome(f"archived at version {loaded.match.version}")
            if status in ("archived", "missing"):
                return Outcome("already archived" if status == "archived" else "no such game")
        return Outcome("changed while archiving", now_ms + self.after_ms)

    async def leave_indexes(self, loaded: Loaded) -> None:
        """An ended game leaves every index of active games (each one idempotent)."""
        game_id, meta = loaded.game_id, loaded.meta
        await self.store.retire_game(game_id)
        await self.activity.forget(game_id)
        await self.quota.release(meta.owner, game_id)
        if meta.public:
            await self.lobby.delist(game_id, meta.game)


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
