--! include: keys time outcome
-- renew. ARGV: id, token, ttl_ms, incarnation.
-- 1 renewed, else the outcome code of lib/outcome.lua; a cancelled item is not renewed (-3).
local id, token = ARGV[1], ARGV[2]
local holder = redis.call('GET', LEASE .. id)
local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled')
if holder ~= token then
  return lost_outcome(id, ARGV[4], holder, job[1], job[2])
end
if job[2] then
  return -3
end
local expires = now_ms() + tonumber(ARGV[3])
redis.call('PEXPIRE', LEASE .. id, ARGV[3])
if job[1] then
  redis.call('ZADD', LEASED, expires, id)
  redis.call('HSET', JOB .. id, 'lease_expires', expires)
end
return 1
