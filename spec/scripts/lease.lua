--! include: time lease
--! flags: allow-oom
-- lease, lease_batch. ARGV: token, ttl_ms, n (how many items at most), db (the database the
-- caller selected: it keys the queue's hints). See lib/lease.lua.
return lease_items(ARGV[1], ARGV[2], ARGV[3], ARGV[4], now_ms())
