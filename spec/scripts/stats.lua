--! include: keys time config rate waiting holds deps schedule
--! flags: no-writes
-- stats. No ARGV. Returns {waiting, delayed, leased, dead, processing, oldest_waiting_ms,
-- now_ms, minutes, counting, paused, capacity, rate_limited_for, blocked, schedules}: blocked
-- the items waiting for dependencies (5.24), schedules the queue's recurring jobs (5.23); paused is 1 while the queue is paused, capacity
-- the queue's capacity (-1: none), rate_limited_for how long leases are held off by the rate
-- limit (-1: they are not, 5.19); counting is 1 when the queue's counters are on (P:config stats = 1),
-- else 0; minutes is then, for each of the last 60 minutes (oldest first), {completed, failed,
-- dead, expired}, and empty while they are off (no zeros that would read as an idle queue).
-- oldest_waiting_ms is the age of the oldest item at the tail of a waiting list (-1: none, or
-- unknown): its P:job:<id> "added", else the idle time of its data key (an item without options
-- is never read while it waits). A stale id at the tail (its item cancelled or finished) is
-- passed over: the last STALE_LOOK ids of each list are looked at, tail first.
local now = now_ms()

-- How long the rate limit holds leases off (ms), or -1.
local function limited_for()
  local used = tonumber(redis.pcall('GET', LIMIT))
  if used and used >= (tonumber(config('rate_max')) or HOLD) then
    return math.max(redis.call('PTTL', LIMIT), 0)
  end
  return -1
end
local STALE_LOOK = 10
-- The age of item `id` (-1: unknown), and whether it exists.
local function age_of(id)
  local added = tonumber(redis.call('HGET', JOB .. id, 'added'))
  if added then
    return now - added, true
  end
  if redis.call('EXISTS', ITEM .. id) == 0 then
    return -1, false
  end
  local ok, idle = pcall(redis.call, 'OBJECT', 'IDLETIME', ITEM .. id)
  return ok and idle * 1000 or -1, true
end
local waiting, oldest = 0, -1
for _, level in ipairs(levels_in_order()) do
  local list = waiting_list(level)
  local len = redis.call('LLEN', list)
  waiting = waiting + len
  if len > 0 then
    local ids = redis.call('LRANGE', list, -STALE_LOOK, -1)
    for i = #ids, 1, -1 do
      local age, exists = age_of(ids[i])
      if exists then
        if age > oldest then
          oldest = age
        end
        break
      end
    end
  end
end
waiting = waiting + grouped_count()
local minutes, counting_on = {}, 0
if counters_on() then
  counting_on = 1
  local this_minute = math.floor(now / 60000)
  for m = this_minute - 59, this_minute do
    local c = redis.call('HMGET', RATE .. m, 'completed', 'failed', 'dead', 'expired')
    minutes[#minutes + 1] = {tonumber(c[1]) or 0, tonumber(c[2]) or 0, tonumber(c[3]) or 0, tonumber(c[4]) or 0}
  end
end
return {waiting, redis.call('ZCARD', DELAYED), redis.call('ZCARD', LEASED), redis.call('ZCARD', DEAD),
  redis.call('LLEN', PROCESSING), oldest, now, minutes, counting_on, redis.call('EXISTS', PAUSED),
  tonumber(config('capacity')) or -1, limited_for(), redis.call('ZCARD', blocked_key()),
  redis.call('ZCARD', (cron_keys()))}
