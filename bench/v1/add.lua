-- add / add_batch. ARGV: id1, data1, id2, data2, ...
-- Stores each item whose id does not exist yet and queues its id; returns how many were added.
-- A lease count left by a redis-work-queue client's complete must not carry over to a new item
-- of the same id; the hash is looked at once, so an empty one costs nothing per item.
local counted = redis.call('EXISTS', COUNTS) == 1
local added = 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  if redis.call('SET', ITEM .. id, ARGV[i + 1], 'NX') then
    redis.call('LPUSH', QUEUE, id)
    if counted then
      redis.call('HDEL', COUNTS, id)
    end
    added = added + 1
  end
end
return added
