--! include: keys time config rate waiting jobs outcome finish lease
--! flags: allow-oom
--! keep-variant
-- complete_and_lease. ARGV: id, incarnation, token, has_result, result, keep_result_ms, then the next lease's
-- token, ttl_ms, n.
-- Returns {completed, next}: completed as complete's reply, next exactly a lease reply.
local now = now_ms()
local completed = complete_item(ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1', ARGV[5], ARGV[6], now)
return {completed, lease_items(ARGV[7], ARGV[8], ARGV[9], now)}
