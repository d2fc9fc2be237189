--! include: keys time config rate waiting jobs lease
--! flags: allow-oom
-- lease, lease_batch. ARGV: token, ttl_ms, n (how many items at most). See lib/lease.lua.
local now, now_s = now_ms()
return lease_items(ARGV[1], ARGV[2], tonumber(ARGV[3]), now, now_s)
