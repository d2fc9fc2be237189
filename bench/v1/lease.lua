-- lease. ARGV: token, ttl_ms
return lease_next(ARGV[1], ARGV[2])
