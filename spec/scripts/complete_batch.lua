--! include: time finish
--! flags: allow-oom
--! keep-variant
-- complete_batch. ARGV: per (2, 3 or 6), then per values for each lease (at most 1000): id,
-- incarnation, token, and with per = 6 has_result, result, keep_result_ms; with per = 2 id and
-- token only (the incarnation is the token). Returns one code per
-- lease, in order, as complete's (lib/finish.lua).
return complete_items(ARGV, 2, now_ms())
