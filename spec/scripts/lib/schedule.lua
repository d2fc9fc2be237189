--! include: keys
-- Recurring jobs (spec/PROTOCOL.md 5.23): P:cron (ZSET: schedule name -> its next fire time, ms)
-- and P:cron:<name> (HASH: the schedule), named from the call's prefix. The ticks themselves are
-- computed by the client (cron expressions are never parsed in Lua); scripts only check them
-- against the server's clock and the schedule's version.
local function cron_keys(name)
  local prefix = string.sub(LEASE, 1, -8)
  return prefix .. ':cron', prefix .. ':cron:' .. (name or '')
end
