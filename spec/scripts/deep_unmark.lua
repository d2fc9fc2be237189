-- deep_clean, step 3: clear suspects that a window of a list holds after all (they moved
-- between lists while the snapshot was taken). KEYS[6]: the suspects set.
-- ARGV: which list ('queue' or 'processing'), start, count.
-- Returns {how many ids the window held, suspects left}.
local list = QUEUE
if ARGV[1] == 'processing' then
  list = PROCESSING
end
local start = tonumber(ARGV[2])
local ids = redis.call('LRANGE', list, start, start + tonumber(ARGV[3]) - 1)
if #ids > 0 then
  redis.call('SREM', KEYS[6], unpack(ids))
end
return {#ids, redis.call('SCARD', KEYS[6])}
