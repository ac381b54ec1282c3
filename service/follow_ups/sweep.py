"""The sweep: ends the games nobody plays any more (abandonment); clears what outlives its use.

It no longer looks for lost work: every follow-up of a change is in the outbox, written with
the change (service/store/outbox.py), and done by a dispatcher. What still needs a
periodic look is time passing without any change: a game idle past
``STAKEOUT_ABANDON_SECONDS`` is ended, from the activity index alone (no game is loaded but
the ones it ends). Turn deadlines need no sweep: each is a job scheduled for its moment.

Two structures would outlive what they are about without it: the per-game entries of an
API key's sets, once the game's archive is gone (`Sweep.prune_remains`,
service/store/remains.py), and the outbox's consumers of dispatchers that are gone
(`Sweep.reap_consumers`, service/store/outbox.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from service.follow_ups import abandonment as abandon
from service.follow_ups.abandonment import ActivityIndex
from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.play.records import Change
from service.store.event_store import EventStore
from service.store.remains import GameRemains, Pruned


class Sweep:
    """The sweep over the active games: their index and the activity index (when each game
    last changed), and the game service to end one."""

    def __init__(
        self,
        games: GameService,
        store: EventStore,
        activity: ActivityIndex,
        remains: GameRemains,
    ) -> None:
        self.games = games
        self.store = store
        self.activity = activity
        self.remains = remains

    async def run(self, now_ms: int, abandon_after_ms: int = 0, batch: int = 500) -> SweepReport:
        """End the active games idle longer than ``abandon_after_ms`` (0: never)."""
        report = SweepReport()
        after = ""
        while True:
            ids = await self.store.active_games(after, batch)
            if not ids:
                return report
            last = await self.activity.last_changes(ids)
            for game_id, last_ms in zip(ids, last, strict=True):
                report.seen += 1
                verdict = abandon.verdict(last_ms, now_ms, abandon_after_ms)
                if verdict == "abandon":
                    assert last_ms is not None
                    idle_ms = now_ms - last_ms
                    ended = await abandon.abandon(self.games, self.activity, game_id, idle_ms)
                    report.abandoned += ended
                elif verdict == "record":
                    report.abandoned += await self._unknown(game_id, now_ms, abandon_after_ms)
                    report.loaded += 1
            after = ids[-1]

    async def prune_remains(self, now_ms: int) -> Pruned:
        """Remove the per-game entries of the games whose archive is gone (a grace period
        ago: service/store/remains.py)."""

        async def exists(game_id: str) -> bool:
            where, version, _ = await self.store.state(game_id)
            return where == "archived" or version > 0

        return await self.remains.prune_due(now_ms, exists)

    async def reap_consumers(self, idle_ms: int) -> int:
        """Remove the outbox consumers of dispatchers that are gone (idle ``idle_ms``, nothing
        pending); how many."""
        return await self.store.outbox.reap(idle_ms)

    async def _unknown(self, game_id: str, now_ms: int, abandon_after_ms: int) -> bool:
        """A game the activity index does not know (from before it): its last change is its
        stream's, from which it is judged now and known from then on."""
        try:
            loaded = await self.games.load(game_id)
        except GameNotFound:
            await self.store.retire_game(game_id)
            return False
        if abandon.ended(loaded):
            await self.store.retire_game(game_id)
            return False
        idle_ms = now_ms - loaded.changed_ms
        if abandon.verdict(loaded.changed_ms, now_ms, abandon_after_ms) == "abandon":
            return await abandon.abandon(self.games, self.activity, game_id, idle_ms)
        await self.activity.record_change(loaded, Change(None, loaded.changed_ms))
        return False


@dataclass
class SweepReport:
    seen: int = 0  # active games
    loaded: int = 0  # of them, loaded: unknown to the activity index
    abandoned: int = 0
