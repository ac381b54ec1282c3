"""Statistics of an API key's finished games, counted once per game by the scoring job.

Per game kind: how many games finished, and for each kind of seat (``human``, or the bot
level) how many seats played and how many were among the winners (a shared win counts for
every winner). A mobile backend shows them as "your results" without paging every game.

Counting is exactly once per game even when the scoring job runs twice (a retry after a
crash, or the sweep): one server-side script adds the game to a set of counted games and
adds its counts only if it was not already there. Both keys share the owner's hash tag,
so the script also runs on Redis Cluster.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any

import msgspec

from domain.descriptions import GAME_NAME
from domain.engine import doc
from domain.match import SeatSpec
from service.store.clients import AnyRedis
from service.store.keys import stats_counted_key, stats_key

_COUNT_ONCE = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 2, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
end
return 1
"""


class SeatStats(msgspec.Struct, frozen=True):
    """Seats of one kind in finished games."""

    kind: Annotated[str, doc("human, or the bot level (random, greedy, expert).")]
    played: Annotated[int, doc("Seats of this kind in finished games.")]
    won: Annotated[int, doc("Of those, the seats among the winners.")]


class GameStats(msgspec.Struct, frozen=True):
    """Results of one game's finished games."""

    game: Annotated[str, doc(GAME_NAME)]
    finished: Annotated[
        int, doc("How many of the key's games of this kind finished (counted once each).")
    ]
    seats: Annotated[list[SeatStats], doc("Per kind of seat: seats played and won.")]


class Stats(msgspec.Struct, frozen=True):
    """The calling API key's results, per game."""

    games: Annotated[list[GameStats], doc("One entry per game with finished games.")]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def seat_kind(seat: SeatSpec) -> str:
    return seat.level if seat.type == "bot" and seat.level is not None else "human"


class StatsStore:
    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis
        self._count_once = redis.register_script(_COUNT_ONCE)

    async def count_result(
        self, owner: str, game_id: str, game: str, seats: list[SeatSpec], winners: list[int]
    ) -> bool:
        """Count one finished game; False when it had been counted already."""
        increments: Counter[str] = Counter({f"{game}|finished": 1})
        for index, seat in enumerate(seats):
            kind = seat_kind(seat)
            increments[f"{game}|{kind}|played"] += 1
            if index in winners:
                increments[f"{game}|{kind}|won"] += 1
        args: list[Any] = [game_id]
        for field, amount in sorted(increments.items()):
            args += [field, amount]
        keys = [stats_counted_key(owner), stats_key(owner)]
        counted = await self._count_once(keys=keys, args=args)
        return bool(counted)

    async def of(self, owner: str) -> Stats:
        raw = await self.redis.hgetall(stats_key(owner))
        counts = {_text(k): int(v) for k, v in raw.items()}
        games: list[GameStats] = []
        for game in sorted({field.split("|", 1)[0] for field in counts}):
            kinds = sorted(
                {f.split("|")[1] for f in counts if f.startswith(f"{game}|") and f.count("|") == 2}
            )
            games.append(
                GameStats(
                    game=game,
                    finished=counts.get(f"{game}|finished", 0),
                    seats=[
                        SeatStats(
                            kind=kind,
                            played=counts.get(f"{game}|{kind}|played", 0),
                            won=counts.get(f"{game}|{kind}|won", 0),
                        )
                        for kind in kinds
                    ],
                )
            )
        return Stats(games=games)
