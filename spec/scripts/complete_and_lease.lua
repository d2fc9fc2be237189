--! include: keys time config rate waiting jobs outcome finish lease
--! flags: allow-oom
--! keep-variant
-- complete_and_lease. ARGV: the next lease's token, ttl_ms, n, then complete's values: id,
-- incarnation, token, and, only with a result, has_result ('1'), result, keep_result_ms.
-- Returns {completed, next}: completed as complete's reply, next exactly a lease reply.
local now = now_ms()
local completed = complete_item(ARGV[4], ARGV[5], ARGV[6], ARGV[7] == '1', ARGV[8], ARGV[9], now)
return {completed, lease_items(ARGV[1], ARGV[2], ARGV[3], now)}
