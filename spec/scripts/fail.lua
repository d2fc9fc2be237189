--! include: time fail
--! flags: allow-oom
-- fail. ARGV: id, token, incarnation, mode ('retry' or 'dead'), delay_ms, error, error_type,
-- and optionally trace (the failure's traceback or stack, cut by the client; '' or absent: none).
-- Only the live holder may fail an item. Records the error; with 'retry' and attempts left, the
-- item waits delay_ms (computed by the client from the item's backoff) and runs again; else it
-- is dead. Returns {1, due_ms} (retry), {2, 0} (dead) or {outcome code, 0} (lib/outcome.lua).
return fail_item(ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], now_ms(), ARGV[8])
