"""What is left of a game once its archive is gone: its entries in its API key's sets.

A game leaves one entry in each of its API key's per-game sets: its list of games
(``owner:{<key>}:games``), the games counted into its stats (``stats-counted``) and rated
(``rated``), and each seated player's games (``player:<x>:games``). They outlive the game's
hot keys on purpose: the list shows the archived game, and the two sets make a late retry of
its counting or rating job a no-op. Once the archive itself is gone (it expired after
``STAKEOUT_ARCHIVE_TTL_SECONDS``, or was exported and deleted) they are dead weight.

So archiving a game enters it here (``games:remains``, in buckets): one member per game,
``[game id, owner, [external ids]]`` (JSON), scored with when its entries may go: the
archive's expiry plus a grace period (``STAKEOUT_REMAINS_GRACE_SECONDS``, a day by default),
long enough that no job of the game is still waiting for a retry. The sweep takes the due
ones (`GameRemains.prune_due`): a game that still exists (restored for a rematch, imported
again, or kept forever) is looked at again a grace period later; a game that is gone loses
its entries, in one pipelined round trip on its API key's hash tag. A late retry of its
counting or rating job then loads no game (404) and counts nothing twice.

A player who left a seat before the start may stay in that player's index (only the seats
at the archive are known here); a listing drops such a dead entry when it meets it
(service/views/game_list.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import msgspec

from service.store.clients import AnyRedis
from service.store.keys import (
    INDEX_BUCKETS,
    bucket_of,
    owner_games_key,
    player_games_key,
    rated_key,
    remains_key,
    stats_counted_key,
)

DAY_MS = 24 * 3600 * 1000


class Remains(msgspec.Struct, array_like=True, frozen=True):
    """A game's leftovers: whose sets hold it."""

    game_id: str
    owner: str
    players: list[str]


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Remains).decode


@dataclass(frozen=True)
class Pruned:
    """What a pass of `GameRemains.prune_due` did."""

    pruned: int = 0  # games whose entries were removed
    kept: int = 0  # games still there, looked at again later


class GameRemains:
    """The index of archived games' leftovers, and their pruning."""

    def __init__(self, redis: AnyRedis, grace_ms: int = DAY_MS) -> None:
        self.redis = redis
        self.grace_ms = grace_ms

    async def record(self, remains: Remains, gone_ms: int) -> None:
        """The game's archive goes at ``gone_ms`` (epoch ms; for an archive kept forever,
        when to look again): its entries may be pruned a grace period later (never earlier
        than an earlier record said: a game archived again is kept longer)."""
        key = remains_key(bucket_of(remains.game_id))
        await self.redis.zadd(key, {_encode(remains): gone_ms + self.grace_ms}, gt=True)

    async def due(self, now_ms: int, count: int) -> list[Remains]:
        """Up to ``count`` games of each bucket due by ``now_ms`` (one round trip)."""
        pipe = self.redis.pipeline(transaction=False)
        for bucket in range(INDEX_BUCKETS):
            pipe.zrangebyscore(remains_key(bucket), "-inf", now_ms, start=0, num=count)
        rows: list[list[bytes]] = await pipe.execute()
        return [_decode(member) for found in rows for member in found]

    async def prune_due(
        self, now_ms: int, exists: Callable[[str], Awaitable[bool]], count: int = 100
    ) -> Pruned:
        """Prune the entries of the due games that ``exists`` says are gone; the others are
        looked at again a grace period from now."""
        pruned = kept = 0
        for remains in await self.due(now_ms, count):
            key, member = remains_key(bucket_of(remains.game_id)), _encode(remains)
            if await exists(remains.game_id):
                await self.redis.zadd(key, {member: now_ms + self.grace_ms}, xx=True)
                kept += 1
                continue
            await self.forget(remains.owner, remains.game_id, remains.players)
            await self.redis.zrem(key, member)
            pruned += 1
        return Pruned(pruned, kept)

    async def forget(self, owner: str, game_id: str, players: Sequence[str]) -> None:
        """Remove a game that is gone from every per-game set of its API key (idempotent;
        the keys share the key's hash tag: one pipelined round trip)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(owner_games_key(owner), game_id)
        pipe.srem(stats_counted_key(owner), game_id)
        pipe.srem(rated_key(owner), game_id)
        for external_id in players:
            pipe.zrem(player_games_key(owner, external_id), game_id)
        await pipe.execute()


__all__ = ["DAY_MS", "GameRemains", "Pruned", "Remains"]
