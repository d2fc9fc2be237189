--! include: keys time config rate waiting jobs outcome
-- release. ARGV: id, token, incarnation, delay_ms.
-- Hands a leased item back without counting a failure: the attempt it used is given back.
-- Returns 1, or the outcome code of lib/outcome.lua.
refuse_when_out_of_memory()
local id, token, inc = ARGV[1], ARGV[2], ARGV[3]
local holder = redis.call('GET', LEASE .. id)
local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled', 'priority')
if holder ~= token or job[1] ~= inc then
  return lost_outcome(id, inc, holder, job[1], job[2])
end
if job[2] then
  drop_cancelled(id)
  return -3
end
redis.call('ZREM', LEASED, id)
redis.call('DEL', LEASE .. id)
redis.call('HINCRBY', JOB .. id, 'attempts', -1)
local delay = tonumber(ARGV[4])
if delay > 0 then
  local due = now_ms() + delay
  park(id)
  redis.call('HSET', JOB .. id, 'state', 'delayed', 'due', due)
  redis.call('ZADD', DELAYED, due, id)
else
  redis.call('HSET', JOB .. id, 'state', 'waiting')
  push_waiting(id, job[3])
end
return 1
