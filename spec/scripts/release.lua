--! include: keys time guard jobs outcome
--! flags: allow-oom
-- release. ARGV: id, token, incarnation, delay_ms.
-- Hands a leased item back without counting a failure: the attempt it used is given back.
-- Returns 1, or the outcome code of lib/outcome.lua.
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
want_queue()
want_level(job[3])
redis.call('HINCRBY', JOB .. id, 'attempts', -1)
requeue_after(id, now_ms(), ARGV[4], job[3])
return 1
