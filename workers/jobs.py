"""RQ job functions (referenced by dotted name from `service.scheduling`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from domain.errors import DomainError
from domain.match import RecordResult, TimeOut
from service import deadlines
from service.bots import play_bot_turn
from service.context import Context, open_context
from service.observability import timed_job
from service.scheduling import sweep
from service.settings import Settings


@asynccontextmanager
async def _context() -> AsyncIterator[Context]:
    async with open_context(Settings.from_env()) as ctx:
        yield ctx


async def _bot_turn(game_id: str, seat: int, version: int) -> str:
    async with _context() as ctx:
        return await play_bot_turn(ctx.games, game_id, seat, version)


async def _score(game_id: str) -> str:
    async with _context() as ctx:
        try:
            applied = await ctx.games.apply(
                game_id, lambda r, m, s: RecordResult(), idempotency_key="result"
            )
        except DomainError as exc:
            return f"not scored: {exc.detail}"
        return "recorded" if applied.events else "already recorded"


# Timed here, in the work horse: the duration goes to the queue Redis (the API exports it)
# and a JSON log line (see service/observability.py).
def bot_turn(game_id: str, seat: int, version: int) -> str:
    with timed_job("bot_turn", game_id):
        return asyncio.run(_bot_turn(game_id, seat, version))


def score_game(game_id: str) -> str:
    with timed_job("score_game", game_id):
        return asyncio.run(_score(game_id))


async def _deadline_passed(game_id: str, seat: int, at_ms: int) -> str:
    async with _context() as ctx:
        known = (await deadlines.current(ctx.store.redis, game_id)).get(seat)
        if known is None or known.at_ms != at_ms:
            return "superseded"
        action, step = known.action, known.step
        try:
            await ctx.games.apply(
                game_id,
                lambda r, m, s: TimeOut(seat, action, step),  # type: ignore[arg-type]
                idempotency_key=f"timeout:{seat}:{at_ms}",
            )
        except DomainError:
            return "acted in time"
        return "timed out"


async def _sweep() -> str:
    async with _context() as ctx:
        made = await sweep(ctx.games, ctx.scheduler, int(time.time() * 1000))
        return f"{made} jobs enqueued"


def deadline_passed(game_id: str, seat: int, at_ms: int) -> str:
    """A seat's turn deadline passed: if it still has not acted, a bot acts for it."""
    with timed_job("deadline", game_id):
        return asyncio.run(_deadline_passed(game_id, seat, at_ms))


def sweep_games() -> str:
    """Find work lost between an append and its enqueue (a crash) and enqueue it again."""
    return asyncio.run(_sweep())
