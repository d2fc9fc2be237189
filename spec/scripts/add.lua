--! include: keys time config guard waiting flows events adds
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
-- Modes 'plain' and 'unique_plain' (5.1) carry 2 values per item, id and data, for items
-- without options: as 'add' and 'unique' with the other 9 values '', in one LPUSH and one MSET
-- for the whole call.
-- Writes go to each key once per call where they can (5.1): the ids of one waiting list in one
-- LPUSH, in the items' order, the data in one MSET, the delayed ids in one ZADD, a group's ids
-- in one ZADD; only a record (P:job:<id>) is written per item.
local mode = ARGV[1]
local compact = mode == 'plain' or mode == 'unique_plain'
local unique = mode == 'unique' or mode == 'unique_deps' or mode == 'unique_plain'
local with_deps = mode == 'add_deps' or mode == 'unique_deps'
local cfg_priority = tonumber(config('priority')) or 0
local cfg_expires = tonumber(config('expires_after_ms'))
local now, now_text = nil, nil

-- A queue whose stored configuration gives every item an option (a priority, an expiry) has no
-- plain item: a compact call is read as its 11-value form.
if compact and (cfg_priority ~= 0 or cfg_expires) then
  local wide = {unique and 'unique' or 'add', ARGV[2], ARGV[3]}
  for i = 4, #ARGV, 2 do
    wide[#wide + 1] = ARGV[i]
    wide[#wide + 1] = ARGV[i + 1]
    for _ = 1, 9 do
      wide[#wide + 1] = ''
    end
  end
  ARGV, compact = wide, false
end
local per = with_deps and 13 or (compact and 2 or 11)

-- Modes 'plain' and 'unique_plain': every item without options. Reads: one EXISTS (with
-- 'plain'); writes: one LPUSH of the ids, then one MSET of their data. The LPUSH is the first
-- write and fails by itself on a P:queue of another type; a stale record makes it check first.
if compact and #ARGV == 5 then
  -- One item (a single add): the same steps, without the tables a batch needs.
  local id = ARGV[4]
  local key = ITEM .. id
  local old = false
  if not unique and redis.call('EXISTS', key, JOB .. id) > 0 then
    local skip
    skip, old = id_taken(id)
    if skip then
      return 0
    end
  end
  local full = no_room_for(1, ARGV[3])
  if full then
    return full
  end
  if old then
    want_queue()
    drop_stale_record(id)
  end
  redis.call('LPUSH', level_zero_list(), id)
  redis.call('SET', key, ARGV[5])
  emit('added', id, nil, 0)
  return 1
end
if compact then
  local found, keys = false, nil
  if not unique then
    found, keys = any_id_taken(ARGV, per)
  end
  local ids, values, stale, seen = {}, {}, {}, {}
  for i = 4, #ARGV, 2 do
    local id = ARGV[i]
    local skip, old = false, false
    if not unique then
      if seen[id] then
        skip = true
      elseif found then
        skip, old = id_taken(id)
      end
      seen[id] = true
    end
    if not skip then
      local n = #ids + 1
      ids[n] = id
      values[2 * n - 1] = keys and keys[i - 3] or ITEM .. id
      values[2 * n] = ARGV[i + 1]
      if old then
        stale[#stale + 1] = id
      end
    end
  end
  local full = no_room_for(#ids, ARGV[3])
  if full then
    return full
  end
  if #ids == 0 then
    return 0
  end
  if #stale > 0 then
    want_queue()
    for _, id in ipairs(stale) do
      drop_stale_record(id)
    end
  end
  call_sliced('LPUSH', level_zero_list(), ids, 1)
  call_sliced('MSET', nil, values, 2)
  if events_on() then
    for _, id in ipairs(ids) do
      emit('added', id, nil, 0)
    end
  end
  return #ids
end

-- First, reads only: which items are added, and the type of every shared key they will be
-- written to (lib/guard.lua), so that a refused call adds nothing, whole batch included. A
-- repeated id is added once (with 'add'). A batch of plain items needs no check: its first
-- write is an LPUSH of P:queue, which fails by itself before anything changes.
local plan, seen, checks = {}, {}, false
local planned = {}
local found = false
if not unique then
  found = any_id_taken(ARGV, per)
end
for i = 4, #ARGV, per do
  local id = ARGV[i]
  local skip, stale = false, false
  if not unique then
    if seen[id] then
      skip = true
    elseif found then
      skip, stale = id_taken(id)
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
local full = no_room_for(#plan, ARGV[3])
if full then
  return full
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

-- The record of plan entry `p` (an item with options): its fields, and its due time.
local function record(p)
  local i = p.i
  local delay, run_at = ARGV[i + 2], ARGV[i + 3]
  local max, backoff, keep = ARGV[i + 5], ARGV[i + 6], ARGV[i + 8]
  if not now then
    now = now_ms()
  end
  local due = tonumber(run_at) or (tonumber(delay) and now + tonumber(delay)) or now
  local fields = {'inc', ARGV[2] .. ':' .. ((i - 4) / per + 1), 'attempts', '0', 'added', text(now)}
  if p.level ~= 0 then put(fields, 'priority', text(p.level)) end
  if max ~= '' then put(fields, 'max_attempts', max) end
  if backoff ~= '' then put(fields, 'backoff', backoff) end
  if p.expires then put(fields, 'expires_at', text(now + p.expires)) end
  if keep ~= '' then put(fields, 'keep_result_ms', keep) end
  if p.group then put(fields, 'group', p.group) end
  if ARGV[i + 10] ~= '' then put(fields, 'name', ARGV[i + 10]) end
  if p.dependants then put(fields, 'dependants', 1) end
  if p.deps then
    put(fields, 'depends_on', ARGV[i + 11])
    if ARGV[i + 12] == 'run' then put(fields, 'on_dependency_failure', 'run') end
  end
  return fields, due, function(name, value)
    put(fields, name, value)
  end
end

-- Then the writes, item by item (the modes with dependencies, whose items may wait for each
-- other). An item without options is stored as redis-work-queue stores one.
if with_deps then
  for _, p in ipairs(plan) do
    local i = p.i
    local id, data = ARGV[i], ARGV[i + 1]
    if p.stale then
      drop_stale_record(id)
    end
    if p.plain then
      redis.call('LPUSH', level_zero_list(), id)
      redis.call('SET', ITEM .. id, data)
      emit('added', id, nil, 0)
    else
      local fields, due, field = record(p)
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
end

-- Otherwise the writes by key: each record (HSET) as its item comes, then each waiting list's
-- ids in one LPUSH (items' order kept), the data in one MSET, P:delayed in one ZADD, and each
-- group's ids in one ZADD, the group's counters once. The same keys and values as item by item.
-- With 'add', an item added to a group is new (no P:item:, no record left): its place in the
-- group's order is drawn here, one INCRBY for the call; with 'unique' it goes item by item
-- (push_waiting), as it may replace an item.
local events = events_on()
local lists, list_order = {}, {}
local strings, delayed, notes = {}, {}, {}
local grouped, group_order, seq = {}, {}, nil
local in_groups = 0
local function listed(level, id)
  local ids = lists[level]
  if not ids then
    ids = {}
    lists[level] = ids
    list_order[#list_order + 1] = level
  end
  ids[#ids + 1] = id
end
local function note(...)
  if events then
    notes[#notes + 1] = {...}
  end
end
-- The records first (reads the clock once), and how many items join a group here.
local in_groups_total = 0
for _, p in ipairs(plan) do
  if not p.plain then
    p.fields, p.due = record(p)
    if p.group and p.due <= now then
      in_groups_total = in_groups_total + 1
    end
  end
end
for _, p in ipairs(plan) do
  local i = p.i
  local id, data = ARGV[i], ARGV[i + 1]
  if p.stale then
    drop_stale_record(id)
  end
  if p.plain then
    listed(0, id)
    strings[#strings + 1] = ITEM .. id
    strings[#strings + 1] = data
    note('added', id, nil, 0)
  else
    local fields, due = p.fields, p.due
    if due > now then
      due = text(due)
      put(fields, 'state', 'delayed')
      put(fields, 'due', due)
      redis.call('HSET', JOB .. id, unpack(fields))
      delayed[#delayed + 1] = due
      delayed[#delayed + 1] = id
      strings[#strings + 1] = DATA .. id
      strings[#strings + 1] = data
      note('delayed', id, fields[2], 0, ARGV[i + 10], 'due', due)
    elseif p.group and unique then
      put(fields, 'state', 'grouped')
      redis.call('HSET', JOB .. id, unpack(fields))
      redis.call('SET', DATA .. id, data)
      push_waiting(id, p.level, p.group)
      note('added', id, fields[2], 0, ARGV[i + 10])
    elseif p.group then
      -- Waiting in its group: the data parked, the record `grouped` with its place in the
      -- group's order (lib/groups.lua's push_grouped, for a new item).
      if not seq then
        seq = redis.call('INCRBY', GROUP_SEQ, in_groups_total) - in_groups_total
      end
      seq = seq + 1
      put(fields, 'state', 'grouped')
      put(fields, 'group_seq', seq)
      redis.call('HSET', JOB .. id, unpack(fields))
      strings[#strings + 1] = DATA .. id
      strings[#strings + 1] = data
      local members = grouped[p.group]
      if not members then
        members = {}
        grouped[p.group] = members
        group_order[#group_order + 1] = p.group
      end
      members[#members + 1] = (1000 - p.level) * GROUP_RANK + seq
      members[#members + 1] = id
      in_groups = in_groups + 1
      note('added', id, fields[2], 0, ARGV[i + 10])
    else
      put(fields, 'state', 'waiting')
      redis.call('HSET', JOB .. id, unpack(fields))
      listed(p.level, id)
      strings[#strings + 1] = ITEM .. id
      strings[#strings + 1] = data
      note('added', id, fields[2], 0, ARGV[i + 10])
    end
  end
end
for _, level in ipairs(list_order) do
  push_waiting_many(lists[level], level)
end
if #strings > 0 then
  call_sliced('MSET', nil, strings, 2)
end
if #delayed > 0 then
  call_sliced('ZADD', DELAYED, delayed, 2)
end
if in_groups > 0 then
  for _, g in ipairs(group_order) do
    call_sliced('ZADD', GROUP .. g, grouped[g], 2)
  end
  redis.call('INCRBY', GROUP_WAITING, in_groups)
  for _, g in ipairs(group_order) do
    group_check(g)
  end
end
for _, e in ipairs(notes) do
  emit(unpack(e, 1, 7))
end
return #plan
