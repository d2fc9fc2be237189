--! include: keys outcome events
--! flags: allow-oom
-- progress. ARGV: id, token, incarnation, value. Stores a small value on a leased item.
-- Returns 1, or the outcome code of lib/outcome.lua.
local id, token = ARGV[1], ARGV[2]
local holder = redis.call('GET', LEASE .. id)
local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled')
if holder ~= token or job[1] ~= ARGV[3] then
  return lost_outcome(id, ARGV[3], holder, job[1], job[2])
end
if job[2] then
  return -3
end
redis.call('HSET', JOB .. id, 'progress', ARGV[4])
if events_on() then
  local more = redis.call('HMGET', JOB .. id, 'attempts', 'name')
  emit('progress', id, job[1], tonumber(more[1]) or 0, more[2])
end
return 1
