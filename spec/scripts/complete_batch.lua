--! include: keys time config rate outcome finish
--! flags: allow-oom
--! keep-variant
-- complete_batch. ARGV: 5 values per lease: id, incarnation, has_result, result, keep_result_ms
-- (at most 1000 leases). Returns one code per lease, in order, as complete's (lib/finish.lua).
local now = now_ms()
local codes = {}
for i = 1, #ARGV, 5 do
  codes[#codes + 1] = complete_item(ARGV[i], ARGV[i + 1], ARGV[i + 2] == '1', ARGV[i + 3], ARGV[i + 4], now)
end
return codes
