"""The event store on Redis (its design, measured: docs/design-move-path.md).

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

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import msgspec

from service.store import archive as archives
from service.store import unique_ids
from service.store.archive import HEADER_BYTES, Archived, Header, RecentArchives
from service.store.buckets import drain_legacy
from service.store.clients import AnyRedis
from service.store.keys import (
    ARCHIVE_PATTERN,
    INDEX_BUCKETS,
    LEGACY_ACTIVE_GAMES,
    active_games_key,
    archive_key,
    bot_seal_key,
    bucket_of,
    caller_of_idempotency,
    deadlines_key,
    game_keys,
    game_of_key,
    owner_games_key,
    presence_key,
    seat_tokens_key,
    snapshot_key,
    summary_key,
)
from service.store.outbox import Outbox
from service.store.scripts import Scripts

# Idempotency records last this long after the last act that recorded one in the game.
IDEMPOTENCY_MS = 24 * 3600 * 1000
# An archive keeps the idempotency records of each caller's (each seat's, the creator's)
# last acts only: a client retries the request it sent last; an older act retried is
# decided again on the game that is over, and refused. The service's own records (bots,
# deadlines, scoring) go: nothing of theirs runs once a game is over.
ARCHIVED_IDEMPOTENCY_PER_CALLER = 4

_CREATE = """
local nmeta = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[3]) == 1
    or redis.call('EXISTS', KEYS[4]) == 1 then
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
-- ARGV[12]: how long the game's idempotency records last after this act (ms).
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
local last = version + #ARGV - 12
redis.call('XADD', ARGV[10], '*', 'g', game, 'f', first, 'l', last, 't', now, 's', ARGV[11])
if #ARGV >= 13 then
  -- The first entry of the batch keeps the act that produced it (for verification) and, for
  -- an act without an idempotency key, the call's nonce and the batch's last version.
  local head = {'e', ARGV[13], 't', now}
  if ARGV[5] ~= '' then head[#head + 1] = 'c'; head[#head + 1] = ARGV[5] end
  if nonce ~= '' then
    head[#head + 1] = 'n'; head[#head + 1] = nonce .. '|' .. last
  end
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, unpack(head))
end
for j = 14, #ARGV do
  version = version + 1
  redis.call('XADD', KEYS[1], '0-' .. version, 'e', ARGV[j], 't', now)
end
if key ~= '' then
  redis.call('HSET', KEYS[2], key, ARGV[3] .. '|' .. first .. '|' .. version)
  redis.call('PEXPIRE', KEYS[2], ARGV[12])
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
if version == 0 then  -- archived? (service/store/archive.py; answered from it in Python)
  local head = redis.call('GETRANGE', KEYS[3], 0, HEADER_BYTES - 1)
  if head ~= '' then return {'archived', head} end
end
local after = tonumber(ARGV[1])
if version < after or not tip_ok(KEYS[1], after, ARGV[2]) then
  return {'behind', tostring(version)}
end
return {'ok', tostring(version), entries(KEYS[1], after, nil)}
"""
).replace("HEADER_BYTES", str(HEADER_BYTES))

# A game from cold, in one round trip: its meta, its seed, the snapshot of its match if one
# in this code's format (ARGV[1]) is at an entry of this stream, and the entries after it;
# or the whole archive of an archived game.
_OPENING = (
    _LIB
    + """
local meta = redis.call('HGETALL', KEYS[1])
if #meta == 0 then
  local value = redis.call('GET', KEYS[4])
  if value then return {'archived', value} end
  return {'missing'}
end
local after, state = 0, false
if ARGV[1] ~= '' then
  local snap = redis.call('HMGET', KEYS[5], 'format', 'version', 'tip', 'state')
  local at = tonumber(snap[2])
  if snap[1] == ARGV[1] and at and at <= redis.call('XLEN', KEYS[3])
      and tip_ok(KEYS[3], at, snap[3]) then
    after, state = at, snap[4]
  end
end
local seed = redis.call('GET', KEYS[2]) or false
-- From the snapshot's own entry on (its time and tip are the game's if nothing followed),
-- as XRANGE answers them: reshaping thousands of entries in Lua would cost more.
local from = after > 0 and ('0-' .. after) or '-'
return {'ok', meta, seed, redis.call('XRANGE', KEYS[3], from, '+'), after, state}
"""
)

# Where a game is: hot (with its version) or archived (with its archive's header).
_STATE = """
local version = redis.call('XLEN', KEYS[1])
if version > 0 then return {'hot', version} end
local head = redis.call('GETRANGE', KEYS[2], 0, HEADER_BYTES - 1)
if head ~= '' then return {'archived', head} end
return {'hot', 0}
""".replace("HEADER_BYTES", str(HEADER_BYTES))

# Archive a game: its archive written and every hot key deleted in one step, only if the
# game is still as the archive was made from it (its version and tip, its seat tokens).
# KEYS: events, idem, meta, seed, seat tokens, summary, deadlines, snapshot, archive,
# presence, then the bots' kept sealed choices; ARGV: version, tip, seat-token fields, the
# archive, ms.
_ARCHIVE = (
    _LIB
    + """
local version = redis.call('XLEN', KEYS[1])
if version == 0 then
  if redis.call('EXISTS', KEYS[9]) == 1 then return 'archived' end
  return 'missing'
end
if version ~= tonumber(ARGV[1]) or not tip_ok(KEYS[1], version, ARGV[2])
    or redis.call('HLEN', KEYS[5]) ~= tonumber(ARGV[3]) then
  return 'changed'
end
if tonumber(ARGV[5]) > 0 then
  redis.call('SET', KEYS[9], ARGV[4], 'PX', ARGV[5])
else
  redis.call('SET', KEYS[9], ARGV[4])
end
for i = 1, #KEYS do
  if i ~= 9 then redis.call('UNLINK', KEYS[i]) end
end
return 'ok'
"""
)

# Restore an archived game (before it changes again: a rematch): its hot keys written back
# and the archive deleted in one step, only if the archive is the one the arguments were
# made from (ARGV[1]: its header). KEYS: events, idem, meta, seed, seat tokens, summary,
# archive. ARGV: header, idempotency expiry (epoch ms, 0: none), the counts of meta,
# idempotency and seat-token pairs, the seed, the summary, then those pairs, then each
# entry as version, number of field values, field values.
_RESTORE = """
if redis.call('XLEN', KEYS[1]) > 0 then return 'hot' end
local head = redis.call('GETRANGE', KEYS[7], 0, #ARGV[1] - 1)
if head == '' then return 'missing' end
if head ~= ARGV[1] then return 'changed' end
local i = 8
for n, key in ipairs({KEYS[3], KEYS[2], KEYS[5]}) do
  for _ = 1, tonumber(ARGV[2 + n]) do
    redis.call('HSET', key, ARGV[i], ARGV[i + 1])
    i = i + 2
  end
end
if ARGV[2] ~= '0' then redis.call('PEXPIREAT', KEYS[2], ARGV[2]) end
redis.call('SET', KEYS[4], ARGV[6])
if ARGV[7] ~= '' then redis.call('SET', KEYS[6], ARGV[7]) end
while i <= #ARGV do
  local n = tonumber(ARGV[i + 1])
  redis.call('XADD', KEYS[1], '0-' .. ARGV[i], unpack(ARGV, i + 2, i + 1 + n))
  i = i + 2 + n
end
redis.call('DEL', KEYS[7])
return 'ok'
"""

# A snapshot of a game's match at a version (service/play/snapshots.py): kept only while the
# stream holds that version (not once archived) and only over an older one of its format.
_KEEP_SNAPSHOT = """
if redis.call('XLEN', KEYS[1]) < tonumber(ARGV[1]) then return 0 end
local known = redis.call('HMGET', KEYS[2], 'format', 'version')
if known[1] == ARGV[3] and tonumber(known[2] or '0') >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], 'format', ARGV[3], 'version', ARGV[1], 'tip', ARGV[2], 'state', ARGV[4])
return 1
"""

# An archive replaced by another of the same game (a seat token granted into it), unless it
# changed since it was read.
_REPLACE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""

# An exported archive deleted, unless it changed since it was read (restored, archived again).
_DROP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# A listed game's kept summary and version (service/views/summaries.py): a hot game's, or an
# archived one's from its archive's header, without decompressing it.
_LISTED = """
local version = redis.call('XLEN', KEYS[2])
if version > 0 then return {redis.call('GET', KEYS[1]) or false, version, 0} end
local head = redis.call('GETRANGE', KEYS[3], 0, HEADER_BYTES - 1)
local prefix = string.match(head, '^sa1|%d+|%x*|%d+|%d+|')
if not prefix then return {redis.call('GET', KEYS[1]) or false, 0, 0} end
local at, length = string.match(prefix, '^sa1|(%d+)|%x*|%d+|(%d+)|')
local summary = false
if tonumber(length) > 0 then
  summary = redis.call('GETRANGE', KEYS[3], #prefix, #prefix + tonumber(length) - 1)
end
return {summary, tonumber(at), 1}
""".replace("HEADER_BYTES", str(HEADER_BYTES))

# An archive brought back (`stakeout archive import`): written unless the game is hot here,
# or its archive here is as new or newer (its version, then when it was made: an export of
# yesterday must not roll back a game archived again since, say after a rematch). ARGV: the
# archive, its TTL (ms, 0: none), its version and its time.
_IMPORT = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then
  return 'hot'
end
local head = redis.call('GETRANGE', KEYS[3], 0, HEADER_BYTES - 1)
local version, made = string.match(head, '^sa1|(%d+)|%x*|(%d+)|')
if version then
  local mine, theirs = tonumber(version), tonumber(ARGV[3])
  if mine == theirs and made == ARGV[4] then return 'same' end
  if mine > theirs or (mine == theirs and tonumber(made) > tonumber(ARGV[4])) then
    return 'newer'
  end
end
if tonumber(ARGV[2]) > 0 then
  redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
else
  redis.call('SET', KEYS[3], ARGV[1])
end
return 'ok'
""".replace("HEADER_BYTES", str(HEADER_BYTES))


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
    - ``archived``: the game is archived (`restore` it first); ``version`` is its version.
    """

    status: Literal["ok", "conflict", "duplicate", "behind", "missing", "archived"]
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


# The (seat, step) of the bots' kept sealed choices of a game, from its entries.
SealsOf = Callable[[Sequence["StoredEvent"]], Sequence[tuple[int, str]]]


@dataclass(frozen=True)
class Opening:
    """A game from cold: its meta (None: no such game), its seed, and its entries: all of
    them, or with a snapshot (``snapshot``: the match folded to ``snapshot_version``) the
    entries from that version on (its own entry first). ``archived``: read from its
    archive."""

    meta: dict[str, str] | None
    seed: bytes | None
    events: list[StoredEvent]
    snapshot_version: int = 0
    snapshot: bytes | None = None
    archived: bool = False


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class EventStore:
    """Async access to game streams. Holds a client; connects lazily on first use."""

    def __init__(
        self, redis: AnyRedis, idempotency_ms: int = IDEMPOTENCY_MS, archive_ttl_ms: int = 0
    ) -> None:
        """``idempotency_ms``: how long a game's idempotency records last after its last
        act that recorded one; ``archive_ttl_ms``: how long an archive is kept (0:
        forever)."""
        self.redis = redis
        self.idempotency_ms = idempotency_ms
        self.archive_ttl_ms = archive_ttl_ms
        # The scripts of every act and every view read: the lean call path.
        scripts = self._scripts = Scripts(redis)
        self._create = scripts.script(_CREATE)
        self._append = scripts.script(_APPEND)
        self._catch_up = scripts.script(_CATCH_UP)
        # Where each change's outbox entry goes (written by the scripts above).
        self.outbox = Outbox(redis)
        self._opening = scripts.script(_OPENING)
        self._state = scripts.script(_STATE)
        self._archive = scripts.script(_ARCHIVE)
        self._restore = scripts.script(_RESTORE)
        self._import = scripts.script(_IMPORT)
        self._listed = scripts.script(_LISTED)
        self._drop = scripts.script(_DROP)
        self._replace = scripts.script(_REPLACE)
        self._keep_snapshot = scripts.script(_KEEP_SNAPSHOT)
        self.recent = RecentArchives()

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
        keys = [meta_key, seed_key, events_key, archive_key(game_id)]
        status, _ = await self._create(keys=keys, args=args)
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
                self.idempotency_ms,
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
        where, version, _ = await self.state(game_id)
        return Appended("archived", version) if where == "archived" else Appended("missing", 0)

    async def keep_summary(self, game_id: str, summary: bytes) -> None:
        """The game list's record of a game, written alone (a new game; a listing that
        found it behind); every append writes it with the events."""
        await self.redis.set(summary_key(game_id), summary)

    async def catch_up(
        self, game_id: str, after: int, tip: str = "", idempotency_key: str | None = None
    ) -> Tail:
        """The entries after ``after`` (and the key's earlier answer first, if any); for
        an archived game, from its archive."""
        events_key, idem_key, _, _ = game_keys(game_id)
        for _ in range(3):
            reply = await self._catch_up(
                keys=[events_key, idem_key, archive_key(game_id)],
                args=[after, tip, idempotency_key or ""],
            )
            status, value = _text(reply[0]), _bytes(reply[1])
            if status == "duplicate":
                prior = _duplicate(value.decode(), _entries(reply[2]))
                events, first = prior.events, prior.first
                return Tail("duplicate", prior.version, events, first, prior.fingerprint)
            if status == "behind":
                return Tail("behind", int(value))
            if status == "ok":
                return Tail("ok", int(value), _entries(reply[2]))
            header = archives.header_of(value)
            if header is None:
                raise ValueError(f"game {game_id}: an archive of an unknown format")
            if idempotency_key is None and after == header.version and tip in ("", header.tip):
                return Tail("ok", header.version)  # nothing new: no need to read it
            archived = await self.archived(game_id, header)
            if archived is not None:
                return _archived_tail(archived, after, tip, idempotency_key)
        raise ValueError(f"game {game_id} keeps being archived and restored")

    async def opening(self, game_id: str, snapshot_format: str = "") -> Opening:
        """A game from cold, in one round trip: its meta, its seed and its stream (after
        its snapshot, if it has one in ``snapshot_format``), or its archive."""
        events_key, _, meta_key, seed_key = game_keys(game_id)
        reply = await self._opening(
            keys=[meta_key, seed_key, events_key, archive_key(game_id), snapshot_key(game_id)],
            args=[snapshot_format],
        )
        status = _text(reply[0])
        if status == "missing":
            return Opening(None, None, [])
        if status == "archived":
            archived = archives.decode(_bytes(reply[1]))
            self.recent.keep(game_id, archived)
            record = archived.record
            meta = {name: value.decode() for name, value in record.meta.items()}
            secret = bytes.fromhex(record.seed.decode())
            kept = record.snapshot
            if kept is not None and snapshot_format and kept.format == snapshot_format:
                # As from a hot game's snapshot: the entries from its own on.
                events = _archived_events(archived, kept.version - 1)
                return Opening(meta, secret, events, kept.version, kept.state, archived=True)
            return Opening(meta, secret, _archived_events(archived, 0), archived=True)
        raw_meta = reply[1]
        meta = {_text(raw_meta[i]): _text(raw_meta[i + 1]) for i in range(0, len(raw_meta), 2)}
        seed = bytes.fromhex(_text(reply[2])) if reply[2] else None
        state = _bytes(reply[5]) if reply[5] else None
        return Opening(meta, seed, _raw_rows(reply[3]), int(reply[4]), state)

    async def keep_snapshot(
        self, game_id: str, version: int, tip: str, snapshot_format: str, state: bytes
    ) -> bool:
        """Keep ``state`` (the match folded to ``version``, whose entry is ``tip``) as the
        game's snapshot, unless a newer one of that format is kept or the game is not hot."""
        keys = [game_keys(game_id)[0], snapshot_key(game_id)]
        args = [version, tip, snapshot_format, state]
        return bool(await self._keep_snapshot(keys=keys, args=args))

    async def state(self, game_id: str) -> tuple[str, int, Header | None]:
        """Where a game is: ``hot`` (version 0: no such game) or ``archived``, its version,
        and its archive's header."""
        reply = await self._state(keys=[game_keys(game_id)[0], archive_key(game_id)], args=[])
        if _text(reply[0]) == "hot":
            return "hot", int(reply[1]), None
        header = archives.header_of(_bytes(reply[1]))
        if header is None:
            raise ValueError(f"game {game_id}: an archive of an unknown format")
        return "archived", header.version, header

    async def archived(self, game_id: str, header: Header | None = None) -> Archived | None:
        """The game's archive, decoded (None if it has none); ``header``: the one just
        read, so that an archive decoded lately is not read again."""
        if header is not None:
            known = self.recent.get(game_id, header)
            if known is not None:
                return known
        value = await self.redis.get(archive_key(game_id))
        if value is None:
            return None
        return self.recent.keep(game_id, archives.decode(_bytes(value)))

    async def read(
        self, game_id: str, after: int = 0, count: int | None = None
    ) -> list[StoredEvent]:
        """Events with version > ``after``, oldest first (at most ``count``); for an
        archived game, from its archive."""
        events_key = game_keys(game_id)[0]
        for _ in range(3):
            rows = await self.redis.xrange(events_key, min=f"(0-{after}", max="+", count=count)
            if rows:
                return _rows(rows)
            where, version, header = await self.state(game_id)
            if where == "hot" and version <= after:
                return []
            archived = None if header is None else await self.archived(game_id, header)
            if archived is not None:
                events = _archived_events(archived, after)
                return events if count is None else events[:count]
        raise ValueError(f"game {game_id} keeps being archived and restored")

    async def read_range(self, game_id: str, first: int, last: int) -> list[StoredEvent]:
        return [
            e for e in await self.read(game_id, first - 1, last - first + 1) if e.version <= last
        ]

    async def version(self, game_id: str) -> int:
        """The game's version, hot or archived (0: no such game)."""
        return (await self.state(game_id))[1]

    async def versions(self, game_ids: Sequence[str]) -> list[int]:
        """The version of each game (the calls leave together: one round trip)."""
        return list(await asyncio.gather(*(self.version(game_id) for game_id in game_ids)))

    async def meta(self, game_id: str) -> dict[str, str] | None:
        raw = await self.redis.hgetall(game_keys(game_id)[2])
        if raw:
            return {_text(k): _text(v) for k, v in raw.items()}
        archived = await self.archived(game_id)
        if archived is None:
            return None
        return {name: value.decode() for name, value in archived.record.meta.items()}

    async def seed(self, game_id: str) -> bytes:
        raw = await self.redis.get(game_keys(game_id)[3])
        if raw is None:
            archived = await self.archived(game_id)
            if archived is None:
                raise KeyError(game_id)
            raw = archived.record.seed
        return bytes.fromhex(_text(raw))

    async def listed(self, game_ids: Sequence[str]) -> list[tuple[bytes | None, int, bool]]:
        """Each game's kept summary (as stored), its version and whether it is archived
        (the calls leave together: one round trip)."""

        async def one(game_id: str) -> tuple[bytes | None, int, bool]:
            keys = [summary_key(game_id), game_keys(game_id)[0], archive_key(game_id)]
            raw, version, archived = await self._listed(keys=keys, args=[])
            return (_bytes(raw) if raw else None), int(version), bool(archived)

        return list(await asyncio.gather(*(one(game_id) for game_id in game_ids)))

    async def archived_seat(self, game_id: str, digest: str) -> int | None:
        """The seat of a token granted after creation (its hash) in an archived game."""
        where, _, header = await self.state(game_id)
        archived = None if where == "hot" else await self.archived(game_id, header)
        if archived is None:
            return None
        seat = archived.record.seat_tokens.get("h" + digest)
        return None if seat is None else int(seat)

    # ---- archives (service/store/archive.py) --------------------------------------

    async def archive(
        self,
        game_id: str,
        version: int,
        tip: str,
        seals: SealsOf | None = None,
        snapshot: tuple[str, bytes] | None = None,
    ) -> Literal["ok", "archived", "changed", "missing"]:
        """Archive the game as it is at ``version`` (its entry there: ``tip``): its archive
        written and its hot keys deleted in one script, which does nothing if the game
        changed since (``changed``). ``seals``: the bots' kept sealed choices, from the
        game's entries, deleted with it; ``snapshot``: the match folded at ``version``
        (its format, its state), kept in the archive. ``archived``: it was already."""
        events_key, idem_key, meta_key, seed_key = game_keys(game_id)
        tokens_key, kept_key = seat_tokens_key(game_id), summary_key(game_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.xrange(events_key, min="-", max="+")
        pipe.hgetall(idem_key)
        pipe.pttl(idem_key)
        pipe.hgetall(meta_key)
        pipe.get(seed_key)
        pipe.hgetall(tokens_key)
        pipe.get(kept_key)
        rows, idem, idem_ttl, meta, seed, tokens, summary = await pipe.execute()
        if not rows:
            return "archived" if await self.redis.exists(archive_key(game_id)) else "missing"
        entries = [
            archives.Entry(int(_text(entry_id).split("-", 1)[1]), _flat(fields))
            for entry_id, fields in rows
        ]
        stored = _rows(rows)
        last = stored[-1]
        if len(entries) != version or last.version != version or last.tip != tip:
            return "changed"
        now = _now_ms()
        kept = None if snapshot is None else archives.Snapshot(snapshot[0], version, snapshot[1])
        record = archives.Record(
            game_id=game_id,
            archived_ms=now,
            meta=_mapping(meta),
            seed=_bytes(seed),
            entries=entries,
            idem=_last_per_caller(_mapping(idem), ARCHIVED_IDEMPOTENCY_PER_CALLER),
            idem_expires_ms=now + int(idem_ttl) if int(idem_ttl) > 0 else 0,
            seat_tokens=_mapping(tokens),
            snapshot=kept,
        )
        value = archives.encode(record, version, tip, _bytes(summary) if summary else None)
        keys = [
            events_key,
            idem_key,
            meta_key,
            seed_key,
            tokens_key,
            kept_key,
            deadlines_key(game_id),
            snapshot_key(game_id),
            archive_key(game_id),
            presence_key(game_id),  # who was at the table: nothing once the game is over
            *(bot_seal_key(game_id, seat, step) for seat, step in (seals or _none)(stored)),
        ]
        args = [version, tip, len(tokens), value, self.archive_ttl_ms]
        status = _text(await self._archive(keys=keys, args=args))
        if status == "ok":
            self.recent.keep(game_id, archives.decode(value))
        return status  # type: ignore[return-value]

    async def restore(self, game_id: str) -> Literal["ok", "hot", "missing", "changed"]:
        """Make an archived game hot again (its keys written back, its archive deleted, in
        one script); ``hot``: it was not archived; ``changed``: its archive changed under
        this call (another process restored it, or it was archived again): look again."""
        value = await self.redis.get(archive_key(game_id))
        if value is None:
            return "hot" if await self.version(game_id) else "missing"
        raw = _bytes(value)
        archived = archives.decode(raw)
        header = archives.header_of(raw)
        assert header is not None  # decode checked it
        record = archived.record
        lapsed = record.idem_expires_ms and _now_ms() >= record.idem_expires_ms
        idem = {} if lapsed else record.idem
        args: list[Any] = [
            raw[: header.length],
            record.idem_expires_ms if idem else 0,
            len(record.meta),
            len(idem),
            len(record.seat_tokens),
            record.seed,
            archived.summary or b"",
        ]
        for pairs in (record.meta, idem, record.seat_tokens):
            for name, data in pairs.items():
                args += [name, data]
        for entry in record.entries:
            args += [entry.version, len(entry.fields), *entry.fields]
        events_key, idem_key, meta_key, seed_key = game_keys(game_id)
        keys = [
            events_key,
            idem_key,
            meta_key,
            seed_key,
            seat_tokens_key(game_id),
            summary_key(game_id),
            archive_key(game_id),
        ]
        return _text(await self._restore(keys=keys, args=args))  # type: ignore[return-value]

    async def grant_archived(
        self, game_id: str, seat: int, digest: str
    ) -> Literal["ok", "hot", "missing"]:
        """Grant ``seat`` the token of hash ``digest`` in the game's archive (a rematch's
        seat asked for after the rematch was archived): the archive is rewritten with it,
        under a new time, so that no process reads the old one from its cache."""
        for _ in range(3):
            value = await self.archive_value(game_id)
            if value is None:
                return "hot" if await self.version(game_id) else "missing"
            archived = archives.decode(value)
            record = archived.record
            tokens = dict(record.seat_tokens)
            old = tokens.pop(f"s{seat}", None)
            if old is not None:
                tokens.pop("h" + old.decode(), None)
            tokens.update({f"s{seat}": digest.encode(), "h" + digest: str(seat).encode()})
            made = max(_now_ms(), record.archived_ms + 1)
            changed = msgspec.structs.replace(record, seat_tokens=tokens, archived_ms=made)
            new = archives.encode(changed, archived.version, archived.tip, archived.summary)
            if await self._replace(keys=[archive_key(game_id)], args=[value, new]):
                self.recent.keep(game_id, archives.decode(new))
                return "ok"
        raise ValueError(f"game {game_id}: its archive keeps changing")

    async def import_archive(
        self, game_id: str, value: bytes
    ) -> Literal["ok", "hot", "newer", "same", "foreign"]:
        """Store an exported archive, unless the game is hot here (``hot``), its archive
        here is newer (``newer``) or this very one (``same``), or the record inside is of
        another game than ``game_id`` (``foreign``); nothing is written but with ``ok``."""
        header = archives.header_of(value)
        if header is None:
            raise ValueError(f"game {game_id}: not an archive of a format this code knows")
        record = archives.decode(value).record
        if record.game_id != game_id:
            return "foreign"
        events_key, _, meta_key, _ = game_keys(game_id)
        keys = [events_key, meta_key, archive_key(game_id)]
        args = [value, self.archive_ttl_ms, header.version, header.archived_ms]
        status = _text(await self._import(keys=keys, args=args))
        if status == "ok":  # back in its API key's list (a listing forgets a missing game)
            meta = msgspec.json.decode(record.meta["meta"])
            await self.redis.zadd(owner_games_key(meta["owner"]), {game_id: meta["created_ms"]})
        return status  # type: ignore[return-value]

    async def archived_games(self) -> AsyncIterator[str]:
        """The ids of every archived game (a SCAN of every master; for an export)."""
        async for key in self.redis.scan_iter(match=ARCHIVE_PATTERN, count=1000):
            yield game_of_key(key)

    async def drop_archive(self, game_id: str, value: bytes) -> bool:
        """Delete the game's archive if it is still ``value`` (after an export)."""
        return bool(await self._drop(keys=[archive_key(game_id)], args=[value]))

    async def archive_value(self, game_id: str) -> bytes | None:
        """The stored archive of a game, as stored (for an export)."""
        value = await self.redis.get(archive_key(game_id))
        return None if value is None else _bytes(value)

    # ---- the per-API-key index of games (its own key: fine on a cluster) -------------

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
            out += [_text(r) for r in rows]
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


def _last_per_caller(idem: dict[str, bytes], keep: int) -> dict[str, bytes]:
    """The records of each caller's last ``keep`` acts (by the version they appended)."""
    by_caller: dict[str, list[tuple[int, str]]] = {}
    for field, value in idem.items():
        caller = caller_of_idempotency(field)
        if caller is not None:
            last = int(value.rsplit(b"|", 1)[1])
            by_caller.setdefault(caller, []).append((last, field))
    kept = {field for rows in by_caller.values() for _, field in sorted(rows)[-keep:]}
    return {field: value for field, value in idem.items() if field in kept}


def _raw_rows(rows: Any) -> list[StoredEvent]:
    """XRANGE's rows as a script returns them: ``[entry id, [field, value, ...]]``."""
    out: list[StoredEvent] = []
    for entry_id, flat in rows or []:
        data, at_ms, cause = b"", 0, None
        for i in range(0, len(flat), 2):
            name = flat[i]
            if name == b"e":
                data = _bytes(flat[i + 1])
            elif name == b"t":
                at_ms = int(flat[i + 1])
            elif name == b"c":
                cause = _bytes(flat[i + 1])
        out.append(StoredEvent(int(_text(entry_id).split("-", 1)[1]), data, at_ms, cause))
    return out


def _none(entries: Sequence[StoredEvent]) -> Sequence[tuple[int, str]]:
    return ()


def _flat(fields: Any) -> list[bytes]:
    """A stream entry's fields and values, in order, as one list."""
    out: list[bytes] = []
    for name, value in fields.items():
        out += [_bytes(name), _bytes(value)]
    return out


def _mapping(raw: Any) -> dict[str, bytes]:
    return {_text(k): _bytes(v) for k, v in (raw or {}).items()}


def _archived_events(archived: Archived, after: int) -> list[StoredEvent]:
    """An archive's entries with version > ``after``, as stored events."""
    out = []
    for entry in archived.record.entries:
        if entry.version <= after:
            continue
        fields = dict(zip(entry.fields[::2], entry.fields[1::2], strict=True))
        at_ms = int(fields.get(b"t", b"0"))
        out.append(StoredEvent(entry.version, fields[b"e"], at_ms, fields.get(b"c")))
    return out


def _archived_tail(archived: Archived, after: int, tip: str, key: str | None) -> Tail:
    """What the catch-up script answers, from an archive: the key's earlier answer (while
    the idempotency records last), else the entries after ``after``, or ``behind``."""
    if key:
        prior = archived.idempotency(key, _now_ms())
        if prior is not None:
            fingerprint, first, last = prior.decode().rsplit("|", 2)
            events = _archived_events(archived, int(first) - 1)[: int(last) - int(first) + 1]
            return Tail("duplicate", int(last), tuple(events), int(first), fingerprint)
    if after > archived.version:
        return Tail("behind", archived.version)
    events = _archived_events(archived, 0)
    if tip and after and events[after - 1].tip != tip:
        return Tail("behind", archived.version)
    return Tail("ok", archived.version, tuple(events[after:]))


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
