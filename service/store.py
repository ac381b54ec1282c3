"""The event store on Redis (contract in DESIGN.md).

Layout — every key of a game shares the hash tag ``{<id>}``, so the store runs unchanged on
Redis Cluster:

- ``game:{id}:events``  the stream, one entry per event, entry id ``0-<version>``; never
  trimmed, so ``XLEN`` is the version.
- ``game:{id}:idem``    idempotency keys → ``fingerprint|first|last`` of the append they made.
- ``game:{id}:meta``    creation facts: game name, API key id, seat token hashes, seats.
- ``game:{id}:seed``    the secret shuffle seed (hex); only ever read by the server.

Appends run as one server-side script: check the idempotency key, check the expected
version, append, record the key, return the new version — so two writers can never both
win and a retried request never appends twice.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

AnyRedis = Redis | RedisCluster

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then
  return {'exists', '0'}
end
local nmeta = tonumber(ARGV[1])
local i = 2
for _ = 1, nmeta do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
redis.call('SET', KEYS[2], ARGV[i])
local now = ARGV[i + 1]
local version = 0
for j = i + 2, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[3], '0-' .. version, 'e', ARGV[j], 't', now)
end
return {'ok', tostring(version)}
"""

_APPEND = """
local key = ARGV[2]
if key ~= '' then
  local prior = redis.call('HGET', KEYS[2], key)
  if prior then return {'duplicate', prior} end
end
if redis.call('EXISTS', KEYS[3]) == 0 then return {'missing', '0'} end
local version = redis.call('XLEN', KEYS[1])
if tonumber(ARGV[1]) ~= version then return {'conflict', tostring(version)} end
local first = version + 1
local now = ARGV[4]
-- The act that produced the batch is kept on its first entry (for verification).
for j = 6, #ARGV do
  version = version + 1
  if j == 6 and ARGV[5] ~= '' then
    redis.call('XADD', KEYS[1], '0-' .. version, 'e', ARGV[j], 't', now, 'c', ARGV[5])
  else
    redis.call('XADD', KEYS[1], '0-' .. version, 'e', ARGV[j], 't', now)
  end
end
if key ~= '' then
  redis.call('HSET', KEYS[2], key, ARGV[3] .. '|' .. first .. '|' .. version)
end
return {'ok', tostring(version)}
"""


ACTIVE_GAMES = "games:active"


def _keys(game_id: str) -> tuple[str, str, str, str]:
    tag = "{" + game_id + "}"
    return (f"game:{tag}:events", f"game:{tag}:idem", f"game:{tag}:meta", f"game:{tag}:seed")


@dataclass(frozen=True)
class Appended:
    """What an append did. For ``duplicate``, ``first..last`` is the earlier append's range."""

    status: Literal["ok", "conflict", "duplicate", "missing"]
    version: int
    first: int = 0
    fingerprint: str = ""
    at_ms: int = 0


@dataclass(frozen=True)
class StoredEvent:
    version: int
    data: bytes
    at_ms: int
    cause: bytes | None = None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class EventStore:
    """Async access to game streams. Holds a client; connects lazily on first use."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis
        self._create = redis.register_script(_CREATE)
        self._append = redis.register_script(_APPEND)

    async def create(
        self, game_id: str, meta: Mapping[str, str], seed: bytes, events: Sequence[bytes]
    ) -> bool:
        events_key, _, meta_key, seed_key = _keys(game_id)
        args: list[Any] = [len(meta)]
        for name, value in meta.items():
            args += [name, value]
        args += [seed.hex(), _now_ms(), *events]
        status, _ = await self._create(keys=[meta_key, seed_key, events_key], args=args)
        return _text(status) == "ok"

    async def append(
        self,
        game_id: str,
        expected: int,
        events: Sequence[bytes],
        idempotency_key: str | None = None,
        fingerprint: str = "",
        cause: bytes = b"",
    ) -> Appended:
        events_key, idem_key, meta_key, _ = _keys(game_id)
        now = _now_ms()
        raw_status, raw_value = await self._append(
            keys=[events_key, idem_key, meta_key],
            args=[expected, idempotency_key or "", fingerprint, now, cause, *events],
        )
        status, value = _text(raw_status), _text(raw_value)
        if status == "duplicate":
            return _duplicate(value)
        if status == "ok":
            return Appended("ok", int(value), expected + 1, at_ms=now)
        if status == "conflict":
            return Appended("conflict", int(value))
        return Appended("missing", 0)

    async def idempotent(self, game_id: str, key: str) -> Appended | None:
        """The earlier append made with idempotency ``key``, if any."""
        raw = await self.redis.hget(_keys(game_id)[1], key)
        return None if raw is None else _duplicate(_text(raw))

    async def read(
        self, game_id: str, after: int = 0, count: int | None = None
    ) -> list[StoredEvent]:
        """Events with version > ``after``, oldest first (at most ``count``)."""
        events_key = _keys(game_id)[0]
        rows = await self.redis.xrange(events_key, min=f"(0-{after}", max="+", count=count)
        out: list[StoredEvent] = []
        for entry_id, fields in rows or []:
            assert fields is not None  # stream entries always carry their fields
            version = int(_text(entry_id).split("-", 1)[1])
            data = fields[b"e"]
            cause = fields.get(b"c")
            out.append(
                StoredEvent(
                    version,
                    bytes(data) if isinstance(data, bytes) else data.encode(),
                    int(fields.get(b"t", b"0")),
                    cause if isinstance(cause, bytes) else None,
                )
            )
        return out

    async def read_range(self, game_id: str, first: int, last: int) -> list[StoredEvent]:
        return [
            e for e in await self.read(game_id, first - 1, last - first + 1) if e.version <= last
        ]

    async def version(self, game_id: str) -> int:
        return int(await self.redis.xlen(_keys(game_id)[0]))

    async def meta(self, game_id: str) -> dict[str, str] | None:
        raw = await self.redis.hgetall(_keys(game_id)[2])
        if not raw:
            return None
        return {_text(k): _text(v) for k, v in raw.items()}

    async def set_meta(self, game_id: str, field: str, value: str) -> None:
        await self.redis.hset(_keys(game_id)[2], field, value)

    async def seed(self, game_id: str) -> bytes:
        raw = await self.redis.get(_keys(game_id)[3])
        if raw is None:
            raise KeyError(game_id)
        return bytes.fromhex(_text(raw))

    # ---- the per-API-key index of games (its own key: fine on a cluster) -------------

    async def index_game(self, owner: str, game_id: str, created_ms: int) -> None:
        await self.redis.zadd(f"owner:{{{owner}}}:games", {game_id: created_ms})
        # One score for all members: the sweep pages through them in id (lexical) order.
        await self.redis.zadd(ACTIVE_GAMES, {game_id: 0})

    async def retire_game(self, game_id: str) -> None:
        """The game is over and scored: the sweep no longer needs to look at it."""
        await self.redis.zrem(ACTIVE_GAMES, game_id)

    async def active_games(self, after: str, count: int) -> list[str]:
        """Ids of games not yet retired, in id order after ``after`` (for the sweep)."""
        rows = await self.redis.zrangebylex(
            ACTIVE_GAMES, f"({after}" if after else "-", "+", start=0, num=count
        )
        return [_text(r) for r in rows]

    async def owned_games(
        self, owner: str, before: tuple[int, str] | None, count: int
    ) -> list[tuple[str, int]]:
        """Games of ``owner``, newest first, strictly after the cursor ``before``."""
        key = f"owner:{{{owner}}}:games"
        high: float | str = "+inf" if before is None else before[0]
        rows: Any = await self.redis.zrevrangebyscore(
            key, high, "-inf", start=0, num=count + 64, withscores=True
        )
        out: list[tuple[str, int]] = []
        for member, score in rows:
            game_id, created = _text(member), int(score)
            # Ties on the creation time are ordered by id, so the cursor is exact.
            if before is not None and (created, game_id) >= before:
                continue
            out.append((game_id, created))
        out.sort(key=lambda row: (row[1], row[0]), reverse=True)
        return out[:count]

    async def ping(self) -> bool:
        return bool(await self.redis.ping())


def _duplicate(recorded: str) -> Appended:
    fingerprint, first, last = recorded.rsplit("|", 2)
    return Appended("duplicate", int(last), int(first), fingerprint)


def _now_ms() -> int:
    return int(time.time() * 1000)
