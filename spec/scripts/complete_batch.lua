--! include: keys time config rate outcome finish
--! flags: allow-oom
--! keep-variant
-- complete_batch. ARGV: 6 values per lease: id, incarnation, token, has_result, result, keep_result_ms
-- (at most 1000 leases). Returns one code per lease, in order, as complete's (lib/finish.lua).
local now = now_ms()
local codes = {}
begin_finish_batch()
for i = 1, #ARGV, 6 do
  codes[#codes + 1] = complete_item(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3] == '1', ARGV[i + 4], ARGV[i + 5], now)
end
end_finish_batch(now)
return codes
