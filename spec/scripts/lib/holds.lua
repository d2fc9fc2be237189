--! include: keys time config
-- Holds: a queue held off by its rate limit or a handler's 429 (P:limit, spec/PROTOCOL.md 5.19),
-- and a group's own window (P:group_rate:<g>, 5.21). A held key's count is HOLD, more than any
-- window's limit.
local HOLD, HOLD_TEXT = 4503599627370496, '4503599627370496' -- 2^52

-- Holds every lease of the queue off for ms, or what P:limit's expiry has left if longer.
-- Returns the hold's length (ms).
local function hold_queue(ms)
  local left = redis.call('PTTL', LIMIT)
  if left > ms then
    ms = left
  end
  redis.call('SET', LIMIT, HOLD_TEXT, 'PX', ms)
  -- Leases read P:limit from now on (lib/lease.lua, h.watch), in every database.
  for _, h in pairs(queue_hints().dbs) do
    h.watch = true
  end
  return ms
end

-- Holds group g off for ms (or what its window has left, if longer): it leaves the ring when a
-- lease meets it, and housekeeping puts it back when the hold ends. Returns the hold's length.
local function hold_group(g, ms)
  local key, now = GROUP_RATE .. g, now_ms()
  local left = redis.pcall('PTTL', key)
  if type(left) == 'number' and left > ms then
    ms = left
  end
  redis.call('SET', key, HOLD_TEXT, 'PX', ms)
  redis.call('ZADD', GROUP_WAIT, 'GT', now + ms, g)
  -- Pops read the groups' counts from now on (lib/groups.lua, h.group_holds).
  for _, h in pairs(queue_hints().dbs) do
    h.group_holds = true
  end
  return ms
end

-- Whether group g, met by a lease, is at its rate limit's window or held (5.21); if so, it goes
-- to P:group_wait until the window ends. With a group rate limit (h.group_rate_max, as of the
-- last housekeeping) the lease is counted here, as the pop takes it: the count past the limit
-- is harmless (the key expires with its window). (pcall: a key of another type, or a count
-- that is not a number, limits nothing.)
local function group_limited(h, g, now)
  -- A group met with no item to take (its last one cancelled, say) counts nothing: a pop counts
  -- the item it takes (a counterexample of the model: the empty pop started a window, and the
  -- group's next item waited for it).
  if redis.call('EXISTS', GROUP .. g) == 0 then
    return false
  end
  local key, count = GROUP_RATE .. g, nil
  if h.group_rate_max then
    count = redis.pcall('INCR', key)
    if count == 1 then
      redis.pcall('PEXPIRE', key, h.group_rate_per)
      return false
    end
  elseif h.group_holds then
    count = tonumber(redis.pcall('GET', key))
  end
  if type(count) ~= 'number' or count <= (h.group_rate_max or HOLD - 1) then
    return false
  end
  local left = redis.call('PTTL', key)
  if left < 0 then
    -- A count without an expiry (not written by this protocol): it ends with a window.
    left = h.group_rate_per or 1000
    redis.call('PEXPIRE', key, left)
  end
  redis.call('ZADD', GROUP_WAIT, now + left, g)
  return true
end
