--! include: time finish lease
--! flags: allow-oom
--! keep-variant
-- complete_and_lease. ARGV: the next lease's token, ttl_ms, n, db, then complete's values: id,
-- incarnation, token, and, only with a result, has_result ('1'), result, keep_result_ms.
-- Returns {completed, next}: completed as complete's reply, next exactly a lease reply.
local now = now_ms()
local completed = complete_item(ARGV[5], ARGV[6], ARGV[7], ARGV[8] == '1', ARGV[9], ARGV[10], now)
-- As complete_and_lease_batch: a refused lease part (a key of another type; it changes nothing,
-- lib/guard.lua) leases nothing and does not hide the complete; the next lease reports it.
local ok, leased = pcall(lease_items, ARGV[1], ARGV[2], ARGV[3], ARGV[4], now)
if not ok then
  leased = {0, -1}
end
return {completed, leased}
