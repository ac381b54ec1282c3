"""The public lobby: public games waiting for players or in play, newest first.

One sorted set, ``lobby:public`` (score: creation time, member: ``<game>|<id>``), holds every
public game that has not ended; it is split into buckets (service/store/buckets.py), so a
page reads every bucket, newest first, in one round trip. Each game is loaded (from the warm
cache) to learn its state; games found ended are dropped from the set as the page passes
them, and an ended game is dropped when it is archived, so the set holds only live games
without any write on the move path. Private games are never added.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from service.play.errors import GameNotFound
from service.play.game_service import GameService
from service.play.records import Loaded
from service.store import buckets
from service.store.clients import AnyRedis
from service.store.keys import LEGACY_PUBLIC_LOBBY, bucket_of, public_lobby_key


@dataclass(frozen=True)
class LobbyEntry:
    loaded: Loaded
    created_ms: int


def _member(game: str, game_id: str) -> str:
    return f"{game}|{game_id}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class PublicLobby:
    """The public games that have not ended (``lobby:public``)."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def list_public(self, game_id: str, game: str, created_ms: int = 0) -> None:
        member = {_member(game, game_id): created_ms or int(time.time() * 1000)}
        await self.redis.zadd(public_lobby_key(bucket_of(game_id)), member)

    async def delist(self, game_id: str, game: str) -> None:
        await self.redis.zrem(public_lobby_key(bucket_of(game_id)), _member(game, game_id))

    async def move_legacy_index(self) -> int:
        """Move the games of the single ``lobby:public`` of before into its buckets."""
        return await buckets.drain_legacy(
            self.redis, LEGACY_PUBLIC_LOBBY, public_lobby_key, lambda m: m.partition("|")[2]
        )

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
            rows, complete = await buckets.newest(self.redis, public_lobby_key, high, limit + 64)
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
            for key, kind, _ in batch:
                scanned += 1
                cursor = key
                if game is not None and kind != game:
                    continue
                try:
                    loaded = await games.load(key[1])
                except GameNotFound:
                    await self.delist(key[1], kind)
                    continue
                match = loaded.match
                if loaded.engine.ended(match):
                    await self.delist(key[1], kind)
                    continue
                playing = "waiting" if match.waiting else "playing"
                if state is None or state == playing:
                    found.append(LobbyEntry(loaded, key[0]))
                if len(found) >= limit or scanned >= 10 * limit:
                    break
            high = cursor[0] if cursor is not None else "+inf"
            if complete and len(found) < limit and scanned < 10 * limit:
                return found, None
        return found, cursor
