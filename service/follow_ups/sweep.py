"""No stuck games: the periodic sweep re-enqueues lost work and ends abandoned games.

If a process dies between an append and its follow-up, the sweep finds the games whose
awaited work (a bot turn, a deadline, scoring) has no live job and enqueues it again.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import anyio.to_thread

from service.follow_ups import abandonment as abandon
from service.follow_ups.abandonment import ActivityIndex
from service.follow_ups.jobs import JobQueue, archive_job, deadline_job, jobs_for
from service.play.deadlines import DeadlineStore
from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.play.records import Change
from service.store.event_store import EventStore


class Sweep:
    """The sweep over the active games: their streams, the job queue, the turn records and
    the activity index (which games changed lately)."""

    def __init__(
        self,
        games: GameService,
        store: EventStore,
        jobs: JobQueue,
        turns: DeadlineStore,
        activity: ActivityIndex,
    ) -> None:
        self.games = games
        self.store = store
        self.jobs = jobs
        self.deadlines = turns
        self.activity = activity

    async def run(
        self, now_ms: int, abandon_after_ms: int = 0, sweep_number: int = 0, batch: int = 500
    ) -> SweepReport:
        """Re-enqueue the work of active games that may need it, and end abandoned ones.

        Which games are loaded at all is decided from their last change
        (service/follow_ups/abandonment.py): recently changed games every time, idle ones
        in rotation.
        """
        report = SweepReport()
        after = ""
        while True:
            ids = await self.store.active_games(after, batch)
            if not ids:
                return report
            last = await self.activity.last_changes(ids)
            for game_id, last_ms in zip(ids, last, strict=True):
                report.seen += 1
                verdict = abandon.verdict(game_id, last_ms, now_ms, sweep_number, abandon_after_ms)
                if verdict == "abandon":
                    assert last_ms is not None
                    idle_ms = now_ms - last_ms
                    ended = await abandon.abandon(self.games, self.activity, game_id, idle_ms)
                    report.abandoned += ended
                elif verdict == "check":
                    await self._check(game_id, last_ms, now_ms, report)
            after = ids[-1]

    async def _check(
        self, game_id: str, last_ms: float | None, now_ms: int, report: SweepReport
    ) -> None:
        """Enqueue again what the game awaits and has no live job for."""
        try:
            loaded = await self.games.load(game_id)
        except GameNotFound:
            await self.store.retire_game(game_id)
            return
        report.loaded += 1
        if last_ms is None:
            await self.activity.record_change(loaded, Change(None, now_ms))
        requests = jobs_for(loaded)
        if loaded.meta.turn_seconds is not None:
            known = await self.deadlines.current(game_id)
            fresh = await self.deadlines.refresh(loaded, now_ms)
            turns = [*known.values(), *fresh]
            requests += [deadline_job(game_id, d) for d in turns if d.at_ms]
        if abandon.ended(loaded):  # its follow-up was lost: retire it, archive it later
            await self.store.retire_game(game_id)
            requests.append(archive_job(game_id, loaded.match.version, now_ms))
        if requests:
            report.enqueued += await anyio.to_thread.run_sync(
                functools.partial(self.jobs.enqueue, requests, revive=True)
            )


@dataclass
class SweepReport:
    seen: int = 0  # active games
    loaded: int = 0  # of them, looked at
    enqueued: int = 0  # jobs (re)made
    abandoned: int = 0
