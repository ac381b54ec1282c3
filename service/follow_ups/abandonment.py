"""Idle games: when each active game last moved, and ending the ones nobody plays any more.

``games:activity`` is a sorted set (in buckets: service/store/buckets.py), game id → epoch
ms of its last change (creation, any act), kept beside the sweep's working set
``games:active`` by the follow-ups. The sweep reads it, loading no game:

- a game with no change for ``STAKEOUT_ABANDON_SECONDS`` is ended by the sweep: a
  ``game.abandoned`` event (act ``abandon``), status ``abandoned``, webhooks told
  ``game.finished`` with ``status: "abandoned"``, live feeds closed, and it leaves
  ``games:active`` (so it no longer counts towards its API key's quota either).

A game with turn deadlines is never idle longer than its ``turn_seconds``: a missed turn is
played by a bot, which is a change. So an abandonment time above the longest turn
(7 days) only ever ends games nobody can move.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from domain.errors import DomainError
from domain.match import Abandon
from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.play.records import Change, Loaded, Submission
from service.store import buckets
from service.store.clients import AnyRedis
from service.store.keys import (
    ABANDON_IDEMPOTENCY,
    LEGACY_GAME_ACTIVITY,
    active_games_key,
    bucket_of,
    game_activity_key,
)

log = logging.getLogger("stakeout")

Verdict = Literal["record", "keep", "abandon"]


def ended(loaded: Loaded) -> bool:
    """Nothing more will happen to this game: scored, abandoned or aborted."""
    match = loaded.match
    return match.recorded is not None or match.abandoned or match.aborted


class ActivityIndex:
    """When each active game last changed (``games:activity``), and the sweep's working
    set (``games:active``) as far as ending a game goes."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def record_change(self, loaded: Loaded, change: Change) -> None:
        """After every change: remember when the game last moved; forget it once it
        ended."""
        game_id = loaded.game_id
        bucket = bucket_of(game_id)
        if loaded.match.abandoned or loaded.match.aborted:
            await self.redis.zrem(active_games_key(bucket), game_id)
        if ended(loaded):
            await self.redis.zrem(game_activity_key(bucket), game_id)
        else:
            await self.redis.zadd(game_activity_key(bucket), {game_id: change.at_ms}, gt=True)

    async def last_changes(self, game_ids: Sequence[str]) -> list[float | None]:
        return await buckets.scores(self.redis, game_activity_key, game_ids)

    async def forget(self, game_id: str) -> None:
        await self.redis.zrem(game_activity_key(bucket_of(game_id)), game_id)

    async def move_legacy_index(self) -> int:
        """Move the games of the single ``games:activity`` of before into its buckets."""
        return await buckets.drain_legacy(self.redis, LEGACY_GAME_ACTIVITY, game_activity_key)


def verdict(last_ms: float | None, now_ms: int, abandon_after_ms: int) -> Verdict:
    """What the sweep does with a game, from its last change alone (no load)."""
    if last_ms is None:  # never recorded (older than this index): record it now
        return "record"
    if abandon_after_ms and now_ms - last_ms > abandon_after_ms:
        return "abandon"
    return "keep"


async def abandon(
    games: GameService, activity: ActivityIndex, game_id: str, idle_ms: float
) -> bool:
    """End ``game_id`` as abandoned; False if it ended otherwise first."""
    try:
        act = Abandon(idle_seconds=int(idle_ms // 1000))
        applied = await games.act(Submission(game_id, act, key=ABANDON_IDEMPOTENCY))
    except (DomainError, GameNotFound):
        await activity.forget(game_id)
        return False
    # The change handler retires it; done here too in case that one was cut short.
    await games.store.retire_game(game_id)
    await activity.forget(game_id)
    if applied.events:
        log.info("game abandoned", extra={"game_id": game_id})
    return bool(applied.events) or applied.replayed
