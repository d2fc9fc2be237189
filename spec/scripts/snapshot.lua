--! include: window
--! flags: allow-oom
-- deep_clean, step 1: copy a window of a list into the snapshot set.
-- KEYS[3]: the snapshot set. ARGV: which list ('queue', 'processing' or a priority level),
-- start, count, ttl_ms.
-- Returns how many ids the window held (fewer than count: the end of the list).
local ids = list_window(ARGV[1], ARGV[2], ARGV[3])
if #ids > 0 then
  redis.call('SADD', KEYS[3], unpack(ids))
  redis.call('PEXPIRE', KEYS[3], ARGV[4])
end
return #ids
