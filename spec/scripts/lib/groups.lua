--! include: keys config guard holds
-- Groups (spec/PROTOCOL.md 5.20): per-key FIFO with a concurrency limit, fair across groups.
-- A grouped item waits in its group's sorted set P:group:<g> (score: priority rank, then order
-- of queueing), with its data parked at P:data:<id> and its record in state `grouped`, where
-- redis-work-queue clients never find it. P:ready is the ring of groups that have work and a free
-- slot (P:ready_set holds the same names, so that a group is on the ring once): a lease takes
-- the ring's tail, leases that group's first item and puts the group back at the ring's head
-- while it still has work and a slot, so groups take turns, whatever their sizes.
-- P:group_active counts each group's leased items; P:group_limit holds limits set per group
-- (else P:config group_concurrency, default 1); P:group_paused the paused groups;
-- P:group_waiting the ids in every group's set; P:group_seq the order of queueing.
local GROUP_RANK = 1099511627776 -- 2^40: a score is rank * 2^40 + seq, exact in a double
local RING_LOOK = 100            -- ring entries one pop looks at, at most

local function group_limit(g)
  return tonumber(redis.call('HGET', GROUP_LIMIT, g)) or tonumber(config('group_concurrency')) or 1
end

-- Whether group g has work, a free slot (`active`: its leased items, when the caller knows
-- them), and is not paused.
local function group_ready(g, active)
  active = active or tonumber(redis.call('HGET', GROUP_ACTIVE, g)) or 0
  return redis.call('ZCARD', GROUP .. g) > 0
    and active < group_limit(g)
    and redis.call('SISMEMBER', GROUP_PAUSED, g) == 0
end

-- Puts group g, ready, on the ring unless it is on it; `wake`: a waiting lease wakes for it.
local function ring_push(g, wake)
  if redis.call('SADD', READY_SET, g) == 1 then
    redis.call('LPUSH', READY, g)
    if wake then
      if redis.call('LLEN', WAKE) == 0 then
        redis.call('RPUSH', WAKE, '1')
      end
      redis.call('PEXPIRE', WAKE, 3600000)
    end
    for _, h in pairs(queue_hints().dbs) do
      h.groups = true
    end
  end
end

-- Puts group g on the ring when it is ready and not on it yet; a waiting lease wakes for it.
local function group_check(g, active)
  if group_ready(g, active) then
    ring_push(g, true)
  end
end

-- Queues id in group g at `priority`: its data parked, its record `grouped`. An item keeps
-- its place in the group's order when it comes back (a retry, a release, an expired lease, a
-- requeued dead letter): its record keeps the number it drew the first time (`group_seq`).
local function push_grouped(id, priority, g)
  if redis.call('EXISTS', ITEM .. id) == 1 then
    redis.call('RENAME', ITEM .. id, DATA .. id)
  end
  local rank = 1000 - (tonumber(priority) or 0)
  local seq = tonumber(redis.call('HGET', JOB .. id, 'group_seq'))
  if not seq then
    seq = redis.call('INCR', GROUP_SEQ)
    redis.call('HSET', JOB .. id, 'group_seq', seq)
  end
  redis.call('ZADD', GROUP .. g, rank * GROUP_RANK + seq, id)
  redis.call('INCR', GROUP_WAITING)
  redis.call('HSET', JOB .. id, 'state', 'grouped')
  group_check(g)
end

-- How many ids wait in groups.
local function grouped_count()
  return tonumber(redis.call('GET', GROUP_WAITING)) or 0
end

-- (P:group_seq stays: an item out of its group now, delayed or leased, keeps its number, and
-- numbers drawn later must be larger.)
local function grouped_left(n)
  if redis.call('DECRBY', GROUP_WAITING, n) <= 0 then
    redis.call('DEL', GROUP_WAITING)
  end
end

-- The types of the keys release_slot writes (lib/guard.lua), for a call that has not checked
-- the whole queue's: four TYPE commands instead of want_queue's many.
local function want_slot_keys()
  want(GROUP_ACTIVE, 'hash')
  want(READY_SET, 'set')
  want(READY, 'list')
  want(WAKE, 'list')
end

-- A leased item of group g ended (completed, failed, released, recovered, cancelled): its slot
-- is free again.
local function release_slot(g)
  local active = redis.call('HINCRBY', GROUP_ACTIVE, g, -1)
  if active <= 0 then
    redis.call('HDEL', GROUP_ACTIVE, g)
    active = 0
  end
  group_check(g, active)
end

-- Removes a waiting id from group g (cancel); true if it was there.
local function remove_grouped(id, g)
  if redis.call('ZREM', GROUP .. g, id) == 1 then
    grouped_left(1)
    return true
  end
  return false
end

-- The next grouped id for a lease, or nil: the ring's tail group, if still ready, gives its
-- first id, whose slot is taken now (release_slot gives it back if the lease drops the id);
-- its data goes back to P:item:<id> and its record to `waiting`. At most RING_LOOK ring entries.
local function pop_grouped(h, now)
  for _ = 1, RING_LOOK do
    local g = redis.call('RPOP', READY)
    if not g then
      h.groups = false
      return nil
    end
    redis.call('SREM', READY_SET, g)
    local limit = group_limit(g)
    local active = tonumber(redis.call('HGET', GROUP_ACTIVE, g)) or 0
    -- A group at its rate limit's window leaves the ring until the window ends (5.21).
    local id = active < limit and redis.call('SISMEMBER', GROUP_PAUSED, g) == 0
      and not ((h.group_rate_max or h.group_holds) and group_limited(h, g, now))
      and redis.call('ZPOPMIN', GROUP .. g)[1]
    if id then
      grouped_left(1)
      active = redis.call('HINCRBY', GROUP_ACTIVE, g, 1)
      -- Still ready: back at the ring's head (it was on the ring: nobody needs waking).
      if active < limit and redis.call('ZCARD', GROUP .. g) > 0 then
        ring_push(g, false)
      end
      -- (pcall: no parked data is a stale id, which the lease drops.)
      redis.pcall('RENAME', DATA .. id, ITEM .. id)
      redis.call('HSET', JOB .. id, 'state', 'waiting')
      return id, g
    end
  end
  return nil
end

-- Groups whose rate limit's window (or hold) ended go back on the ring, at most max of them
-- (5.21; housekeeping). Returns whether P:group_wait still holds groups.
local function groups_back(now, max)
  if redis.call('EXISTS', GROUP_WAIT) == 0 then
    return false
  end
  local due = redis.call('ZRANGEBYSCORE', GROUP_WAIT, '-inf', now, 'LIMIT', 0, max)
  if #due == 0 then
    return true
  end
  redis.call('ZREM', GROUP_WAIT, unpack(due))
  for _, g in ipairs(due) do
    group_check(g)
  end
  return redis.call('EXISTS', GROUP_WAIT) == 1
end
