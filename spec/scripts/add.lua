--! include: keys time config guard waiting(paused_now) flows events adds
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
-- Modes 'plain' and 'unique_plain' (5.1) carry 2 values per item for items without options,
-- the call's ids and then their data ('plain': the ids distinct): as 'add' and 'unique' with
-- the other 9 values '', in one LPUSH and one MSETNX (or MSET) for the whole call.
-- Modes 'shared' and 'shared_group' (5.1) carry the 9 option values once, then 2 values per item
-- (id, data), or 3 with 'shared_group' (id, data, group): as 'add' with every item's 11 values
-- made of its own and the shared ones.
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

-- The compact modes carry the call's ids, then as many data values (5.1).
if compact and (#ARGV - 3) % 2 ~= 0 then
  return redis.error_reply('ERR leaseq: a plain add takes its ids, then as many data values')
end

-- A queue whose stored configuration gives every item an option (a priority, an expiry) has no
-- plain item: a compact call is read as its 11-value form.
if compact and (cfg_priority ~= 0 or cfg_expires) then
  local wide = {unique and 'unique' or 'add', ARGV[2], ARGV[3]}
  local n = (#ARGV - 3) / 2
  for k = 1, n do
    wide[#wide + 1] = ARGV[3 + k]
    wide[#wide + 1] = ARGV[3 + n + k]
    for _ = 1, 9 do
      wide[#wide + 1] = ''
    end
  end
  ARGV, compact = wide, false
end
local per = with_deps and 13 or (compact and 2 or 11)

-- Modes 'plain' and 'unique_plain': every item without options. Reads: one EXISTS (with
-- 'plain'); writes: one LPUSH of the ids, then one MSETNX (or MSET) of their data. The LPUSH is
-- the first write and fails by itself on a P:queue of another type; a stale record makes it
-- check first.
if compact and #ARGV == 5 then
  -- One item (a single add): the same steps, without the tables a batch needs. With 'plain',
  -- one EXISTS also reads P:paused and P:partitions: 0 is the common case (the id free, the
  -- queue not paused, and no partitioned queue's base); else the base (refuse_base), the id
  -- (id_taken) and the pause (level_zero_list) are read on their own.
  local id = ARGV[4]
  local key = ITEM .. id
  local old = false
  if unique then
    refuse_base()
  else
    if redis.call('EXISTS', key, JOB .. id, PAUSED, PARTITIONS) == 0 then
      paused_now = false
    else
      refuse_base()
      local skip
      skip, old = id_taken(id)
      if skip then
        return 0
      end
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
-- Every other add: one EXISTS per call (5.25).
refuse_base()
-- The 'added' entries of the ids list[first..last], in order, when the queue's events are on.
local function emit_added(list, first, last)
  if events_on() then
    for i = first, last do
      emit('added', list[i], nil, 0)
    end
  end
end

if compact then
  -- A batch: the ids first, then their data in the same order (5.1).
  local argv = ARGV
  local n = (#argv - 3) / 2
  if n == 0 then
    return 0
  end
  -- The common case of 'plain', whose caller sends distinct ids: no P:job: key of the call
  -- exists, the LPUSH of the ids is the first write (and the check of the list's type), and
  -- one MSETNX writes every P:item: key, none of which exists (else it writes none, the LPUSH
  -- is taken back with one LPOP, and the ids are looked at one by one below). A bounded queue,
  -- which counts its room first, goes below at once.
  if not unique and n <= ADD_SLICE and not config('capacity') then
    local jobs, values, job, item = {}, {}, JOB, ITEM
    for k = 1, n do
      local id = argv[3 + k]
      jobs[k] = job .. id
      values[2 * k - 1], values[2 * k] = item .. id, argv[3 + n + k]
    end
    if redis.call('EXISTS', unpack(jobs)) == 0 then
      local list = level_zero_list()
      redis.call('LPUSH', list, unpack(argv, 4, 3 + n))
      -- (With redis.pcall: a user whose ACL lacks MSETNX takes the path below, as when an
      -- id is taken.)
      if redis.pcall('MSETNX', unpack(values)) == 1 then
        emit_added(argv, 4, 3 + n)
        return n
      end
      redis.call('LPOP', list, n)
    end
  end
  local found, keys = false, nil
  if not unique then
    found, keys = any_id_taken(argv, 1, 3 + n)
  end
  local ids, values, stale, seen = {}, {}, {}, {}
  -- Which ids the call skips (skipped): an id taken, or repeated in the call.
  local added = 0
  for k = 1, n do
    local id = argv[3 + k]
    local skip, old = false, false
    if found then
      skip, old = skipped(id, unique, seen, found)
    elseif not unique then
      skip = seen[id]
      seen[id] = true
    end
    if not skip then
      added = added + 1
      ids[added] = id
      values[2 * added - 1] = keys and keys[2 * k - 1] or ITEM .. id
      values[2 * added] = argv[3 + n + k]
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
  emit_added(ids, 1, #ids)
  return #ids
end

-- The due time of the item at ARGV[i] (ms; `now` for an item due at once). Reads the clock
-- once per call.
local function due_of(i)
  if not now then
    now = now_ms()
  end
  local run_at, delay = ARGV[i + 3], ARGV[i + 2]
  return tonumber(run_at) or (tonumber(delay) and now + tonumber(delay)) or now
end

-- The record of plan entry `p` (an item with options), written into `f` from f[1] (a table
-- the caller may reuse from item to item): returns how many values it holds, the due time, and
-- the incarnation (`inc`, when given, instead of the item's own: the shared modes set each
-- item's in turn).
local function record(p, f, inc)
  local i = p.i
  local max, backoff, keep = ARGV[i + 5], ARGV[i + 6], ARGV[i + 8]
  local due = due_of(i)
  inc = inc or ARGV[2] .. inc_suffix((i - 4) / per + 1)
  f[1], f[2], f[3], f[4], f[5], f[6] = 'inc', inc, 'attempts', '0', 'added', number_text(now)
  local n = 6
  if p.level ~= 0 then f[n + 1], f[n + 2], n = 'priority', number_text(p.level), n + 2 end
  if max ~= '' then f[n + 1], f[n + 2], n = 'max_attempts', max, n + 2 end
  if backoff ~= '' then f[n + 1], f[n + 2], n = 'backoff', backoff, n + 2 end
  if p.expires then f[n + 1], f[n + 2], n = 'expires_at', number_text(now + p.expires), n + 2 end
  if keep ~= '' then f[n + 1], f[n + 2], n = 'keep_result_ms', keep, n + 2 end
  if p.group then f[n + 1], f[n + 2], n = 'group', p.group, n + 2 end
  if ARGV[i + 10] ~= '' then f[n + 1], f[n + 2], n = 'name', ARGV[i + 10], n + 2 end
  if p.dependants then f[n + 1], f[n + 2], n = 'dependants', 1, n + 2 end
  if p.deps then
    f[n + 1], f[n + 2], n = 'depends_on', ARGV[i + 11], n + 2
    if ARGV[i + 12] == 'run' then f[n + 1], f[n + 2], n = 'on_dependency_failure', 'run', n + 2 end
  end
  return n, due, inc
end

-- Modes 'shared' and 'shared_group' (5.1): items with the same options, sent once. ARGV after
-- `later` holds the 9 option values of the 11-value form (delay_ms to name), then 2 values per
-- item (id, data), or with 'shared_group' 3 (id, data, group: each item's own group; the
-- shared group is ''). The common case (no key of any id exists, every item has an option, with
-- 'shared_group' every item a group) is written here: the same keys and values as the 11-value
-- form, with one record table for the call. Any other call goes on as its 11-value form.
local shared_taken = false
if mode == 'shared' or mode == 'shared_group' then
  local own = mode == 'shared_group'
  local step, first = own and 3 or 2, 13
  local argv = ARGV
  -- The shared options, where an item of the 11-value form at i = 2 has its own.
  local p = {i = 2, level = tonumber(argv[6]) or cfg_priority, expires = tonumber(argv[9]) or cfg_expires,
    group = (not own and argv[11] ~= '') and argv[11] or nil}
  local common = not (argv[4] == '' and argv[5] == '' and p.level == 0 and argv[7] == '' and argv[8] == ''
    and not p.expires and argv[10] == '' and not p.group and argv[12] == '' and not own)
  -- Which items are added (`at`, their places in ARGV): an id repeated in the call is added
  -- once, at its first place.
  local keys, k, at, seen, count = {}, 0, {}, {}, 0
  for i = first, #argv, step do
    local id = argv[i]
    keys[k + 1], keys[k + 2], k = ITEM .. id, JOB .. id, k + 2
    if own and argv[i + 2] == '' then
      common = false
    end
    if not seen[id] then
      seen[id] = true
      count = count + 1
      at[count] = i
    end
  end
  if common and call_sliced('EXISTS', nil, keys, 2) > 0 then
    common, shared_taken = false, true
  end
  if common then
    if count == 0 then
      return 0
    end
    local full = no_room_for(count, argv[3])
    if full then
      return full
    end
    want_queue()
    local wanted = {}
    for _, i in ipairs(at) do
      local g = own and argv[i + 2] or p.group
      if not wanted[g or ''] then
        wanted[g or ''] = true
        want_level(p.level, g)
      end
    end
    -- The record of every item: what record() writes for the shared options (with the first
    -- item's group in its place with 'shared_group'), each item's own values set in turn.
    if own then
      p.group = argv[first + 2]
    end
    local f = {}
    local n, due = record(p, f, '')
    local group_at
    if own then
      for j = 7, n, 2 do
        if f[j] == 'group' then
          group_at = j + 1
        end
      end
    end
    local delayed = due > now
    local state, extra, extra_value = 'waiting', nil, nil
    if delayed then
      state, extra, extra_value = 'delayed', 'due', number_text(due)
    elseif p.group then
      state, extra = 'grouped', 'group_seq'
    end
    f[n + 1], f[n + 2] = 'state', state
    local m = n + 2
    if extra then
      f[n + 3], f[n + 4], m = extra, extra_value, n + 4
    end
    local seq
    if state == 'grouped' then
      seq = redis.call('INCRBY', GROUP_SEQ, count) - count
    end
    local events = events_on()
    local base, name = argv[2], argv[12]
    local ids, strings, zadd, notes = {}, {}, {}, {}
    local grouped, group_order, rank = {}, {}, (1000 - p.level) * GROUP_RANK
    local parked = delayed or state == 'grouped'
    for c, i in ipairs(at) do
      local id = argv[i]
      local pos = (i - first) / step + 1
      local inc = base .. inc_suffix(pos)
      f[2] = inc
      if group_at then
        f[group_at] = argv[i + 2]
      end
      if seq then
        seq = seq + 1
        f[n + 4] = decimal(seq)
      end
      redis.call('HSET', keys[2 * pos], unpack(f, 1, m))
      strings[2 * c - 1] = parked and DATA .. id or keys[2 * pos - 1]
      strings[2 * c] = argv[i + 1]
      if delayed then
        zadd[2 * c - 1], zadd[2 * c] = extra_value, id
      elseif seq then
        group_member(grouped, group_order, own and argv[i + 2] or p.group, decimal(rank + seq), id)
      else
        ids[c] = id
      end
      if events then
        notes[c] = inc
      end
    end
    if #ids > 0 then
      push_waiting_many(ids, p.level)
    end
    call_sliced('MSET', nil, strings, 2)
    if delayed then
      wake_for_due(earliest_due(zadd))
      call_sliced('ZADD', DELAYED, zadd, 2)
    end
    if seq then
      join_groups(grouped, group_order, count)
    end
    if events then
      for c, i in ipairs(at) do
        if delayed then
          emit('delayed', argv[i], notes[c], 0, name, 'due', extra_value)
        else
          emit('added', argv[i], notes[c], 0, name)
        end
      end
    end
    return count
  end
  -- Otherwise the 11-value form of the same items.
  local wide = {'add', argv[2], argv[3]}
  for i = first, #argv, step do
    wide[#wide + 1] = argv[i]
    wide[#wide + 1] = argv[i + 1]
    for j = 4, 12 do
      wide[#wide + 1] = (own and j == 11) and argv[i + 2] or argv[j]
    end
  end
  ARGV, mode, per = wide, 'add', 11
end

-- First, reads only: which items are added, and the type of every shared key they will be
-- written to (lib/guard.lua), so that a refused call adds nothing, whole batch included. A
-- repeated id is added once (with 'add'). A batch of plain items needs no check: its first
-- write is an LPUSH of P:queue, which fails by itself before anything changes.
local plan, seen, checks = {}, {}, false
local planned = {}
local found = false
if not unique then
  -- (A shared call that comes here after its EXISTS found a key: the same EXISTS, not again.)
  found = shared_taken or any_id_taken(ARGV, per, #ARGV)
end
for i = 4, #ARGV, per do
  local id = ARGV[i]
  local skip, stale = skipped(id, unique, seen, found)
  if not skip then
    local delay, run_at, priority = ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
    local max, backoff, expires_after, keep = ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8]
    local group = ARGV[i + 9] ~= '' and ARGV[i + 9] or nil
    local level = tonumber(priority) or cfg_priority
    local expires = tonumber(expires_after) or cfg_expires
    local plain = delay == '' and run_at == '' and level == 0 and max == '' and backoff == ''
      and not expires and keep == '' and not group and ARGV[i + 10] == ''
    local p = {i = i, level = level, expires = expires, plain = plain, stale = stale, group = group}
    plan[#plan + 1] = p
    if with_deps then
      if ARGV[i + 11] ~= '' then
        plan_dependencies(p, id, ARGV[i + 11], ARGV[i + 12], planned)
      end
      planned[id] = p
    end
    checks = checks or stale or not p.plain
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
      local fields = {}
      local n, due = record(p, fields)
      local function field(name, value)
        fields[n + 1], fields[n + 2], n = name, value, n + 2
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
        wake_for_due(due)
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
-- How many items join a group here (a grouped item due now).
local in_groups_total = 0
for _, p in ipairs(plan) do
  if p.group and not p.plain and due_of(p.i) <= now then
    in_groups_total = in_groups_total + 1
  end
end
-- One table holds each record in turn, up to n (what an earlier record left after n is not sent).
local f = {}
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
    local n, due, inc = record(p, f)
    if due > now then
      due = number_text(due)
      f[n + 1], f[n + 2], f[n + 3], f[n + 4] = 'state', 'delayed', 'due', due
      redis.call('HSET', JOB .. id, unpack(f, 1, n + 4))
      delayed[#delayed + 1] = due
      delayed[#delayed + 1] = id
      strings[#strings + 1] = DATA .. id
      strings[#strings + 1] = data
      note('delayed', id, inc, 0, ARGV[i + 10], 'due', due)
    elseif p.group and unique then
      f[n + 1], f[n + 2] = 'state', 'grouped'
      redis.call('HSET', JOB .. id, unpack(f, 1, n + 2))
      redis.call('SET', DATA .. id, data)
      push_waiting(id, p.level, p.group)
      note('added', id, inc, 0, ARGV[i + 10])
    elseif p.group then
      -- Waiting in its group: the data parked, the record `grouped` with its place in the
      -- group's order (lib/groups.lua's push_grouped, for a new item).
      if not seq then
        seq = redis.call('INCRBY', GROUP_SEQ, in_groups_total) - in_groups_total
      end
      seq = seq + 1
      f[n + 1], f[n + 2], f[n + 3], f[n + 4] = 'state', 'grouped', 'group_seq', decimal(seq)
      redis.call('HSET', JOB .. id, unpack(f, 1, n + 4))
      strings[#strings + 1] = DATA .. id
      strings[#strings + 1] = data
      group_member(grouped, group_order, p.group, decimal((1000 - p.level) * GROUP_RANK + seq), id)
      in_groups = in_groups + 1
      note('added', id, inc, 0, ARGV[i + 10])
    else
      f[n + 1], f[n + 2] = 'state', 'waiting'
      redis.call('HSET', JOB .. id, unpack(f, 1, n + 2))
      listed(p.level, id)
      strings[#strings + 1] = ITEM .. id
      strings[#strings + 1] = data
      note('added', id, inc, 0, ARGV[i + 10])
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
  wake_for_due(earliest_due(delayed))
  call_sliced('ZADD', DELAYED, delayed, 2)
end
if in_groups > 0 then
  join_groups(grouped, group_order, in_groups)
end
for _, e in ipairs(notes) do
  emit(unpack(e, 1, 7))
end
return #plan
