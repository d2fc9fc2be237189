--! include: keys time config rate outcome finish
--! flags: allow-oom
--! keep-variant
-- complete_batch. ARGV: 6 values per lease: id, incarnation, token, has_result, result, keep_result_ms
-- (at most 1000 leases). Returns one code per lease, in order, as complete's (lib/finish.lua).
return complete_items(ARGV, 1, now_ms())
