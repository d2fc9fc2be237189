--! include: time finish
--! flags: allow-oom
--! keep-variant
-- complete_batch. ARGV: per (3 or 6), then per values for each lease (at most 1000): id,
-- incarnation, token, and with per = 6 has_result, result, keep_result_ms. Returns one code per
-- lease, in order, as complete's (lib/finish.lua).
return complete_items(ARGV, 2, now_ms())
