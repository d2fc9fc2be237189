-- deep_clean, step 3: clear suspects that a window of a list holds after all (they moved
-- between lists while the snapshot was taken). KEYS[6]: the suspects set.
-- ARGV: which list ('queue' or 'processing'), start, count.
-- Returns {how many ids the window held, suspects left}.
local ids = list_window(ARGV[1], ARGV[2], ARGV[3])
if #ids > 0 then
  redis.call('SREM', KEYS[6], unpack(ids))
end
return {#ids, redis.call('SCARD', KEYS[6])}
