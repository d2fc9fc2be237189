--! include: window
--! flags: allow-oom
-- deep_clean, step 3: clear suspects that a window of a list holds after all (they moved
-- between lists while the snapshot was taken). KEYS[3]: the suspects set.
-- ARGV: which list ('queue', 'processing' or a priority level), start, count.
-- Returns {how many ids the window held, suspects left}.
local ids = list_window(ARGV[1], ARGV[2], ARGV[3])
if #ids > 0 then
  redis.call('SREM', KEYS[3], unpack(ids))
end
return {#ids, redis.call('SCARD', KEYS[3])}
