"""RQ job functions (referenced by dotted name from `service.scheduling`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from domain.errors import DomainError
from domain.match import RecordResult
from service.bots import play_bot_turn
from service.context import Context, open_context
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


def bot_turn(game_id: str, seat: int, version: int) -> str:
    return asyncio.run(_bot_turn(game_id, seat, version))


def score_game(game_id: str) -> str:
    return asyncio.run(_score(game_id))
