--! include: keys config
-- Types before writes (spec/PROTOCOL.md, 4.1, "Refused calls"). Redis keeps the writes a function
-- made before an error, so every function checks the types of the shared keys it may write, and
-- of the waiting lists it may push to, before its first write: a key of another type fails the
-- call with WRONGTYPE while nothing has changed. What a call checked is remembered for the rest
-- of that call only (begin_call forgets it; the table is made on a call's first check, so that
-- calls that check nothing allocate nothing).
local checked = nil

-- `key` needs no want for the rest of the call: a write to it, the call's first, just worked
-- (the write was its check: spec/PROTOCOL.md 4.1, Refused calls).
local function passed(key)
  checked = checked or {}
  checked[key] = true
end

-- Fails the call unless `key` is missing or holds a `kind` ('list', 'zset', 'hash', 'set').
local function want(key, kind)
  checked = checked or {}
  if checked[key] then
    return
  end
  local found = redis.call('TYPE', key)['ok']
  if found ~= kind and found ~= 'none' then
    error({err = 'WRONGTYPE leaseq: ' .. key .. ' holds a ' .. found .. ', where the queue keeps a ' .. kind})
  end
  checked[key] = true
end

-- Fails the call unless `key` is missing or holds an integer: a counter the call may INCRBY
-- (P:group_waiting, P:group_seq). A string that is no integer, or one too long for INCRBY to
-- add to, would fail that INCRBY after the call's first writes. (Up to 18 digits: every
-- counter of this protocol, far below INCRBY's limit.)
local function want_counter(key)
  checked = checked or {}
  if checked[key] then
    return
  end
  local found = redis.call('TYPE', key)['ok']
  if found == 'string' then
    local v = redis.call('GET', key)
    local digits = string.match(v, '^%-?([1-9]%d*)$')
    if v ~= '0' and not (digits and #digits <= 18) then
      error({err = 'WRONGTYPE leaseq: ' .. key .. ' holds a string that is no integer, where the queue keeps a counter'})
    end
  elseif found ~= 'none' then
    error({err = 'WRONGTYPE leaseq: ' .. key .. ' holds a ' .. found .. ', where the queue keeps a counter'})
  end
  checked[key] = true
end

-- The waiting list of a priority level (P:queue, level 0, is one of want_queue's), or of a
-- group (its sorted set) when `group` is given.
local function want_level(level, group)
  if group and group ~= '' then
    want(GROUP .. group, 'zset')
    return
  end
  level = tonumber(level) or 0
  if level ~= 0 then
    want(PRIO .. level, 'list')
  end
end

-- An id's priority level and group from its record, read with pcall: a record of another type
-- (or none) is no job of ours, and its item waits at level 0, in no group.
local function priority_of(id)
  local fields = redis.pcall('HMGET', JOB .. id, 'priority', 'group')
  if fields.err then
    return 0, nil
  end
  return fields[1] or 0, fields[2]
end

-- The waiting lists these ids would be pushed to (priority_of each).
local function want_levels_of(ids)
  for _, id in ipairs(ids) do
    want_level(priority_of(id))
  end
end

-- A partitioned queue's base is no queue (spec/PROTOCOL.md 5.25): while P:partitions holds its
-- layout, an item added at P would wait where no runner of the partitioned queue leases, and a
-- setting made there would change nothing it does. Fails the call, before its first write.
local function refuse_base()
  if redis.call('EXISTS', PARTITIONS) == 1 then
    error({err = 'PARTITIONED leaseq: ' .. PARTITIONS .. ' exists: this prefix is a partitioned queue\'s base, not a queue'})
  end
end

-- Every shared key of the queue a call may write, every waiting list in use (at most 2000
-- levels), and P:config, read here once for the call (a key of another type there fails here).
local function want_queue()
  if checked and checked[true] then
    return
  end
  want(QUEUE, 'list')
  want(PROCESSING, 'list')
  want(WAKE, 'list')
  want(LEASED, 'zset')
  want(DELAYED, 'zset')
  want(DEAD, 'zset')
  want(PRIOS, 'zset')
  -- The keys of flow control (pause, capacity, rate limits, groups): a missing key is of every
  -- type, so one EXISTS spares their TYPEs on a queue that uses none of them.
  if redis.call('EXISTS', HELD, ROOM, LIMIT, READY, READY_SET, GROUP_ACTIVE, GROUP_LIMIT,
      GROUP_PAUSED, GROUP_WAITING, GROUP_SEQ, GROUP_WAIT) > 0 then
    want(HELD, 'list')
    want(ROOM, 'list')
    want(LIMIT, 'string')
    want(READY, 'list')
    want(READY_SET, 'set')
    want(GROUP_ACTIVE, 'hash')
    want(GROUP_LIMIT, 'hash')
    want(GROUP_PAUSED, 'set')
    want_counter(GROUP_WAITING)
    want_counter(GROUP_SEQ)
    want(GROUP_WAIT, 'zset')
  end
  for _, level in ipairs(redis.call('ZRANGE', PRIOS, 0, -1)) do
    want_level(level)
  end
  config('backoff')
  checked[true] = true
end
