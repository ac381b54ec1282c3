"""Leases on one key, and leaving a stream's consumer group only when nothing is pending."""

from __future__ import annotations

# a taker can ask whether that holder still lives without another round trip).
TAKE_LEASE = """
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return holder
"""
# The lease let go, only by its holder.
DROP_LEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# A consumer leaves a stream's group (KEYS[1]; ARGV: group, consumer) only when it holds no
# pending entry: DELCONSUMER would make those unclaimable. Checked and done in one step, so
# an entry read meanwhile is never lost. -1: it holds some; else how many it had (0).
LEAVE_GROUP = """
if #redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 1, ARGV[2]) > 0 then return -1 end
return redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2])
"""
