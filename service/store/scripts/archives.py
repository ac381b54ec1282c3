"""The scripts of a game that is over: archive, restore, replace, drop and import its archive
(service/store/game_archives.py)."""

from __future__ import annotations

from service.store.archive import HEADER_BYTES
from service.store.scripts.streams import LIB

# Archive a game: its archive written and every hot key deleted in one step, only if the
# game is still as the archive was made from it (its version and tip, its seat tokens).
# KEYS: events, idem, meta, seed, seat tokens, summary, deadlines, snapshot, archive,
# presence, then the bots' kept sealed choices; ARGV: version, tip, seat-token fields, the
# archive, ms.
ARCHIVE = (
    LIB
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
RESTORE = """
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

# An archive replaced by another of the same game (a seat token granted into it), unless it
# changed since it was read.
REPLACE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""

# An exported archive deleted, unless it changed since it was read (restored, archived again).
DROP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# An archive brought back (`stakeout archive import`): written unless the game is hot here,
# or its archive here is as new or newer (its version, then when it was made: an export of
# yesterday must not roll back a game archived again since, say after a rematch). ARGV: the
# archive, its TTL (ms, 0: none), its version and its time.
IMPORT = """
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
