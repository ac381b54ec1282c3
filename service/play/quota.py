"""A quota of active games per API key (``STAKEOUT_MAX_ACTIVE_GAMES``).

A game is active from its creation until it ends (scored, or abandoned by the sweep) and
leaves ``games:active``. Each key has ``owner:{<key>}:active`` (its games) and
``owner:{<key>}:pending`` (creations under way). Creating a game first reserves a place
with one script — count both sets, refuse at the limit, else add a pending entry — so
concurrent creations cannot overshoot; the reservation becomes the game, or is released.
A reservation left by a crashed process expires after ``PENDING_MS``. Games that ended are
pruned from a key's set when they are archived, and lazily when the key is at its limit
(``ZMSCORE`` against the buckets of ``games:active``), so nothing on the move path has to know
about quotas.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from service.play.errors import ActiveGameLimit
from service.store import buckets
from service.store.clients import AnyRedis
from service.store.keys import active_games_key, quota_keys

PENDING_MS = 60_000

_RESERVE = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]))
if redis.call('ZCARD', KEYS[1]) + redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
return 1
"""


@dataclass
class Slot:
    """A reserved place; set ``game_id`` once the game exists."""

    game_id: str | None = None


class GameQuota:
    def __init__(self, redis: AnyRedis, limit: int) -> None:
        self.redis = redis
        self.limit = limit
        self._reserve = redis.register_script(_RESERVE)

    async def _try(self, owner: str, token: str) -> bool:
        now = int(time.time() * 1000)
        args: list[int | str] = [self.limit, token, now, PENDING_MS]
        return bool(await self._reserve(keys=list(quota_keys(owner)), args=args))

    async def prune(self, owner: str) -> int:
        """Drop the key's games that have ended (left games:active); how many were dropped."""
        active, _ = quota_keys(owner)
        rows: list[bytes] = await self.redis.zrange(active, 0, -1)  # type: ignore[assignment]
        members = [m.decode() for m in rows]
        if not members:
            return 0
        scores = await buckets.scores(self.redis, active_games_key, members)
        ended = [m for m, score in zip(members, scores, strict=True) if score is None]
        if ended:
            await self.redis.zrem(active, *ended)
        return len(ended)

    async def release(self, owner: str, game_id: str) -> None:
        """The game ended: it no longer counts (done when it is archived; `prune` finds
        the others)."""
        await self.redis.zrem(quota_keys(owner)[0], game_id)

    @asynccontextmanager
    async def slot(self, owner: str) -> AsyncIterator[Slot]:
        """A place for one more game of ``owner``, or `ActiveGameLimit` (409)."""
        if self.limit <= 0:
            yield Slot()
            return
        token = "pending-" + secrets.token_hex(8)
        if not await self._try(owner, token) and (
            not await self.prune(owner) or not await self._try(owner, token)
        ):
            raise ActiveGameLimit(
                f"this API key has {self.limit} active games, as many as it may; finish "
                "or abandon one first"
            )
        active, pending = quota_keys(owner)
        slot = Slot()
        try:
            yield slot
        finally:
            if slot.game_id is not None:
                await self.redis.zadd(active, {slot.game_id: int(time.time() * 1000)})
            await self.redis.zrem(pending, token)
