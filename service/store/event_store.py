"""The event store on Redis (contract in DESIGN.md).

Layout (the whole of it, with every other key, is in `service/store/keys.py`) — every key
of a game shares the hash tag ``{<id>}``, so the store runs unchanged on Redis Cluster:

- ``game:{id}:events``  the stream, one entry per event, entry id ``0-<version>``; never
  trimmed, so ``XLEN`` is the version. Fields: ``e`` the event, ``t`` when (epoch ms); the
  first entry of an act's batch also ``c``, the act, and, for an act sent without an
  idempotency key, ``n``: the append call's nonce and the batch's last version.
- ``game:{id}:idem``    idempotency keys → ``fingerprint|first|last`` of the append they made.
- ``game:{id}:meta``    creation facts: game name, API key id, seat token hashes, seats.
- ``game:{id}:seed``    the secret shuffle seed (hex); only ever read by the server.

Appends run as one server-side script: check the idempotency key, check the expected
version, append, record the key, return the new version — so two writers can never both
win and a retried request never appends twice. The same round trip answers what the caller
needs next: a retry gets the first answer's events, a lost race the entries it missed, and a
caller whose cached state is ahead of the stream (the store went backwards) learns it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from service.store import unique_ids
from service.store.clients import AnyRedis
from service.store.keys import (
    ACTIVE_GAMES,
    game_keys,
    owner_games_key,
    seat_tokens_key,
    summary_key,
)
from service.store.outbox import Outbox
from service.store.scripts import Scripts

_CREATE = """
local nmeta = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then
  -- This very call, sent again after its connection broke before the reply came: the
  -- game's seed (random and secret) is the one it carries, so the game is its own.
  if redis.call('GET', KEYS[2]) == ARGV[2 + 2 * nmeta] then
    return {'ok', tostring(redis.call('XLEN', KEYS[3]))}
  end
  return {'exists', '0'}
end
local i = 2
for _ = 1, nmeta do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  i = i + 2
end
redis.call('SET', KEYS[2], ARGV[i])
local now = ARGV[i + 1]
-- The creation's outbox entry (service/store/outbox.py), with the events, in this step.
local game = string.match(KEYS[3], '{(.-)}')
redis.call('XADD', ARGV[i + 2], '*', 'g', game, 'f', 1, 'l', #ARGV - i - 2, 't', now, 's', '')
local version = 0
for j = i + 3, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[3], '0-' .. version, 'e', ARGV[j], 't', now)
end
return {'ok', tostring(version)}
"""

# Shared by the act and catch-up scripts: entries as {version, data, at_ms, cause|false},
# and the "tip" of a version: sha1 of its entry's time and data, so a cached snapshot can
# tell the stream it was folded from from another one of the same length (a store restored
# from an older copy and written to since).
_LIB = """
local function fields(f)
  local data, t, c = false, '0', false
  for k = 1, #f, 2 do
    if f[k] == 'e' then data = f[k + 1]
    elseif f[k] == 't' then t = f[k + 1]
    elseif f[k] == 'c' then c = f[k + 1] end
  end
  return data, t, c
end
local function entries(key, after, last)
  local out = {}
  local rows = redis.call('XRANGE', key, '(0-' .. after, last and ('0-' .. last) or '+')
  for _, row in ipairs(rows) do
    local data, t, c = fields(row[2])
    out[#out + 1] = {string.sub(row[1], 3), data, t, c}
  end
  return out
end
local function tip_ok(key, version, tip)
  if tip == '' or version == 0 then return true end
  local row = redis.call('XRANGE', key, '0-' .. version, '0-' .. version)[1]
  if not row then return false end
  local data, t = fields(row[2])
  return redis.sha1hex(t .. '|' .. (data or '')) == tip
end
-- The earlier answer made with idempotency key ``key`` (with its events), or nil.
local function replayed(events, idem, key)
  if key == '' then return nil end
  local prior = redis.call('HGET', idem, key)
  if not prior then return nil end
  local first, last = string.match(prior, '|(%d+)|(%d+)$')
  return {'duplicate', prior, entries(events, tonumber(first) - 1, tonumber(last))}
end
"""

# One round trip per act: the idempotency key (a retry gets the first answer, with its
# events), the expected version and the caller's tip (a lost race gets the entries it
# missed, so it can catch up and decide again without another read), then the append.
_APPEND = (
    _LIB
    + """
local key = ARGV[2]
local prior = replayed(KEYS[1], KEYS[2], key)
if prior then return prior end
local version = redis.call('XLEN', KEYS[1])
if version == 0 and redis.call('EXISTS', KEYS[3]) == 0 then return {'missing', '0'} end
local expected = tonumber(ARGV[1])
if version < expected or not tip_ok(KEYS[1], math.min(expected, version), ARGV[6]) then
  return {'behind', tostring(version)}
end
local nonce = ARGV[9]
if version ~= expected then
  -- This very call, sent again after its connection broke before the reply came: its
  -- batch is in the stream (its first entry carries the call's nonce), so it is answered
  -- as it was the first time, not as a lost race.
  if nonce ~= '' and version > expected then
    local row = redis.call('XRANGE', KEYS[1], '0-' .. (expected + 1), '0-' .. (expected + 1))[1]
    for k = 1, #row[2], 2 do
      if row[2][k] == 'n' then
        local mine, last = string.match(row[2][k + 1], '^(%x+)|(%d+)$')
        if mine == nonce then return {'ok', last} end
      end
    end
  end
  return {'conflict', tostring(version), entries(KEYS[1], expected, nil)}
end
local first = version + 1
local now = ARGV[4]
-- The change's outbox entry (service/store/outbox.py), in the same step as its events: the
-- game, the versions appended, when, and who acted. First, so that a refused write (a key
-- of another cluster node) leaves nothing written.
local game = string.match(KEYS[1], '{(.-)}')
local last = version + #ARGV - 11
redis.call('XADD', ARGV[10], '*', 'g', game, 'f', first, 'l', last, 't', now, 's', ARGV[11])
if #ARGV >= 12 then
  -- The first entry of the batch keeps the act that produced it (for verification) and, for
  -- an act without an idempotency key, the call's nonce and the batch's last version.
  local head = {'e', ARGV[12], 't', now}
  if ARGV[5] ~= '' then head[#head + 1] = 'c'; head[#head + 1] = ARGV[5] end
  if nonce ~= '' then
    head[#head + 1] = 'n'; head[#head + 1] = nonce .. '|' .. last
  end
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, unpack(head))
end
for j = 13, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, 'e', ARGV[j], 't', now)
end
if key ~= '' then
  redis.call('HSET', KEYS[2], key, ARGV[3] .. '|' .. first .. '|' .. version)
end
-- Seat tokens granted (or withdrawn: an empty hash) with the act, in the same step:
-- "seat=hash,..." into KEYS[4] as s<seat> -> hash and h<hash> -> seat
-- (service/play/access.py).
for seat, digest in string.gmatch(ARGV[7], '(%d+)=(%x*)') do
  local old = redis.call('HGET', KEYS[4], 's' .. seat)
  if old then redis.call('HDEL', KEYS[4], 'h' .. old) end
  if digest == '' then
    redis.call('HDEL', KEYS[4], 's' .. seat)
  else
    redis.call('HSET', KEYS[4], 's' .. seat, digest, 'h' .. digest, seat)
  end
end
-- The game list's summary of the game after the batch (service/views/summaries.py).
if ARGV[8] ~= '' then redis.call('SET', KEYS[5], ARGV[8]) end
return {'ok', tostring(version)}
"""
)

# A reader catching up: the entries after the version it holds, in one round trip; with an
# idempotency key, the earlier answer made with it, if any (a refused act re-checks it).
_CATCH_UP = (
    _LIB
    + """
local prior = replayed(KEYS[1], KEYS[2], ARGV[3])
if prior then return prior end
local version = redis.call('XLEN', KEYS[1])
local after = tonumber(ARGV[1])
if version < after or not tip_ok(KEYS[1], after, ARGV[2]) then
  return {'behind', tostring(version)}
end
return {'ok', tostring(version), entries(KEYS[1], after, nil)}
"""
)


@dataclass(frozen=True)
class StoredEvent:
    version: int
    data: bytes
    at_ms: int
    cause: bytes | None = None

    @property
    def tip(self) -> str:
        """What the scripts compare to tell this entry from another at the same version."""
        return tip_of(self.at_ms, self.data)


def tip_of(at_ms: int, data: bytes) -> str:
    return hashlib.sha1(b"%d|" % at_ms + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True)
class Batch:
    """The events of one act, to append at version ``expected``.

    ``tip``: the tip of the entry at ``expected`` that the caller folded ("" skips the
    check); ``cause``: the act, kept on the batch's first entry (for verification);
    ``key``/``fingerprint``: the idempotency key and what it was used for; ``grants``:
    seat -> token hash, stored with the events atomically ("" withdraws the seat's token:
    a claim's token exists exactly when its event does); ``summary``: the game list's
    record of the game after the batch, written with it."""

    game_id: str
    expected: int
    events: Sequence[bytes]
    at_ms: int
    cause: bytes = b""
    tip: str = ""
    key: str | None = None
    fingerprint: str = ""
    grants: Mapping[int, str] | None = None
    summary: bytes = b""
    seat: int | None = None  # who acted, for the outbox entry (None: nobody's seat)


@dataclass(frozen=True)
class Appended:
    """What an append did.

    - ``ok``: appended; ``first..version`` are the new events' versions.
    - ``duplicate``: the idempotency key was used before; ``first..version`` is that
      append's range and ``events`` its events.
    - ``conflict``: the stream is at ``version``, past ``expected``; ``events`` are the
      entries after ``expected`` (the caller catches up without another read).
    - ``behind``: the stream is shorter than ``expected``, or its entry at ``expected`` is
      not the one the caller folded (the store went backwards: restored, failed over).
    - ``missing``: no such game.
    """

    status: Literal["ok", "conflict", "duplicate", "behind", "missing"]
    version: int
    first: int = 0
    fingerprint: str = ""
    at_ms: int = 0
    events: tuple[StoredEvent, ...] = ()


@dataclass(frozen=True)
class Tail:
    """A catch-up read: ``status`` ``ok`` (``events`` after the caller's version),
    ``duplicate`` (the idempotency key's earlier answer) or ``behind`` (as above)."""

    status: Literal["ok", "duplicate", "behind"]
    version: int
    events: tuple[StoredEvent, ...] = ()
    first: int = 0
    fingerprint: str = ""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class EventStore:
    """Async access to game streams. Holds a client; connects lazily on first use."""

    def __init__(self, redis: AnyRedis) -> None:
        self.redis = redis
        # The scripts of every act and every view read: the lean call path.
        scripts = self._scripts = Scripts(redis)
        self._create = scripts.script(_CREATE)
        self._append = scripts.script(_APPEND)
        self._catch_up = scripts.script(_CATCH_UP)
        # Where each change's outbox entry goes (written by the scripts above).
        self.outbox = Outbox(redis)

    def close(self) -> None:
        """Drop the scripts' shared connection (the client is closed by its owner)."""
        self._scripts.close()

    async def create(
        self, game_id: str, meta: Mapping[str, str], seed: bytes, events: Sequence[bytes]
    ) -> bool:
        events_key, _, meta_key, seed_key = game_keys(game_id)
        args: list[Any] = [len(meta)]
        for name, value in meta.items():
            args += [name, value]
        args += [seed.hex(), _now_ms(), self.outbox.shard_of(game_id), *events]
        status, _ = await self._create(keys=[meta_key, seed_key, events_key], args=args)
        return _text(status) == "ok"

    async def append(self, batch: Batch) -> Appended:
        """Append ``batch`` at its expected version (one script, one round trip; see
        `Appended` for the answers)."""
        events_key, idem_key, meta_key, _ = game_keys(batch.game_id)
        granted = ",".join(f"{seat}={digest}" for seat, digest in (batch.grants or {}).items())
        # Without an idempotency key the call carries a nonce of its own, kept on the
        # batch's first entry: if the connection breaks after the script ran and the call
        # is sent again (service/store/scripts.py), the script knows its own batch and
        # answers ``ok``, not a lost race (which would decide the act again on a state that
        # already holds it: refused, or applied twice).
        nonce = "" if batch.key else unique_ids.nonce()
        game_id = batch.game_id
        reply = await self._append(
            keys=[events_key, idem_key, meta_key, seat_tokens_key(game_id), summary_key(game_id)],
            args=[
                batch.expected,
                batch.key or "",
                batch.fingerprint,
                batch.at_ms,
                batch.cause,
                batch.tip,
                granted,
                batch.summary,
                nonce,
                self.outbox.shard_of(game_id),
                "" if batch.seat is None else batch.seat,
                *batch.events,
            ],
        )
        status, value = _text(reply[0]), _text(reply[1])
        if status == "duplicate":
            return _duplicate(value, _entries(reply[2]))
        if status == "ok":
            return Appended("ok", int(value), batch.expected + 1, at_ms=batch.at_ms)
        if status == "conflict":
            return Appended("conflict", int(value), events=_entries(reply[2]))
        if status == "behind":
            return Appended("behind", int(value))
        return Appended("missing", 0)

    async def keep_summary(self, game_id: str, summary: bytes) -> None:
        """The game list's record of a game, written alone (a new game; a listing that
        found it behind); every append writes it with the events."""
        await self.redis.set(summary_key(game_id), summary)

    async def catch_up(
        self, game_id: str, after: int, tip: str = "", idempotency_key: str | None = None
    ) -> Tail:
        """The entries after ``after`` (and the key's earlier answer first, if any)."""
        events_key, idem_key, _, _ = game_keys(game_id)
        reply = await self._catch_up(
            keys=[events_key, idem_key], args=[after, tip, idempotency_key or ""]
        )
        status, value = _text(reply[0]), _text(reply[1])
        if status == "duplicate":
            prior = _duplicate(value, _entries(reply[2]))
            return Tail("duplicate", prior.version, prior.events, prior.first, prior.fingerprint)
        if status == "behind":
            return Tail("behind", int(value))
        return Tail("ok", int(value), _entries(reply[2]))

    async def opening(
        self, game_id: str
    ) -> tuple[dict[str, str] | None, bytes | None, list[StoredEvent]]:
        """A game from cold, in one round trip: its meta, its seed and its whole stream."""
        events_key, _, meta_key, seed_key = game_keys(game_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(meta_key)
        pipe.get(seed_key)
        pipe.xrange(events_key, min="-", max="+")
        raw_meta, raw_seed, rows = await pipe.execute()
        meta = {_text(k): _text(v) for k, v in raw_meta.items()} if raw_meta else None
        seed = None if raw_seed is None else bytes.fromhex(_text(raw_seed))
        return meta, seed, _rows(rows)

    async def read(
        self, game_id: str, after: int = 0, count: int | None = None
    ) -> list[StoredEvent]:
        """Events with version > ``after``, oldest first (at most ``count``)."""
        events_key = game_keys(game_id)[0]
        rows = await self.redis.xrange(events_key, min=f"(0-{after}", max="+", count=count)
        return _rows(rows)

    async def read_range(self, game_id: str, first: int, last: int) -> list[StoredEvent]:
        return [
            e for e in await self.read(game_id, first - 1, last - first + 1) if e.version <= last
        ]

    async def version(self, game_id: str) -> int:
        return int(await self.redis.xlen(game_keys(game_id)[0]))

    async def versions(self, game_ids: Sequence[str]) -> list[int]:
        """The version of each game, in one pipelined round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.xlen(game_keys(game_id)[0])
        return [int(v) for v in await pipe.execute()]

    async def meta(self, game_id: str) -> dict[str, str] | None:
        raw = await self.redis.hgetall(game_keys(game_id)[2])
        if not raw:
            return None
        return {_text(k): _text(v) for k, v in raw.items()}

    async def seed(self, game_id: str) -> bytes:
        raw = await self.redis.get(game_keys(game_id)[3])
        if raw is None:
            raise KeyError(game_id)
        return bytes.fromhex(_text(raw))

    # ---- the per-API-key index of games (its own key: fine on a cluster) -------------

    async def index_game(self, owner: str, game_id: str, created_ms: int) -> None:
        await self.redis.zadd(owner_games_key(owner), {game_id: created_ms})
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
        key = owner_games_key(owner)
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


def _duplicate(recorded: str, events: tuple[StoredEvent, ...] = ()) -> Appended:
    fingerprint, first, last = recorded.rsplit("|", 2)
    return Appended("duplicate", int(last), int(first), fingerprint, events=events)


def _bytes(value: Any) -> bytes:
    return bytes(value) if isinstance(value, bytes) else str(value).encode()


def _rows(rows: Any) -> list[StoredEvent]:
    """XRANGE rows (entry id, fields) as stored events."""
    out: list[StoredEvent] = []
    for entry_id, fields in rows or []:
        assert fields is not None  # stream entries always carry their fields
        version = int(_text(entry_id).split("-", 1)[1])
        cause = fields.get(b"c")
        out.append(
            StoredEvent(
                version,
                _bytes(fields[b"e"]),
                int(fields.get(b"t", b"0")),
                cause if isinstance(cause, bytes) else None,
            )
        )
    return out


def _entries(raw: Any) -> tuple[StoredEvent, ...]:
    """The scripts' entries: ``{version, data, at_ms, cause or false}`` each."""
    out = []
    for version, data, at_ms, cause in raw or []:
        out.append(
            StoredEvent(
                int(_text(version)),
                _bytes(data),
                int(_text(at_ms)),
                _bytes(cause) if cause not in (None, False, 0) else None,
            )
        )
    return tuple(out)


def _now_ms() -> int:
    return int(time.time() * 1000)
