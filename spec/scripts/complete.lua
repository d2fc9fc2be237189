--! include: keys time config rate outcome finish
-- complete. ARGV: id, incarnation, has_result ('1' or '0'), result, keep_result_ms ('' default).
-- Returns 1 (completed by this call) or an outcome code (lib/finish.lua).
if ARGV[3] == '1' then
  refuse_when_out_of_memory()
end
return complete_item(ARGV[1], ARGV[2], ARGV[3] == '1', ARGV[4], ARGV[5], now_ms())
