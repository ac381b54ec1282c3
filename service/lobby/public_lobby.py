"""The public lobby: public games waiting for players or in play, newest first.

One sorted set, ``lobby:public`` (score: creation time, member: ``<game>|<id>``), holds every
public game that has not ended. A page is read from it newest first and each game is
loaded (from the warm cache) to learn its state; games found ended are dropped from the
set as the page passes them, so the set holds only live games without any write on the
move path. Private games are never added.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.play.records import Loaded
from service.store.clients import AnyRedis
from service.store.keys import PUBLIC_LOBBY


@dataclass(frozen=True)
class LobbyEntry:
    loaded: Loaded
    created_ms: int


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class PublicLobby:
    """The public games that have not ended (``lobby:public``)."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def list_public(self, game_id: str, game: str, created_ms: int = 0) -> None:
        member = {f"{game}|{game_id}": created_ms or int(time.time() * 1000)}
        await self.redis.zadd(PUBLIC_LOBBY, member)

    async def page(
        self,
        games: GameService,
        game: str | None,
        state: str | None,
        before: tuple[int, str] | None,
        limit: int,
    ) -> tuple[list[LobbyEntry], tuple[int, str] | None]:
        """Up to ``limit`` public games (``state``: waiting or playing), newest first, strictly
        after the cursor ``before`` (created_ms, id); and the next cursor (None at the end).
        The work per page is bounded: a short page with a cursor means keep going."""
        found: list[LobbyEntry] = []
        high: float | str = "+inf" if before is None else before[0]
        scanned = 0
        cursor = before
        while len(found) < limit and scanned < 10 * limit:
            rows: Any = await self.redis.zrevrangebyscore(
                PUBLIC_LOBBY, high, "-inf", start=0, num=limit + 64, withscores=True
            )
            batch = []
            for member, score in rows:
                kind, _, game_id = _text(member).partition("|")
                key = (int(score), game_id)
                if cursor is not None and key >= cursor:
                    continue
                batch.append((key, kind, _text(member)))
            batch.sort(reverse=True)
            if not batch:
                return found, None
            for key, kind, member in batch:
                scanned += 1
                cursor = key
                if game is not None and kind != game:
                    continue
                try:
                    loaded = await games.load(key[1])
                except GameNotFound:
                    await self.redis.zrem(PUBLIC_LOBBY, member)
                    continue
                match = loaded.match
                if loaded.engine.ended(match):
                    await self.redis.zrem(PUBLIC_LOBBY, member)
                    continue
                playing = "waiting" if match.waiting else "playing"
                if state is None or state == playing:
                    found.append(LobbyEntry(loaded, key[0]))
                if len(found) >= limit or scanned >= 10 * limit:
                    break
            high = cursor[0] if cursor is not None else "+inf"
            if len(batch) < limit + 64 and len(found) < limit and scanned < 10 * limit:
                return found, None
        return found, cursor
