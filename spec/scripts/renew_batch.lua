--! include: keys time guard renew
--! flags: allow-oom
-- renew_batch. ARGV: ttl_ms, then 3 values per lease: id, token, incarnation (at most 1000).
-- Returns one code per lease, in order, as renew's.
local now = now_ms()
local codes = {}
want(LEASED, 'zset')
for i = 2, #ARGV, 3 do
  codes[#codes + 1] = renew_one(ARGV[i], ARGV[i + 1], ARGV[1], ARGV[i + 2], now)
end
return codes
