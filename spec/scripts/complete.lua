--! include: time finish
--! flags: allow-oom
--! keep-variant
-- complete. ARGV: id, incarnation, token, and, only with a result, has_result ('1'), result,
-- keep_result_ms ('' default). Called as complete_keep when a result is kept (4.1). Returns 1
-- (completed by this call) or an outcome code (lib/finish.lua).
return complete_item(ARGV[1], ARGV[2], ARGV[3], ARGV[4] == '1', ARGV[5], ARGV[6], now_ms())
