"""The scripts of a game's stream: create, append (an act), catch up, open from cold, where a
game is, keep a snapshot, a listed game's summary (service/store/game_streams.py)."""

from __future__ import annotations

from service.store.archive import HEADER_BYTES

CREATE = """
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
LIB = """
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
APPEND = (
    LIB
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
CATCH_UP = (
    LIB
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
OPENING = (
    LIB
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
STATE = """
local version = redis.call('XLEN', KEYS[1])
if version > 0 then return {'hot', version} end
local head = redis.call('GETRANGE', KEYS[2], 0, HEADER_BYTES - 1)
if head ~= '' then return {'archived', head} end
return {'hot', 0}
""".replace("HEADER_BYTES", str(HEADER_BYTES))

# A snapshot of a game's match at a version (service/play/snapshots.py): kept only while the
# stream holds that version (not once archived) and only over an older one of its format.
KEEP_SNAPSHOT = """
if redis.call('XLEN', KEYS[1]) < tonumber(ARGV[1]) then return 0 end
local known = redis.call('HMGET', KEYS[2], 'format', 'version')
if known[1] == ARGV[3] and tonumber(known[2] or '0') >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], 'format', ARGV[3], 'version', ARGV[1], 'tip', ARGV[2], 'state', ARGV[4])
return 1
"""

# A listed game's kept summary and version (service/views/summaries.py): a hot game's, or an
# archived one's from its archive's header, without decompressing it.
LISTED = """
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
