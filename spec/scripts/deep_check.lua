-- deep_clean, step 2: decide about candidate ids found by SCAN, HSCAN or in the cleaning journal.
-- KEYS[6]: the snapshot set. KEYS[7]: <prefix>:cleaning (redis-work-queue's cleaner journal).
-- ARGV: from_journal ('1' or '0'), id1, id2, ...
-- An id whose item key is gone (or holds no string) only loses its lease count. An id whose
-- item exists, that no lease holds and that is on neither list is an orphan: it goes back to
-- the queue. The snapshot only filters; the lists themselves decide (LPOS).
-- Returns {requeued, removed}.
local requeued, removed = 0, 0
for i = 2, #ARGV do
  local id = ARGV[i]
  if redis.call('TYPE', ITEM .. id)['ok'] ~= 'string' then
    removed = removed + redis.call('HDEL', COUNTS, id)
  elseif redis.call('SISMEMBER', KEYS[6], id) == 0
    and redis.call('EXISTS', LEASE .. id) == 0
    and not redis.call('LPOS', QUEUE, id)
    and not redis.call('LPOS', PROCESSING, id) then
    redis.call('LPUSH', QUEUE, id)
    requeued = requeued + 1
  end
  if ARGV[1] == '1' then
    redis.call('LREM', KEYS[7], 0, id)
  end
end
return {requeued, removed}
