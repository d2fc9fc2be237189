--! include: keys waiting
--! flags: allow-oom
-- deep_clean, step 4: queue the suspects that are still orphans: item there, no lease.
-- KEYS[3]: the suspects set. ARGV: count.
-- Returns {suspects taken, requeued}.
local ids = redis.call('SPOP', KEYS[3], ARGV[1])
local requeued = 0
for _, id in ipairs(ids) do
  if redis.call('TYPE', ITEM .. id)['ok'] == 'string' and redis.call('EXISTS', LEASE .. id) == 0
      and not redis.call('ZSCORE', LEASED, id) then
    push_waiting(id, redis.call('HGET', JOB .. id, 'priority'))
    requeued = requeued + 1
  end
end
return {#ids, requeued}
