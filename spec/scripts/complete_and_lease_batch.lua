--! include: time finish lease
--! flags: allow-oom
--! keep-variant
-- complete_and_lease_batch: a busy runner's whole step. ARGV: token, ttl_ms, n (leases wanted), db,
-- then the leases to complete as complete_batch.lua takes them (per, then the values).
-- Returns {codes, lease reply}: one code per completed lease, then what lease.lua returns (or
-- {0, -1}, nothing leased, when the lease part failed).
local now = now_ms()
local codes = complete_items(ARGV, 6, now)
-- The completes are done: an error in the lease part (a key of the wrong type) must not hide
-- them. It leases nothing then ({0, -1}); the caller's next plain lease meets the error.
local ok, leased = pcall(lease_items, ARGV[1], ARGV[2], ARGV[3], ARGV[4], now)
if not ok then
  leased = {0, -1}
end
return {codes, leased}
