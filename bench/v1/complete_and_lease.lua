-- complete_and_lease. ARGV: id, token, ttl_ms
-- Returns {completed, next} where next is what lease returns.
local completed = complete_item(ARGV[1])
return {completed, lease_next(ARGV[2], ARGV[3])}
