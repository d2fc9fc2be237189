--! include: keys time config guard waiting flows events
--! flags:
-- add, add_unique, add_batch. ARGV: mode ('add' or 'unique'), incarnation base, later (how many
-- items the same batch carries in the calls after this one: '0' but for a batch of more than
-- 1000), then 11 values per item: id, data, delay_ms, run_at_ms, priority, max_attempts, backoff,
-- expires_after_ms, keep_result_ms, group, name ('' for "not set"). Returns how many items were added.
-- A bounded queue (P:config capacity) refuses the whole call with a FULL error when its waiting
-- and delayed items plus those added here and later would pass the capacity (5.18).
-- An item without options is stored as redis-work-queue stores one (P:item:<id> and P:queue),
-- with no other key. An option puts its values in P:job:<id>; a due time in the future parks
-- the data at P:data:<id> and lists the id in P:delayed.
-- Modes 'add_deps' and 'unique_deps' (5.24) carry 13 values per item: the 11, then depends_on
-- (ids joined by a newline, '' for none) and on_dependency_failure ('run', or '' for 'fail').
local unique = ARGV[1] == 'unique' or ARGV[1] == 'unique_deps'
local with_deps = ARGV[1] == 'add_deps' or ARGV[1] == 'unique_deps'
local per = with_deps and 13 or 11
local cfg_priority = tonumber(config('priority')) or 0
local cfg_expires = tonumber(config('expires_after_ms'))
local now = nil

-- Whether an item with this id exists: waiting or leased (P:item:), delayed or dead (P:job:).
-- Returns taken, and whether a job hash (and P:leased entry) left behind by a redis-work-queue
-- complete is stale and goes. Reads only.
local function taken(id)
  if redis.call('EXISTS', ITEM .. id, JOB .. id) == 0 then
    return false, false
  end
  if redis.call('EXISTS', ITEM .. id) == 1 then
    return true, false
  end
  local state = redis.call('HGET', JOB .. id, 'state')
  if state == 'delayed' or state == 'dead' or state == 'grouped' or state == 'blocked' then
    return true, false
  end
  return false, true
end

-- First, reads only: which items are added, and the type of every shared key they will be
-- written to (lib/guard.lua), so that a refused call adds nothing, whole batch included. A
-- repeated id is added once (with 'add'). A batch of plain items needs no check: its first
-- write is an LPUSH of P:queue, which fails by itself before anything changes.
local plan, seen, checks = {}, {}, false
local planned = {}
for i = 4, #ARGV, per do
  local id = ARGV[i]
  local skip, stale = false, false
  if not unique then
    if seen[id] then
      skip = true
    else
      skip, stale = taken(id)
    end
    seen[id] = true
  end
  if not skip then
    local delay, run_at, priority = ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
    local max, backoff, expires_after, keep = ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8]
    local group = ARGV[i + 9] ~= '' and ARGV[i + 9] or nil
    local level = tonumber(priority) or cfg_priority
    local expires = tonumber(expires_after) or cfg_expires
    local plain = delay == '' and run_at == '' and level == 0 and max == '' and backoff == ''
      and not expires and keep == '' and not group and ARGV[i + 10] == ''
    plan[#plan + 1] = {i = i, level = level, expires = expires, plain = plain, stale = stale, group = group}
    if with_deps and ARGV[i + 11] ~= '' then
      plan_dependencies(plan[#plan], id, ARGV[i + 11], ARGV[i + 12], planned)
    end
    planned[id] = plan[#plan]
    checks = checks or stale or not plan[#plan].plain
  end
end
-- A bounded queue: room for every item of the batch, or nothing is written.
local capacity = tonumber(config('capacity'))
if capacity and #plan > 0 then
  local size = waiting_count() + redis.call('ZCARD', DELAYED)
  local wanted = #plan + (tonumber(ARGV[3]) or 0)
  if size + wanted > capacity then
    -- A producer that waits for room blocks on P:room next: the next lease sets it again.
    redis.call('DEL', ROOM)
    return redis.error_reply('FULL leaseq: the queue holds ' .. size .. ' of its capacity ' .. capacity
      .. '; ' .. wanted .. ' more do not fit')
  end
end
if checks then
  want_queue()
  for _, p in ipairs(plan) do
    want_level(p.level, p.group)
    if unique and not p.plain then
      want(JOB .. ARGV[p.i], 'hash')
    end
    want_dependencies(p)
  end
end

-- Then the writes. An item without options is stored as redis-work-queue stores one.
for _, p in ipairs(plan) do
  local i = p.i
  local id, data = ARGV[i], ARGV[i + 1]
  if p.stale then
    redis.call('DEL', JOB .. id)
    redis.call('ZREM', LEASED, id)
  end
  if p.plain then
    redis.call('LPUSH', level_zero_list(), id)
    redis.call('SET', ITEM .. id, data)
    emit('added', id, nil, 0)
  else
    local delay, run_at = ARGV[i + 2], ARGV[i + 3]
    local max, backoff, keep = ARGV[i + 5], ARGV[i + 6], ARGV[i + 8]
    now = now or now_ms()
    local due = tonumber(run_at) or (tonumber(delay) and now + tonumber(delay)) or now
    local fields = {'inc', ARGV[2] .. ':' .. ((i - 4) / per + 1), 'attempts', 0, 'added', now}
    local function field(name, value)
      fields[#fields + 1] = name
      fields[#fields + 1] = value
    end
    if p.level ~= 0 then field('priority', p.level) end
    if max ~= '' then field('max_attempts', max) end
    if backoff ~= '' then field('backoff', backoff) end
    if p.expires then field('expires_at', now + p.expires) end
    if keep ~= '' then field('keep_result_ms', keep) end
    if p.group then field('group', p.group) end
    if ARGV[i + 10] ~= '' then field('name', ARGV[i + 10]) end
    if p.dependants then field('dependants', 1) end
    if p.deps then
      field('depends_on', ARGV[i + 11])
      if ARGV[i + 12] == 'run' then field('on_dependency_failure', 'run') end
    end
    if p.deps and (#p.pending > 0 or p.failed) then
      -- Blocked (5.24): the data parked, the record `blocked`, its own due time kept for later.
      field('state', 'blocked')
      if due > now then field('due', due) end
      add_blocked(id, data, fields, p, now)
      if not p.failed then
        emit('blocked', id, fields[2], 0, ARGV[i + 10])
      end
    elseif due > now then
      field('state', 'delayed')
      field('due', due)
      redis.call('ZADD', DELAYED, due, id)
      redis.call('HSET', JOB .. id, unpack(fields))
      redis.call('SET', DATA .. id, data)
      emit('delayed', id, fields[2], 0, ARGV[i + 10], 'due', due)
    elseif p.group then
      -- Waiting in its group: the data parked, the record `grouped` (lib/groups.lua).
      field('state', 'grouped')
      redis.call('HSET', JOB .. id, unpack(fields))
      redis.call('SET', DATA .. id, data)
      push_waiting(id, p.level, p.group)
      emit('added', id, fields[2], 0, ARGV[i + 10])
    else
      field('state', 'waiting')
      push_waiting(id, p.level)
      redis.call('HSET', JOB .. id, unpack(fields))
      redis.call('SET', ITEM .. id, data)
      emit('added', id, fields[2], 0, ARGV[i + 10])
    end
  end
end
return #plan
