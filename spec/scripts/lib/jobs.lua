--! include: keys config guard rate groups waiting deps events
-- Per-item transitions shared by several scripts.
local TRIM_PER_CALL = 100

-- The attempts after which an item is dead (0: no limit): the item's own, else the queue's.
local function max_attempts_of(job_max)
  return tonumber(job_max) or tonumber(config('max_attempts')) or 0
end

-- A delayed or dead item's data lives at P:data:<id>, where redis-work-queue clients (whose
-- deep clean looks for P:item:*) never find it. RENAME is O(1) whatever the data's size.
local function park(id)
  if redis.call('EXISTS', ITEM .. id) == 1 then
    redis.call('RENAME', ITEM .. id, DATA .. id)
  end
end

-- Back to P:item:<id>. False when another client has stored an item under that id meanwhile
-- (redis-work-queue adds do not know parked items); the parked copy then goes.
local function unpark(id)
  if redis.call('EXISTS', DATA .. id) == 0 then
    return redis.call('EXISTS', ITEM .. id) == 1
  end
  if redis.call('RENAMENX', DATA .. id, ITEM .. id) == 0 then
    redis.call('DEL', DATA .. id)
    return false
  end
  return true
end

-- Ends the holder's lease and queues the item again: after `delay_ms` (delayed, data parked)
-- or at once (waiting, at its priority, in its group if it has one). Returns the due time.
local function requeue_after(id, now, delay_ms, priority, group)
  redis.call('ZREM', LEASED, id)
  redis.call('DEL', LEASE .. id)
  local due = now + tonumber(delay_ms)
  if due > now then
    park(id)
    redis.call('HSET', JOB .. id, 'state', 'delayed', 'due', due)
    wake_for_due(due)
    redis.call('ZADD', DELAYED, due, id)
  else
    redis.call('HSET', JOB .. id, 'state', 'waiting')
    push_waiting(id, priority, group)
  end
  return due
end

-- Removes every trace of a delayed or dead item.
local function forget(id)
  redis.call('DEL', DATA .. id, JOB .. id)
end

-- Dead letters beyond the queue's count and age bounds go, oldest first, a bounded number per
-- call (every script that adds to P:dead calls this, so the bounds hold).
local function trim_dead(now)
  local max_count = tonumber(config('dead_max_count'))
  local max_age = tonumber(config('dead_max_age_ms'))
  local victims = {}
  local over = redis.call('ZCARD', DEAD) - max_count
  if over > 0 then
    victims = redis.call('ZRANGE', DEAD, 0, math.min(over, TRIM_PER_CALL) - 1)
  end
  if #victims < TRIM_PER_CALL then
    local old = redis.call('ZRANGEBYSCORE', DEAD, '-inf', '(' .. (now - max_age), 'LIMIT', 0, TRIM_PER_CALL - #victims)
    for _, id in ipairs(old) do
      victims[#victims + 1] = id
    end
  end
  for _, id in ipairs(victims) do
    if redis.call('ZREM', DEAD, id) == 1 then
      forget(id)
    end
  end
  return #victims
end

-- How many times, for a dead reason: 'once', '2 times', ...
local function times(n)
  if n == 1 then
    return 'once'
  end
  return n .. ' times'
end

-- Moves a waiting or leased item to dead: its data parked, its lease ended, why recorded; the
-- dead letters' bounds are the caller's (to_dead keeps them).
local function mark_dead(id, now, reason, err, err_type)
  park(id)
  redis.call('ZREM', LEASED, id)
  redis.call('DEL', LEASE .. id)
  redis.call('HSET', JOB .. id, 'state', 'dead', 'finished', now, 'reason', reason)
  if err then
    redis.call('HSET', JOB .. id, 'error', err, 'error_type', err_type or '')
    redis.call('HDEL', JOB .. id, 'trace')
  end
  redis.call('ZADD', DEAD, now, id)
  note_settled(id, 'dead')
  count_event(now, 'dead', nil, counters_on() and redis.call('HGET', JOB .. id, 'name') or nil)
  if events_on() then
    local job = redis.call('HMGET', JOB .. id, 'inc', 'attempts', 'name')
    emit('dead', id, job[1], tonumber(job[2]) or 0, job[3], 'reason', reason, 'error', err)
  end
end

-- mark_dead, then the dead letters' bounds kept (trim_dead).
local function to_dead(id, now, reason, err, err_type)
  mark_dead(id, now, reason, err, err_type)
  trim_dead(now)
end

-- An id whose P:item:<id> is gone: a copy left after the item completed or was cancelled. A job
-- hash (and P:leased entry) left by a redis-work-queue complete goes with it; a parked item's
-- does not.
local function drop_stale(id)
  -- pcall: a key of another type under JOB .. id is no job of ours and stays (an error value
  -- is a table, never a state).
  local state = redis.pcall('HGET', JOB .. id, 'state')
  if type(state) == 'string' and state ~= 'delayed' and state ~= 'dead' and state ~= 'grouped'
    and state ~= 'blocked' then
    redis.call('DEL', JOB .. id)
    redis.call('ZREM', LEASED, id)
  end
end

-- Checks, before promote_due(now, promote_limit) and recover_expired(now, recover_limit) write
-- anything, the waiting lists they would push to (and that each due item's record is a hash).
-- Call want_queue first. Returns the ids each would take now: passed to them when nothing
-- writes in between, it spares them reading the same ranges again.
local function want_targets(now, promote_limit, recover_limit)
  local due = redis.call('ZRANGEBYSCORE', DELAYED, '-inf', now, 'LIMIT', 0, promote_limit)
  for _, id in ipairs(due) do
    want_level(unpack(redis.call('HMGET', JOB .. id, 'priority', 'group')))
  end
  local expired = redis.call('ZRANGEBYSCORE', LEASED, '-inf', now, 'LIMIT', 0, recover_limit)
  -- (recover_expired reads the record with pcall: one of another type is a stale entry.)
  want_levels_of(expired)
  return due, expired
end

-- Due delayed items back to their waiting list, at most `limit` (`ids`: these, as want_targets
-- read them). Returns how many.
local function promote_due(now, limit, ids)
  ids = ids or redis.call('ZRANGEBYSCORE', DELAYED, '-inf', now, 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do
    redis.call('ZREM', DELAYED, id)
    if unpark(id) then
      redis.call('HSET', JOB .. id, 'state', 'waiting')
      local job = redis.call('HMGET', JOB .. id, 'priority', 'group', 'inc', 'attempts', 'name')
      push_waiting(id, job[1], job[2])
      emit('promoted', id, job[3], tonumber(job[4]) or 0, job[5])
    else
      redis.call('DEL', JOB .. id)
    end
  end
  return #ids
end

-- leaseq leases whose expiry passed, at most `limit`: a lease key still there (renewed in the
-- same millisecond, or overwritten by a redis-work-queue client) only moves its score; the
-- others count as a spent attempt: back to waiting, or dead once the attempts are used up.
-- An entry whose job record is not `leased` is stale (the record is another incarnation's, or
-- gone): it only leaves P:leased. Returns requeued, dead, removed (items completed meanwhile by
-- a client that left the record, or cancelled). `ids`: the expired ids, as want_targets read them.
local function recover_expired(now, limit, ids)
  ids = ids or redis.call('ZRANGEBYSCORE', LEASED, '-inf', now, 'LIMIT', 0, limit)
  local requeued, dead, removed = 0, 0, 0
  for _, id in ipairs(ids) do
    local ttl = redis.call('PTTL', LEASE .. id)
    -- pcall: a key of another type under JOB .. id is no job of ours (an error value is a table).
    local job = ttl <= 0 and redis.pcall('HMGET', JOB .. id, 'attempts', 'max_attempts', 'priority', 'cancelled', 'state', 'group',
      'inc', 'name')
    if ttl > 0 then
      redis.call('ZADD', LEASED, now + ttl, id)
    elseif job.err or job[5] ~= 'leased' then
      redis.call('ZREM', LEASED, id)
      removed = removed + 1
    else
      redis.call('ZREM', LEASED, id)
      redis.call('DEL', LEASE .. id)
      -- The lease of a grouped item ended: its group's slot is free (before the item may go
      -- back to the group, so that the group is put on the ring with the right count).
      if job[6] then
        release_slot(job[6])
      end
      if redis.call('EXISTS', ITEM .. id) == 0 then
        redis.call('DEL', JOB .. id)
        removed = removed + 1
      elseif job[4] then
        redis.call('DEL', ITEM .. id, JOB .. id)
        removed = removed + 1
      else
        count_event(now, 'expired')
        local attempts = tonumber(job[1]) or 0
        emit('expired', id, job[7], attempts, job[8])
        local max = max_attempts_of(job[2])
        if max > 0 and attempts >= max then
          to_dead(id, now, 'lease expired ' .. times(attempts))
          dead = dead + 1
        else
          redis.call('HSET', JOB .. id, 'state', 'waiting')
          push_waiting(id, job[3], job[6])
          requeued = requeued + 1
        end
      end
    end
  end
  return requeued, dead, removed
end
