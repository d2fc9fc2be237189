--! include: keys waiting
--! flags: no-writes
-- list. ARGV: state (waiting, delayed, leased, dead), start, count (at most 1000).
-- Returns {id, time_ms, attempts, error, error_type} for each item, in order: waiting in lease
-- order (time -1), delayed by due time, leased by lease expiry, dead oldest first (time died).
-- For leased, only leaseq's leases (P:leased); redis-work-queue's are in P:processing.
local state, start, count = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local entries = {}
local function entry(id, time)
  local job = redis.call('HMGET', JOB .. id, 'attempts', 'error', 'error_type')
  entries[#entries + 1] = {id, time, tonumber(job[1]) or 0, job[2] or '', job[3] or ''}
end
if state == 'waiting' then
  local skip = start
  for _, level in ipairs(levels_in_order()) do
    if #entries >= count then
      break
    end
    local list = waiting_list(level)
    local len = redis.call('LLEN', list)
    if skip >= len then
      skip = skip - len
    else
      -- The next to run is the tail: walk from the right.
      local wanted = count - #entries
      local ids = redis.call('LRANGE', list, -(skip + wanted), -(skip + 1))
      for i = #ids, 1, -1 do
        entry(ids[i], -1)
      end
      skip = 0
    end
  end
else
  local key = ({delayed = DELAYED, leased = LEASED, dead = DEAD})[state]
  local flat = redis.call('ZRANGE', key, start, start + count - 1, 'WITHSCORES')
  for i = 1, #flat, 2 do
    entry(flat[i], tonumber(flat[i + 1]))
  end
end
return entries
