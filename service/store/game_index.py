"""The indexes of games: each API key's games, newest first, and the games not yet retired,
in buckets, which the sweep pages through."""

from __future__ import annotations

from typing import Any

from service.store.buckets import drain_legacy
from service.store.clients import AnyRedis
from service.store.keys import (
    INDEX_BUCKETS,
    LEGACY_ACTIVE_GAMES,
    active_games_key,
    bucket_of,
    owner_games_key,
)
from service.store.stored_events import text


class GameIndex:
    """The per-API-key index of games (its own key: fine on a cluster) and the active games."""

    redis: AnyRedis

    async def index_game(self, owner: str, game_id: str, created_ms: int) -> None:
        await self.redis.zadd(owner_games_key(owner), {game_id: created_ms})
        # One score for all members: the sweep pages through them in id (lexical) order.
        await self.redis.zadd(active_games_key(bucket_of(game_id)), {game_id: 0})

    async def retire_game(self, game_id: str) -> None:
        """The game is over and scored: the sweep no longer needs to look at it."""
        await self.redis.zrem(active_games_key(bucket_of(game_id)), game_id)

    async def active_games(self, after: str, count: int) -> list[str]:
        """Ids of games not yet retired, after ``after`` in the order (bucket, id): the
        sweep's pages (the last id of a page is the next page's ``after``)."""
        out: list[str] = []
        first = bucket_of(after) if after else 0
        for bucket in range(first, INDEX_BUCKETS):
            low = f"({after}" if after and bucket == first else "-"
            rows = await self.redis.zrangebylex(
                active_games_key(bucket), low, "+", start=0, num=count - len(out)
            )
            out += [text(r) for r in rows]
            if len(out) >= count:
                break
        return out

    async def move_legacy_index(self) -> int:
        """Move the games of the single ``games:active`` of before into its buckets."""
        return await drain_legacy(self.redis, LEGACY_ACTIVE_GAMES, active_games_key)

    async def forget_owned(self, owner: str, game_id: str) -> None:
        """Drop a game that no longer exists (its archive expired) from its key's list."""
        await self.redis.zrem(owner_games_key(owner), game_id)

    async def owned_games(
        self, owner: str, before: tuple[int, str] | None, count: int
    ) -> list[tuple[str, int]]:
        """Games of ``owner``, newest first, strictly after the cursor ``before``."""
        key = owner_games_key(owner)
        high: float | str = "+inf" if before is None else before[0]
        rows: Any = await self.redis.zrevrangebyscore(
            key, high, "-inf", start=0, num=count + 64, withscores=True
        )
        out: list[tuple[str, int]] = []
        for member, score in rows:
            game_id, created = text(member), int(score)
            # Ties on the creation time are ordered by id, so the cursor is exact.
            if before is not None and (created, game_id) >= before:
                continue
            out.append((game_id, created))
        out.sort(key=lambda row: (row[1], row[0]), reverse=True)
        return out[:count]
