--! include: keys time config rate waiting jobs outcome finish lease
--! flags: allow-oom
--! keep-variant
-- complete_and_lease_batch: a busy runner's whole step. ARGV: token, ttl_ms, n (leases wanted),
-- then 6 values per lease to complete, as complete_batch.lua (at most 1000).
-- Returns {codes, lease reply}: one code per completed lease, then what lease.lua returns.
local now = now_ms()
local codes = complete_items(ARGV, 4, now)
return {codes, lease_items(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), now)}
