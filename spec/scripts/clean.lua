--! include: keys time guard waiting jobs flows
--! flags: allow-oom
-- light clean, one batch. ARGV: batch_size.
-- 1. Sorts up to batch_size ids from the tail of P:processing (redis-work-queue's leases, and
--    protocol v1 leftovers), as protocol v1's light clean did:
--      item gone            -> dropped, with a stale job hash and v1 lease count
--      lease live           -> back to the head of processing
--      in P:leased          -> dropped: a copy of a leaseq lease, which step 3 recovers
--      no lease, item there -> back to its waiting list, once per batch
-- 2. Moves up to min(batch_size, 100) due delayed items to their waiting lists (each costs
--    several commands, so fewer per call keep one call short).
-- 3. Recovers up to batch_size expired leaseq leases (back to waiting, or dead).
-- 4. Trims dead letters beyond the queue's bounds (at most 100).
-- 5. Drops stale ids (item gone) from the tail of each waiting list, up to batch_size in all;
--    a level other than 0 whose list it finds empty leaves P:prios, as a lease's would.
-- 6. Dependants (5.24): works off P:settled (at most batch_size dependants), then, when that is
--    empty, sweeps the blocked items light clean looked at longest ago (about batch_size of
--    their dependencies), settling those whose dependency finished unseen.
-- Returns {promoted, expired_requeued, expired_dead, expired_removed (item gone or cancelled),
-- examined, requeued, removed, processing_before, stale_dropped, dependants_settled, swept}.
local batch = tonumber(ARGV[1])
local now = now_ms()

local before = redis.call('LLEN', PROCESSING)
-- Every write below is checked first (lib/guard.lua): the shared keys, the lease counts, the
-- waiting lists of the processing ids this batch may requeue and of housekeeping's items.
want_queue()
want(COUNTS, 'hash')
if before > 0 then
  want_levels_of(redis.call('LRANGE', PROCESSING, -math.min(batch, before), -1))
end
want_targets(now, math.min(batch, 100), batch)
local examined, requeued, removed = 0, 0, 0
local seen = {}
for _ = 1, math.min(batch, before) do
  local id = redis.call('RPOP', PROCESSING)
  if not id then
    break
  end
  examined = examined + 1
  if redis.call('TYPE', ITEM .. id)['ok'] ~= 'string' then
    redis.call('HDEL', COUNTS, id)
    drop_stale(id)
    removed = removed + 1
  elseif redis.call('EXISTS', LEASE .. id) == 1 then
    redis.call('LPUSH', PROCESSING, id)
  elseif seen[id] or redis.call('ZSCORE', LEASED, id) then
    removed = removed + 1
  else
    seen[id] = true
    push_waiting(id, priority_of(id))
    requeued = requeued + 1
  end
end

local promoted = promote_due(now, math.min(batch, 100))
local expired_requeued, expired_dead, expired_removed = recover_expired(now, batch)
trim_dead(now)
-- Dependants (5.24): the finished items' noted dependants, then the sweep of blocked items.
local settled = run_settled(now, batch)
local swept = sweep_blocked(now, batch)

local stale = 0
for _, level in ipairs(levels_in_order()) do
  local list = waiting_list(level)
  while stale < batch do
    local id = redis.call('LINDEX', list, -1)
    if not id and level ~= 0 and level ~= 'held' then
      redis.call('ZREM', PRIOS, level)
    end
    if not id or redis.call('EXISTS', ITEM .. id) == 1 then
      break
    end
    redis.call('RPOP', list)
    drop_stale(id)
    stale = stale + 1
  end
end
return {promoted, expired_requeued, expired_dead, expired_removed, examined, requeued, removed,
  before, stale, settled, swept}
