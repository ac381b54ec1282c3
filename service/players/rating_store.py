"""An API key's ratings per game kind, updated exactly once per rated game, and its
leaderboards.

A game kind's ratings are one hash (identity -> rating JSON) and one sorted set (identity ->
its shown rating, exact) per API key; the games already rated are a set. An update reads
the ratings of the game's identities, works out the new ones (service/players/ratings.py),
and hands both to one script: it does nothing if the game was rated already, refuses if any
of those ratings changed since they were read (another game of the same players, rated
meanwhile on another worker: the update is worked out again on the new values), and
otherwise writes every new rating, the leaderboard's scores and the game's mark together.
So a scoring job retried, or run on two workers at once, rates its game once, and two games
rated at once never lose each other's update. All keys share the API key's hash tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from service.play.records import Loaded
from service.players import ratings
from service.players.ratings import Rating
from service.store.clients import AnyRedis
from service.store.keys import board_key, rated_key, ratings_key

MAX_ATTEMPTS = 20

_RATE_ONCE = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
local n = tonumber(ARGV[2])
for i = 0, n - 1 do
  local at = 3 + i * 4
  local now = redis.call('HGET', KEYS[2], ARGV[at]) or ''
  if now ~= ARGV[at + 1] then return -1 end
end
for i = 0, n - 1 do
  local at = 3 + i * 4
  redis.call('HSET', KEYS[2], ARGV[at], ARGV[at + 2])
  redis.call('ZADD', KEYS[3], ARGV[at + 3], ARGV[at])
end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Rating).decode


@dataclass(frozen=True)
class Ranked:
    """One identity on a leaderboard: its rank (1 = best), identity and rating."""

    rank: int
    identity: str
    rating: Rating


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RatingStore:
    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis
        self._rate_once = redis.register_script(_RATE_ONCE)

    async def rate_game(self, loaded: Loaded) -> str:
        """Update the ratings of a game whose result is recorded (once); says what it did."""
        match = loaded.match
        if match.recorded is None or match.aborted or match.abandoned:
            return "not rated: no result"
        seats = ratings.identities(match)
        names = [spec.name for spec in match.seats]
        owner, game = loaded.meta.owner, loaded.meta.game
        for _ in range(MAX_ATTEMPTS):
            outcome = await self._attempt(loaded, seats, names)
            if outcome is not None:
                return outcome
        return f"not rated: the ratings of {owner}'s {game} kept changing; retried"

    async def _attempt(
        self, loaded: Loaded, seats: Sequence[str | None], names: Sequence[str | None]
    ) -> str | None:
        owner, game = loaded.meta.owner, loaded.meta.game
        wanted = sorted({s for s in seats if s is not None})
        raw: list[Any] = await self.redis.hmget(ratings_key(owner, game), wanted) if wanted else []
        read = dict(zip(wanted, raw, strict=True))
        current = {i: _decode(v) for i, v in read.items() if v is not None}
        recorded = loaded.match.recorded
        places = ratings.rated_places(recorded.places, loaded.match) if recorded else []
        new = ratings.updated(current, seats, places, names, loaded.changed_ms)
        if not new:
            return "not rated: fewer than two rated seats"
        args: list[Any] = [loaded.game_id, len(new)]
        for identity, rating in sorted(new.items()):
            expected = read.get(identity)
            args += [
                identity,
                b"" if expected is None else expected,
                _encode(rating),
                repr(ratings.display_value(rating.mu, rating.sigma)),
            ]
        keys = [rated_key(owner), ratings_key(owner, game), board_key(owner, game)]
        done = int(await self._rate_once(keys=keys, args=args))
        if done < 0:
            return None  # raced another game's update: work it out again
        return f"rated {len(new)} identities" if done else "already rated"

    async def rating(self, owner: str, game: str, identity: str) -> tuple[Rating, int] | None:
        """An identity's rating in one game kind and its rank (1 = best), or None."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(ratings_key(owner, game), identity)
        pipe.zrevrank(board_key(owner, game), identity)
        raw, rank = await pipe.execute()
        if raw is None or rank is None:
            return None
        return _decode(raw), int(rank) + 1

    async def board(self, owner: str, game: str, start: int, count: int) -> list[Ranked]:
        """``count`` identities from rank ``start + 1`` down."""
        members: list[Any] = await self.redis.zrevrange(
            board_key(owner, game), start, start + count - 1
        )
        if not members:
            return []
        identities = [_text(m) for m in members]
        raw: list[Any] = await self.redis.hmget(ratings_key(owner, game), identities)
        return [
            Ranked(start + i + 1, identity, _decode(value))
            for i, (identity, value) in enumerate(zip(identities, raw, strict=True))
            if value is not None
        ]

    async def rank_of(self, owner: str, game: str, identity: str) -> int | None:
        """The identity's rank (1 = best), or None when it is not on the board."""
        rank: Any = await self.redis.zrevrank(board_key(owner, game), identity)
        return None if rank is None else int(rank) + 1

    async def size(self, owner: str, game: str) -> int:
        return int(await self.redis.zcard(board_key(owner, game)))
