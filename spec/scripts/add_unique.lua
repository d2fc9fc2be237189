-- add_unique. ARGV: id1, data1, id2, data2, ...
-- The caller guarantees the ids are new: no existence check. Returns the number of items.
for i = 1, #ARGV, 2 do
  redis.call('SET', ITEM .. ARGV[i], ARGV[i + 1])
  redis.call('LPUSH', QUEUE, ARGV[i])
  redis.call('HDEL', COUNTS, ARGV[i])
end
return #ARGV / 2
