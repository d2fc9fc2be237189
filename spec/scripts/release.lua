--! include: keys time guard holds groups jobs outcome events
--! flags: allow-oom
-- release. ARGV: id, token, incarnation, delay_ms, and optionally hold_ms (a runner's handler
-- was rate limited for its group, spec/PROTOCOL.md 5.21: the item's group, or the queue when it
-- has none, is held off that long first).
-- Hands a leased item back without counting a failure: the attempt it used is given back.
-- Returns 1; 2 when it held the queue (hold_ms given, the item without a group); or the outcome
-- code of lib/outcome.lua.
local id, token, inc = ARGV[1], ARGV[2], ARGV[3]
local holder = redis.call('GET', LEASE .. id)
local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled', 'priority', 'group')
if holder ~= token or job[1] ~= inc then
  return lost_outcome(id, inc, holder, job[1], job[2])
end
if job[2] then
  drop_cancelled(id, job[4])
  return -3
end
want_queue()
want_level(job[3], job[4])
local now = now_ms()
local held_queue = false
if ARGV[5] then
  if job[4] then
    want(GROUP_RATE .. job[4], 'string')
    hold_group(job[4], tonumber(ARGV[5]))
  else
    want(LIMIT, 'string')
    hold_queue(tonumber(ARGV[5]))
    held_queue = true
  end
end
if job[4] then
  release_slot(job[4])
end
local attempts = redis.call('HINCRBY', JOB .. id, 'attempts', -1)
local due = requeue_after(id, now, ARGV[4], job[3], job[4])
if events_on() then
  emit('released', id, inc, attempts, redis.call('HGET', JOB .. id, 'name'), 'due', due)
end
if held_queue then
  return 2
end
return 1
