--! include: keys guard waiting jobs events
--! flags: allow-oom
-- Dead letters. ARGV: action, then
--   'requeue' id...   requeue these dead items (attempts reset to 0)
--   'requeue_each' id...   the same, replying 1 (requeued) or 0 (not dead) per id, in order
--   'requeue_oldest' n   requeue the n oldest
--   'purge' n            delete the n oldest
-- n is at most 1000 per call. Returns how many items were requeued or deleted.
local action = ARGV[1]
local ids
local each = action == 'requeue_each'
if action == 'requeue' or each then
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
local done, replies = 0, {}
for i, id in ipairs(ids) do
  replies[i] = 0
  if redis.call('ZREM', DEAD, id) == 1 then
    done = done + 1
    replies[i] = 1
    if action == 'purge' then
      forget(id)
    elseif unpark(id) then
      redis.call('HSET', JOB .. id, 'state', 'waiting', 'attempts', 0)
      redis.call('HDEL', JOB .. id, 'reason', 'finished', 'expires_at')
      local job = redis.call('HMGET', JOB .. id, 'priority', 'group', 'inc', 'name')
      push_waiting(id, job[1], job[2])
      emit('requeued', id, job[3], 0, job[4])
    else
      redis.call('DEL', JOB .. id)
    end
  end
end
if each then
  return replies
end
return done
