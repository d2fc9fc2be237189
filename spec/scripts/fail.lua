--! include: keys time config rate waiting jobs outcome
-- fail. ARGV: id, token, incarnation, mode ('retry' or 'dead'), delay_ms, error, error_type.
-- Only the live holder may fail an item. Records the error; with 'retry' and attempts left, the
-- item waits delay_ms (computed by the client from the item's backoff) and runs again; else it
-- is dead. Returns {1, due_ms} (retry), {2, 0} (dead) or {outcome code, 0} (lib/outcome.lua).
refuse_when_out_of_memory()
local id, token, inc = ARGV[1], ARGV[2], ARGV[3]
local holder = redis.call('GET', LEASE .. id)
local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled', 'attempts', 'max_attempts', 'priority')
if holder ~= token or job[1] ~= inc then
  return {lost_outcome(id, inc, holder, job[1], job[2]), 0}
end
if job[2] then
  drop_cancelled(id)
  return {-3, 0}
end
local now = now_ms()
count_event(now, 'failed')
redis.call('HSET', JOB .. id, 'error', ARGV[6], 'error_type', ARGV[7])
local attempts = tonumber(job[3]) or 1
local max = max_attempts_of(job[4])
if ARGV[4] ~= 'retry' then
  to_dead(id, now, 'failed without retry')
  return {2, 0}
end
if max > 0 and attempts >= max then
  to_dead(id, now, 'failed ' .. attempts .. ' times')
  return {2, 0}
end
redis.call('ZREM', LEASED, id)
redis.call('DEL', LEASE .. id)
local due = now + tonumber(ARGV[5])
if due > now then
  park(id)
  redis.call('HSET', JOB .. id, 'state', 'delayed', 'due', due)
  redis.call('ZADD', DELAYED, due, id)
else
  redis.call('HSET', JOB .. id, 'state', 'waiting')
  push_waiting(id, job[5])
end
return {1, due}
