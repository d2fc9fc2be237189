--! include: keys guard waiting
--! flags: allow-oom
-- deep_clean, step 4: queue the suspects that are still orphans: item there, no lease.
-- KEYS[3]: the suspects set. ARGV: count.
-- Returns {suspects taken, requeued}.
local ids = redis.call('SPOP', KEYS[3], ARGV[1])
local requeued = 0
-- Every write below is checked first (lib/guard.lua); a refused call puts the suspects back.
local ok, refused = pcall(function()
  want_queue()
  want_levels_of(ids)
end)
if not ok then
  if #ids > 0 then
    redis.call('SADD', KEYS[3], unpack(ids))
  end
  error(refused)
end
for _, id in ipairs(ids) do
  if redis.call('TYPE', ITEM .. id)['ok'] == 'string' and redis.call('EXISTS', LEASE .. id) == 0
      and not redis.call('ZSCORE', LEASED, id) then
    push_waiting(id, priority_of(id))
    requeued = requeued + 1
  end
end
return {#ids, requeued}
