--! include: time renew
--! flags: allow-oom
-- renew. ARGV: id, token, ttl_ms, incarnation. Returns 1 (renewed) or an outcome code.
return renew_one(ARGV[1], ARGV[2], ARGV[3], ARGV[4], now_ms())
