"""RQ job functions (referenced by dotted name from `service.follow_ups.jobs`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Coroutine
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from service.follow_ups.jobs import archive_job, away_job
from service.play.away import AwayCheck
from service.play.deadlines import time_out
from service.play.results import record_result
from service.settings import Settings
from service.store.clients import WORKER_TIMEOUT_SECONDS
from service.telemetry.metrics import timed_job
from service.wiring import Wiring, open_wiring

# Jobs run in the worker process itself (workers/main.py uses RQ's SimpleWorker), so one
# event loop and one wiring (Redis clients, the warm game cache) serve every job of the
# process instead of being rebuilt per job. Each job takes from it the objects it uses.
_LOOP: asyncio.AbstractEventLoop | None = None
_SHARED: list[Wiring] = []
_STACK = AsyncExitStack()


def _run(coro: Coroutine[Any, Any, str]) -> str:
    global _LOOP  # noqa: PLW0603 - one loop per worker process, created on first use
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()
    return _LOOP.run_until_complete(coro)


@asynccontextmanager
async def _wiring() -> AsyncIterator[Wiring]:
    if not _SHARED:
        wiring = open_wiring(Settings.from_env(), timeout=WORKER_TIMEOUT_SECONDS)
        _SHARED.append(await _STACK.enter_async_context(wiring))
    yield _SHARED[0]


async def _bot_turn(game_id: str, seat: int, version: int) -> str:
    async with _wiring() as wiring:
        return await wiring.bots.play(game_id, seat, version)


async def _score(game_id: str) -> str:
    async with _wiring() as wiring:
        said = await record_result(wiring.games, wiring.stats, game_id)
        # Then the ratings, once per game (service/players/rating_store.py): a retry of a
        # job that died between the two steps rates the game then.
        rated = await wiring.ratings.rate_game(await wiring.games.load(game_id))
        return f"{said}; {rated}"


# Timed here, in the work horse: the duration goes to the queue Redis (the API exports it)
# and a JSON log line (see service/telemetry/metrics.py).
def bot_turn(game_id: str, seat: int, version: int) -> str:
    with timed_job("bot_turn", game_id):
        return _run(_bot_turn(game_id, seat, version))


def score_game(game_id: str) -> str:
    with timed_job("score_game", game_id):
        return _run(_score(game_id))


async def _archive(game_id: str) -> str:
    async with _wiring() as wiring:
        outcome = await wiring.archiver.archive(game_id, int(time.time() * 1000))
        if outcome.again_at_ms is not None:
            again = archive_job(game_id, outcome.version, outcome.again_at_ms, again=True)
            wiring.jobs.enqueue([again])
        return outcome.said


def archive_game(game_id: str) -> str:
    """Archive an ended game whose window has passed (service/follow_ups/archiving.py)."""
    with timed_job("archive_game", game_id):
        return _run(_archive(game_id))


async def _deadline_passed(game_id: str, seat: int, at_ms: int) -> str:
    async with _wiring() as wiring:
        return await time_out(wiring.games, wiring.deadlines, game_id, seat, at_ms)


async def _away_check(game_id: str, seat: int, action: str, step: str) -> str:
    async with _wiring() as wiring:
        said, again_ms = await wiring.away.check(game_id, seat, action, step)
        if again_ms is not None:
            wiring.jobs.enqueue([away_job(game_id, AwayCheck(seat, action, step, again_ms))])
        return said


def away_check(game_id: str, seat: int, action: str, step: str) -> str:
    """A seat's turn in a game with away_seconds: played as a time-out if the seat has been
    away that long (service/play/away.py)."""
    with timed_job("away_check", game_id):
        return _run(_away_check(game_id, seat, action, step))


async def _sweep() -> str:
    async with _wiring() as wiring:
        settings = wiring.settings
        # The single index sets of before their buckets, moved (nothing to do once done).
        await wiring.store.move_legacy_index()
        await wiring.activity.move_legacy_index()
        await wiring.lobby.move_legacy_index()
        now_ms = int(time.time() * 1000)
        done = await wiring.sweep.run(now_ms, abandon_after_ms=settings.abandon_seconds * 1000)
        # Ended games whose archive job should have run by the last sweep, and has not.
        late = await wiring.archiver.archive_overdue(now_ms, settings.sweep_seconds * 1000)
        # What would outlive its game: the entries of games whose archive is gone, and the
        # outbox consumers of dispatchers that are gone.
        pruned = await wiring.sweep.prune_remains(now_ms)
        reaped = await wiring.sweep.reap_consumers(settings.consumer_idle_seconds * 1000)
        return (
            f"{done.seen} active games, {done.loaded} loaded, {done.abandoned} abandoned, "
            f"{late} archived late, {pruned.pruned} games' entries pruned, "
            f"{reaped} outbox consumers reaped"
        )


def deadline_passed(game_id: str, seat: int, at_ms: int) -> str:
    """A seat's turn deadline passed: if it still has not acted, a bot acts for it."""
    with timed_job("deadline", game_id):
        return _run(_deadline_passed(game_id, seat, at_ms))


def sweep_games() -> str:
    """End the games nobody plays any more (service/follow_ups/sweep.py)."""
    return _run(_sweep())
