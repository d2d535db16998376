"""The store's Lua scripts: every write that must be atomic is one of them.

Each touches the keys of one hash slot (``bot/keys.py``): they run unchanged on a Redis
Cluster. ``bot/store.py`` calls them.
"""

from __future__ import annotations

# Keeps the chat's and the room's TTLs in step: the platform data lives as long as the room.
SYNC_TTL = """
local function sync_ttl(room, other)
  local ttl = redis.call('PTTL', room)
  if ttl > 0 then redis.call('PEXPIRE', other, ttl)
  elseif ttl == -1 then redis.call('PERSIST', other) end
end
"""

# KEYS: 1 update claims, 2 room, 3 platform data; ARGV[1] a claim ('' none)
# returns {seen (0/1), version, doc or false, platform data (flat)}: one command a load
LOAD = """
local seen = 0
if ARGV[1] ~= '' and redis.call('ZSCORE', KEYS[1], ARGV[1]) then seen = 1 end
local v = redis.call('HMGET', KEYS[2], 'v', 'doc')
if not v[2] then return {seen, 0, false, {}} end
return {seen, v[1], v[2], redis.call('HGETALL', KEYS[3])}
"""

# KEYS: 1 room, 2 update claims, 3 deadline index (the shard's), 4 platform data,
#       and when a match ended: 5 chat matches, 6 chat series, 7 chat players, 8 chat names,
#       9 person-stats to-do, 10 chat ratings
# ARGV: 1 expected version, 2 document, 3 claim ttl, 4 room ttl (0: keep for ever),
#       5 update claim ('' none), 6 now, 7 claims kept, 8 deadline ('' none), 9 room id,
#       10 this write's id, and with a match record: 11 the record, 12 counter ops (json),
#       13 matches kept, 14 to-do item, 15 the chat ratings' version as read, and with a
#       season: 16 its key's expiry (KEYS 11 the month's ratings)
# returns {1, new version} | {0, version, doc, write id} on a conflict | {-1, version, doc,
# write id} when the update was already claimed (the write id: of the write that made the
# room as it is, so a write sent twice knows itself)
CAS = """
local v = redis.call('HMGET', KEYS[1], 'v', 'doc', 'w')
if ARGV[5] ~= '' and redis.call('ZSCORE', KEYS[2], ARGV[5]) then
  return {-1, v[1] or '0', v[2] or '', v[3] or ''}
end
local version = tonumber(v[1] or '0')
if version ~= tonumber(ARGV[1]) then return {0, v[1] or '0', v[2] or '', v[3] or ''} end
if #KEYS > 4 and tonumber(redis.call('HGET', KEYS[10], '_v') or '0') ~= tonumber(ARGV[15]) then
  return {0, v[1] or '0', v[2] or '', ''}  -- the chat was rated meanwhile: rate again
end
if version == 0 then redis.call('DEL', KEYS[4]) end  -- a new room: nothing drawn of it yet
version = version + 1
redis.call('HSET', KEYS[1], 'v', version, 'doc', ARGV[2], 'w', ARGV[10])
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[4], ttl)
else
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[4])
end
if ARGV[8] == '' then
  redis.call('ZREM', KEYS[3], ARGV[9])
else
  redis.call('ZADD', KEYS[3], ARGV[8], ARGV[9])
end
if ARGV[5] ~= '' then
  -- the newest claims, for as long as a platform may redeliver: small and bounded
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[6]) - tonumber(ARGV[3]))
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[7]) + 1))
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
if #KEYS > 4 then
  redis.call('LPUSH', KEYS[5], ARGV[11])
  redis.call('LTRIM', KEYS[5], 0, tonumber(ARGV[13]) - 1)
  for _, op in ipairs(cjson.decode(ARGV[12])) do
    if op[1] == 'i' then
      redis.call('HINCRBY', KEYS[op[2]], op[3], op[4])
    else
      redis.call('HSET', KEYS[op[2]], op[3], op[4])
    end
  end
  redis.call('RPUSH', KEYS[9], ARGV[14])
  redis.call('HINCRBY', KEYS[10], '_v', 1)
  if #KEYS > 10 and redis.call('TTL', KEYS[11]) < 0 then
    redis.call('EXPIRE', KEYS[11], ARGV[16])  -- a season's key, from its first match
  end
end
return {1, version}
"""

# KEYS[1] a shard's deadline index; ARGV[1] room id, ARGV[2] now, ARGV[3] lease until.
# A worker claims a due entry by pushing it a short lease into the future: two workers never
# both get it, and a worker that dies mid-move leaves it to be claimed again a moment later.
CLAIM = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) > tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
"""

# KEYS[1] a shard's deadline index; ARGV[1] room id, ARGV[2] the lease this worker set,
# ARGV[3] new score ('' drops the entry). Only while the entry still holds this worker's
# lease: any commit since has written the room's own deadline, and that one must stay.
SETTLE = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""

# KEYS: 1 room, 2 platform data; ARGV: field, value ('\\0' deletes), field, value, ...
# Only for a room that exists; the platform data expires with the room.
SET_DATA = (
    SYNC_TTL
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] == '\\0' then
    redis.call('HDEL', KEYS[2], ARGV[i])
  else
    redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  end
end
sync_ttl(KEYS[1], KEYS[2])
return 1
"""
)

# KEYS: 1 paint lease, 2 platform data, 3 room; ARGV: owner, lease ms, what
# {-1}: another worker paints it now; {0}: nothing newer than drawn (or no room);
# {1, version, doc, platform data...}: this owner holds the lease, draw this room
BEGIN_PAINT = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return {-1} end
local v = redis.call('HMGET', KEYS[3], 'v', 'doc')
if not v[2] then return {0} end
local drawn = tonumber(redis.call('HGET', KEYS[2], 'draw:' .. ARGV[3]) or '0')
if tonumber(v[1]) <= drawn then return {0} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {1, v[1], v[2], redis.call('HGETALL', KEYS[2])}
"""

# KEYS: 1 paint lease, 2 platform data, 3 room; ARGV: owner, what, version drawn
# 1 when the room has moved past the version drawn (paint again), else 0
END_PAINT = (
    SYNC_TTL
    + """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
local v = tonumber(redis.call('HGET', KEYS[3], 'v') or '0')
if v == 0 then return 0 end
local field = 'draw:' .. ARGV[2]
local drawn = tonumber(redis.call('HGET', KEYS[2], field) or '0')
if tonumber(ARGV[3]) > drawn then
  redis.call('HSET', KEYS[2], field, ARGV[3])
  sync_ttl(KEYS[3], KEYS[2])
end
if v > tonumber(ARGV[3]) then return 1 end
return 0
"""
)

# KEYS: 1 write times (sorted set), 2 blocked-until; ARGV: now, limit, window, gap, reserve,
# a unique member. Returns '0' when the write is allowed now (and counted), else the seconds
# to wait (as text: Lua numbers come back as integers).
FLOOD_TAKE = """
local now = tonumber(ARGV[1])
local limit, window = tonumber(ARGV[2]), tonumber(ARGV[3])
local gap, reserve = tonumber(ARGV[4]), tonumber(ARGV[5])
local blocked = tonumber(redis.call('GET', KEYS[2]) or '0')
if blocked > now then return tostring(blocked - now) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
-- the same thing asked again (a redelivered update): counted once, allowed again
if redis.call('ZSCORE', KEYS[1], ARGV[6]) then return '0' end
local n = redis.call('ZCARD', KEYS[1])
local cap = math.max(1, limit - reserve)
local wait = 0
if n >= cap then
  -- the write that must leave the window before one more fits under the cap
  local e = redis.call('ZRANGE', KEYS[1], n - cap, n - cap, 'WITHSCORES')
  wait = tonumber(e[2]) + window - now
end
if gap > 0 and n > 0 then
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  local w = tonumber(last[2]) + gap - now
  if w > wait then wait = w end
end
if wait > 0 then return tostring(wait) end
redis.call('ZADD', KEYS[1], now, ARGV[6])
redis.call('EXPIRE', KEYS[1], math.ceil(window) + 1)
return '0'
"""

# KEYS: 1 blocked-until; ARGV: until, seconds (the key's life)
FLOOD_BLOCK = """
local blocked = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > blocked then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', math.ceil(tonumber(ARGV[2])) + 1)
end
return 1
"""

# KEYS: 1 the person's counters, 2 the marker of this match; ARGV: marker ttl, rated (0/1),
# the rating's move of mu, its new sigma, won (0/1), then field, increment pairs.
# Counts a match in a person's statistics once: counters, overall rating, streaks.
USER_STATS = """
if not redis.call('SET', KEYS[2], 1, 'NX', 'EX', ARGV[1]) then return 0 end
for i = 6, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ARGV[2] == '1' then
  if redis.call('HEXISTS', KEYS[1], 'mu') == 0 then redis.call('HSET', KEYS[1], 'mu', '25') end
  redis.call('HINCRBYFLOAT', KEYS[1], 'mu', ARGV[3])
  redis.call('HSET', KEYS[1], 'sigma', ARGV[4])
  if ARGV[5] == '1' then
    local streak = redis.call('HINCRBY', KEYS[1], 'streak', 1)
    if streak > tonumber(redis.call('HGET', KEYS[1], 'best_streak') or '0') then
      redis.call('HSET', KEYS[1], 'best_streak', streak)
    end
  else
    redis.call('HSET', KEYS[1], 'streak', 0)
  end
end
return 1
"""
