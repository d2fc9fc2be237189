--! include: keys outcome
-- Renewing one lease (spec/PROTOCOL.md, 5.5). Returns 1, or the outcome code of lib/outcome.lua;
-- a cancelled item is not renewed (-3).
local function renew_one(id, token, ttl_ms, inc, now)
  local holder = redis.call('GET', LEASE .. id)
  local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled')
  if holder ~= token or (job[1] and job[1] ~= inc) then
    return lost_outcome(id, inc, holder, job[1], job[2])
  end
  if job[2] then
    return -3
  end
  -- P:leased first: a key of another type there fails the call before the lease changes.
  if job[1] then
    redis.call('ZADD', LEASED, now + tonumber(ttl_ms), id)
  end
  redis.call('PEXPIRE', LEASE .. id, ttl_ms)
  return 1
end
