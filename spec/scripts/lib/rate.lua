--! include: keys config(config_cache)
-- Per-minute counters for stats: P:rate:<minute> HASH, field -> count, kept 62 minutes. Off
-- unless the queue's configuration turns them on (P:config stats = 1, spec/PROTOCOL.md 3.2), so a
-- queue used as redis-work-queue uses one leaves no counter behind. Best effort (pcall): a counter
-- that cannot be written (out of memory), or a P:config of another type, never fails the
-- operation.
local RATE_TTL_MS = 3720000
-- Whether this call counts: read once per call (begin_call forgets it), from the configuration
-- when the call has read it already (config_cache, declared on the include line), else with one
-- HGET (an error reply, a P:config of another type, reads as unset: the default applies).
-- The same read brings the event stream's switch and bounds (`switches`, lib/events.lua reads
-- them through events_on): one HMGET for both, so that events off cost a call nothing.
-- A call with events off (the default) shares EVENTS_OFF rather than making a table.
local counting, switches = nil, nil
local EVENTS_OFF = {}
local function counters_on()
  if counting == nil then
    local value
    if config_cache then
      value = config_cache.stats
      if config_cache.events == '1' then
        switches = {'1', config_cache.events_max_len, config_cache.events_max_age_ms}
      else
        switches = EVENTS_OFF
      end
    else
      local read = redis.pcall('HMGET', CONFIG, 'stats', 'events', 'events_max_len', 'events_max_age_ms')
      if read.err then
        read = {}
      end
      value = read[1]
      switches = read[2] == '1' and {'1', read[3], read[4]} or EVENTS_OFF
    end
    if not value or type(value) == 'table' then
      value = DEFAULTS.stats
    end
    counting = tonumber(value) == 1
  end
  return counting
end

-- Whether this call appends to the event stream (P:config events = 1, spec/PROTOCOL.md 3.2 and
-- 14), and the stream's bounds: read with the counters' switch, once per call.
local function events_on()
  counters_on()
  if switches[1] ~= '1' then
    return false
  end
  return true, tonumber(switches[2]) or DEFAULTS.events_max_len,
    tonumber(switches[3]) or DEFAULTS.events_max_age_ms
end

-- A named item's events are also counted under `<field>:<name>` (completed, failed, dead),
-- while one minute's hash has fewer than NAMED_FIELDS fields (4 totals and 300 named counts): a
-- name first met when the hash is that full is counted only in the totals, so a queue with
-- unbounded names cannot grow the key.
local NAMED_FIELDS = 304
local function count_event(now, field, n, name)
  if not counters_on() then
    return
  end
  local h = queue_hints()
  local minute = math.floor(now / 60000)
  if h.minute ~= minute then
    h.minute, h.rate_key = minute, RATE .. minute
  end
  local key = h.rate_key
  -- (A literal for one event: Lua's number-to-string costs.)
  local count = redis.pcall('HINCRBY', key, field, n or '1')
  if count == (n or 1) then
    redis.pcall('PEXPIRE', key, RATE_TTL_MS)
  end
  if name and name ~= '' then
    local named = field .. ':' .. name
    if redis.pcall('HEXISTS', key, named) == 1 or redis.pcall('HLEN', key) < NAMED_FIELDS then
      redis.pcall('HINCRBY', key, named, n or '1')
    end
  end
end
