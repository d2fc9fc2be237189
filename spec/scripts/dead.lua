--! include: keys guard waiting jobs
--! flags: allow-oom
-- Dead letters. ARGV: action, then
--   'requeue' id...   requeue these dead items (attempts reset to 0)
--   'requeue_oldest' n   requeue the n oldest
--   'purge' n            delete the n oldest
-- n is at most 1000 per call. Returns how many items were requeued or deleted.
local action = ARGV[1]
local ids
if action == 'requeue' then
  ids = {}
  for i = 2, #ARGV do
    ids[#ids + 1] = ARGV[i]
  end
else
  ids = redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[2]) - 1)
end
-- A requeue checks every write first (lib/guard.lua); a purge's first write is its first ZREM.
if action ~= 'purge' then
  want_queue()
  for _, id in ipairs(ids) do
    if redis.call('ZSCORE', DEAD, id) then
      want_level(unpack(redis.call('HMGET', JOB .. id, 'priority', 'group')))
    end
  end
end
local done = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', DEAD, id) == 1 then
    done = done + 1
    if action == 'purge' then
      forget(id)
    elseif unpark(id) then
      redis.call('HSET', JOB .. id, 'state', 'waiting', 'attempts', 0)
      redis.call('HDEL', JOB .. id, 'reason', 'finished', 'expires_at')
      push_waiting(id, unpack(redis.call('HMGET', JOB .. id, 'priority', 'group')))
    else
      redis.call('DEL', JOB .. id)
    end
  end
end
return done
