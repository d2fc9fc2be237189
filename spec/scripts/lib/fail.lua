--! include: keys guard rate groups outcome jobs flows events
-- Failing one leased item (spec/PROTOCOL.md, 5.6). mode is 'retry' or 'dead'; delay_ms comes
-- from the client (the item's backoff).
-- trace is the failure's traceback or stack (nil or '': none, and an earlier one is removed).
-- Returns {1, due_ms} (retry), {2, 0} (dead) or {outcome code, 0}.
local function fail_item(id, token, inc, mode, delay_ms, err, err_type, now, trace)
  local holder = redis.call('GET', LEASE .. id)
  local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled', 'attempts', 'max_attempts', 'priority',
    'group', 'name')
  if holder ~= token or job[1] ~= inc then
    return {lost_outcome(id, inc, holder, job[1], job[2]), 0}
  end
  if job[2] then
    drop_cancelled(id, job[6])
    return {-3, 0}
  end
  -- Every write below is checked first (lib/guard.lua), the waiting list of its level too.
  want_queue()
  want_level(job[5], job[6])
  -- This holder's lease ends here: its group's slot is free.
  if job[6] then
    release_slot(job[6])
  end
  count_event(now, 'failed', nil, job[7])
  redis.call('HSET', JOB .. id, 'error', err, 'error_type', err_type)
  if trace and trace ~= '' then
    redis.call('HSET', JOB .. id, 'trace', trace)
  else
    redis.call('HDEL', JOB .. id, 'trace')
  end
  local attempts = tonumber(job[3]) or 1
  local max = max_attempts_of(job[4])
  emit('failed', id, inc, attempts, job[7], 'error', err)
  if mode ~= 'retry' then
    to_dead(id, now, 'failed without retry')
    settle_now(now)
    return {2, 0}
  end
  if max > 0 and attempts >= max then
    to_dead(id, now, 'failed ' .. times(attempts))
    settle_now(now)
    return {2, 0}
  end
  local due = requeue_after(id, now, delay_ms, job[5], job[6])
  emit('retrying', id, inc, attempts, job[7], 'due', due)
  return {1, due}
end
