-- add / add_batch. ARGV: id1, data1, id2, data2, ...
-- Stores each item whose id does not exist yet and queues its id; returns how many were added.
local added = 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  if redis.call('SET', ITEM .. id, ARGV[i + 1], 'NX') then
    redis.call('LPUSH', QUEUE, id)
    added = added + 1
  end
end
return added
