"""Each player's games: an index per API key and external id, for a player's history.

A game enters the index of every external id seated in it, at its creation or when its
open seat is claimed: the follow-up of that change writes it (service/follow_ups/), one
``ZADD`` per player then, and nothing on any other change. A player who left the seat
again stays indexed; the history checks the game's seats when it lists it. Games created
before the index existed are not in it (``GET /v1/games?external_id=`` still finds them).
A game's entries are pruned a day after its archive is gone (service/store/remains.py); an
entry of a game that is gone met by a listing before that is dropped there and then.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from domain.match import GameCreated, SeatClaimed
from service.play.records import Loaded
from service.store.clients import AnyRedis
from service.store.keys import player_games_key


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def seated(events: Collection[Any]) -> list[str]:
    """The external ids that ``events`` (just appended) seat in their game (pure)."""
    out: list[str] = []
    for event in events:
        if isinstance(event, GameCreated):
            out += [s.external_id for s in event.seats if s.external_id is not None]
        elif isinstance(event, SeatClaimed) and event.external_id is not None:
            out.append(event.external_id)
    return out


class PlayerGames:
    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis

    async def index(self, loaded: Loaded, events: Collection[Any]) -> int:
        """Index the game for each player ``events`` seat; how many (no round trip if 0)."""
        players = sorted(set(seated(events)))
        if not players:
            return 0
        owner, created = loaded.meta.owner, loaded.meta.created_ms
        pipe = self.redis.pipeline(transaction=False)
        for external_id in players:
            pipe.zadd(player_games_key(owner, external_id), {loaded.game_id: created})
        await pipe.execute()
        return len(players)

    async def forget(self, owner: str, external_id: str, game_id: str) -> None:
        """Drop a game that is gone from the player's index (a listing met it)."""
        await self.redis.zrem(player_games_key(owner, external_id), game_id)

    async def games(
        self, owner: str, external_id: str, before: tuple[int, str] | None, count: int
    ) -> list[tuple[str, int]]:
        """The player's games, newest first, strictly after the cursor ``before``."""
        high: float | str = "+inf" if before is None else before[0]
        rows: Any = await self.redis.zrevrangebyscore(
            player_games_key(owner, external_id),
            high,
            "-inf",
            start=0,
            num=count + 64,
            withscores=True,
        )
        out: list[tuple[str, int]] = []
        for member, score in rows:
            game_id, created = _text(member), int(score)
            if before is not None and (created, game_id) >= before:
                continue
            out.append((game_id, created))
        out.sort(key=lambda row: (row[1], row[0]), reverse=True)
        return out[:count]
