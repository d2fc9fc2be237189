-- Per-minute counters for stats: P:rate:<minute> HASH, field -> count, kept 62 minutes.
local RATE_TTL_MS = 3720000
local function count_event(now, field, n)
  local key = RATE .. math.floor(now / 60000)
  if redis.call('HINCRBY', key, field, n or 1) == (n or 1) then
    redis.call('PEXPIRE', key, RATE_TTL_MS)
  end
end
