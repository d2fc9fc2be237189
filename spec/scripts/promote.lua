--! include: keys guard jobs
--! flags: allow-oom
-- promote (spec/PROTOCOL.md 5.22). ARGV: id. A delayed item waits now, at its priority (or in
-- its group), as a light clean promotes a due one. Returns 1, or 0 when the id is not delayed.
local id = ARGV[1]
if not redis.call('ZSCORE', DELAYED, id) then
  return 0
end
-- Every write checked first (lib/guard.lua), as dead.lua's requeue.
want_queue()
want_level(unpack(redis.call('HMGET', JOB .. id, 'priority', 'group')))
return promote_due(0, 1, {id})
