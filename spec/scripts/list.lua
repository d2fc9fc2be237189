--! include: keys waiting deps
--! flags: no-writes
-- list. ARGV: state (waiting, delayed, leased, dead, done), start, count (at most 1000), and,
-- only to filter (find), name, error_type ('' matches any) and most (at most 1000).
-- Returns {id, time_ms, attempts, error, error_type, name, reason} for each item (reason: why a
-- dead item died, '' for others), in order: waiting in
-- lease order (time -1; a stale id, whose item was cancelled or purged and which a lease would
-- drop, is skipped), delayed by due time, leased by lease expiry, dead oldest first (time
-- died), done newest first (time finished; an entry whose result expired is skipped).
-- For leased, only leaseq's leases (P:leased); redis-work-queue's are in P:processing.
-- To filter, `count` positions from `start` are examined and the first `most` entries that
-- match are returned as {examined, entries}: bounded whatever the state's size.
local state, start, count = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local filtering = ARGV[6] ~= nil
local by_name, by_type, most = ARGV[4], ARGV[5], tonumber(ARGV[6]) or count
local entries = {}
local examined = 0
local function entry(id, time)
  examined = examined + 1
  local job = redis.call('HMGET', JOB .. id, 'attempts', 'error', 'error_type', 'name', 'reason')
  if filtering and ((by_name ~= '' and job[4] ~= by_name) or (by_type ~= '' and job[3] ~= by_type)) then
    return
  end
  entries[#entries + 1] = {id, time, tonumber(job[1]) or 0, job[2] or '', job[3] or '', job[4] or '',
    job[5] or ''}
end
if state == 'waiting' then
  local skip = start
  for _, level in ipairs(levels_in_order()) do
    if examined >= count or #entries >= most then
      break
    end
    local list = waiting_list(level)
    local len = redis.call('LLEN', list)
    if skip >= len then
      skip = skip - len
    else
      -- The next to run is the tail: walk from the right.
      local wanted = count - examined
      local ids = redis.call('LRANGE', list, -(skip + wanted), -(skip + 1))
      for i = #ids, 1, -1 do
        if #entries >= most then
          break
        end
        if redis.call('EXISTS', ITEM .. ids[i]) == 1 then
          entry(ids[i], -1)
        else
          examined = examined + 1 -- stale: its position is counted, its id not listed
        end
      end
      skip = 0
    end
  end
elseif state == 'done' then
  -- The kept results, newest first: [finished, attempts, result, added, name] (the result
  -- itself is not read: it may be large). A done item has no error: a filter by error type
  -- matches none.
  local flat = redis.call('ZREVRANGE', DONE, start, start + count - 1, 'WITHSCORES')
  for i = 1, #flat, 2 do
    if #entries >= most then
      break
    end
    examined = examined + 1
    local key = RESULT .. flat[i]
    local kept = redis.call('LRANGE', key, 0, 1)
    local name = #kept == 2 and redis.call('LINDEX', key, 4) or false
    if #kept == 2 and not (filtering and ((by_name ~= '' and name ~= by_name) or by_type ~= '')) then
      entries[#entries + 1] = {flat[i], tonumber(kept[1]), tonumber(kept[2]) or 0, '', '', name or '', ''}
    end
  end
else
  local key = ({delayed = DELAYED, leased = LEASED, dead = DEAD})[state]
  -- blocked (5.24): by when light clean last looked at each.
  key = key or (state == 'blocked' and blocked_key())
  local flat = redis.call('ZRANGE', key, start, start + count - 1, 'WITHSCORES')
  for i = 1, #flat, 2 do
    if #entries >= most then
      break
    end
    entry(flat[i], tonumber(flat[i + 1]))
  end
end
if filtering then
  return {examined, entries}
end
return entries
