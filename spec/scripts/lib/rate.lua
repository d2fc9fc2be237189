-- Per-minute counters for stats: P:rate:<minute> HASH, field -> count, kept 62 minutes. Best
-- effort (pcall): a counter that cannot be written (out of memory) never fails the operation.
local RATE_TTL_MS = 3720000
local function count_event(now, field, n)
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
end
