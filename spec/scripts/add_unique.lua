-- add_unique. ARGV: id1, data1, id2, data2, ...
-- The caller guarantees the ids are new: no existence check. Returns the number of items.
local counted = redis.call('EXISTS', COUNTS) == 1
for i = 1, #ARGV, 2 do
  redis.call('SET', ITEM .. ARGV[i], ARGV[i + 1])
  redis.call('LPUSH', QUEUE, ARGV[i])
  if counted then
    redis.call('HDEL', COUNTS, ARGV[i])
  end
end
return #ARGV / 2
