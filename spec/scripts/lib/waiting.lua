--! include: keys config groups
-- Waiting lists: P:queue for priority 0 (shared with redis-work-queue clients), P:prio:<n> for
-- the others, with P:prios listing the levels in use. Lists are pushed at the head (LPUSH) and
-- taken from the tail, so each level is FIFO; higher levels run first.
local WAKE_TTL_MS = 3600000

-- Whether the queue is paused (P:paused exists), read once per call (begin_call forgets it).
local paused_now = nil
local function is_paused()
  if paused_now == nil then
    paused_now = redis.call('EXISTS', PAUSED) == 1
  end
  return paused_now
end

-- The list an id of priority 0 is queued on: P:queue, or P:held while the queue is paused, so
-- that redis-work-queue clients (which pop P:queue) take nothing from a paused queue.
local function level_zero_list()
  if is_paused() then
    return HELD
  end
  return QUEUE
end

-- Queues `id` at `priority`, in its group's set when it has a group (lib/groups.lua). Waiters
-- block on P:queue itself; for other levels and groups they also watch P:wake, which holds one
-- element while something may be leasable.
local function push_waiting(id, priority, group)
  if group and group ~= '' then
    push_grouped(id, priority, group)
    return
  end
  priority = tonumber(priority) or 0
  if priority == 0 then
    redis.call('LPUSH', level_zero_list(), id)
  else
    -- The shared keys first, the id last: a key of another type fails the call before the id
    -- is listed (a level in P:prios without a list is harmless, pop_waiting drops it).
    local wake_empty = redis.call('LLEN', WAKE) == 0
    redis.call('ZADD', PRIOS, priority, priority)
    if wake_empty then
      redis.call('RPUSH', WAKE, '1')
    end
    redis.call('PEXPIRE', WAKE, WAKE_TTL_MS)
    redis.call('LPUSH', PRIO .. priority, id)
    -- Another level is in use now: in whichever database this is, so in every one of the
    -- queue's hints (a stale true costs one EXISTS; a stale false would skip the level).
    for _, h in pairs(queue_hints().dbs) do
      h.prios = true
    end
  end
end

-- An item due at `due` is about to join P:delayed: when it is due before every item there, a
-- waiting lease, whose wait ends when the earliest due item it saw is due (4.4's wait_ms), is
-- woken (P:wake) to look again and wait for this one instead. A later due time wakes nobody:
-- every waiter wakes by then already. (A key of another type was checked by want_queue.)
local woke_now = nil
local function wake_for_due(due)
  local first = redis.call('ZRANGE', DELAYED, 0, 0, 'WITHSCORES')
  if first[2] and tonumber(first[2]) <= due then
    return
  end
  -- A lease part of this same call that finds nothing keeps it (lib/lease.lua).
  woke_now = true
  if redis.call('LLEN', WAKE) == 0 then
    redis.call('RPUSH', WAKE, '1')
  end
  redis.call('PEXPIRE', WAKE, WAKE_TTL_MS)
end

-- The earliest due time of `pairs` (score, member, score, member...), for wake_for_due.
local function earliest_due(pairs)
  local min = nil
  for i = 1, #pairs, 2 do
    local due = tonumber(pairs[i])
    if not min or due < min then
      min = due
    end
  end
  return min
end

-- Queues `ids` (in order, none in a group) at `priority`, as push_waiting would one after the
-- other: one LPUSH of them all (in slices of 1000), and a level's shared keys once.
local function push_waiting_many(ids, priority)
  priority = tonumber(priority) or 0
  local list = priority == 0 and level_zero_list() or PRIO .. priority
  if priority ~= 0 then
    local wake_empty = redis.call('LLEN', WAKE) == 0
    redis.call('ZADD', PRIOS, priority, priority)
    if wake_empty then
      redis.call('RPUSH', WAKE, '1')
    end
    redis.call('PEXPIRE', WAKE, WAKE_TTL_MS)
  end
  for a = 1, #ids, 1000 do
    redis.call('LPUSH', list, unpack(ids, a, math.min(a + 999, #ids)))
  end
  if priority ~= 0 then
    for _, h in pairs(queue_hints().dbs) do
      h.prios = true
    end
  end
end

-- The levels in lease order: positive levels (highest first), 0 ('held', P:held, before
-- P:queue when it exists: its ids are older), negative levels. Bounded by the number of levels
-- in use (priorities are -1000..1000).
local function levels_in_order()
  local above = redis.call('ZRANGEBYSCORE', PRIOS, '(0', '+inf')
  local below = redis.call('ZRANGEBYSCORE', PRIOS, '-inf', '(0')
  local order = {}
  for i = #above, 1, -1 do
    order[#order + 1] = tonumber(above[i])
  end
  if redis.call('EXISTS', HELD) == 1 then
    order[#order + 1] = 'held'
  end
  order[#order + 1] = 0
  for i = #below, 1, -1 do
    order[#order + 1] = tonumber(below[i])
  end
  return order
end

local function waiting_list(level)
  if level == 0 then
    return QUEUE
  elseif level == 'held' then
    return HELD
  end
  return PRIO .. level
end

-- How many ids wait, at every level (stale ids included) and in groups: at most 2003 reads.
local function waiting_count()
  local n = grouped_count()
  for _, level in ipairs(levels_in_order()) do
    n = n + redis.call('LLEN', waiting_list(level))
  end
  return n
end

-- Brings P:held in line with the pause (spec/PROTOCOL.md 5.17). Paused: P:queue's ids (pushed
-- by redis-work-queue clients, or left by an unfinished resume) go to P:held, by a RENAME when
-- P:held does not exist, else up to `max` of them. Not paused: P:held's ids go back, by a RENAME
-- when P:queue does not exist, else P:queue's newer ids are moved onto P:held's head (up to
-- `max`) until P:queue is empty, and then P:held becomes P:queue. Each move takes P:queue's
-- oldest id to P:held's newest end, so both orders are kept. Returns whether P:held is left.
local function settle_held(max)
  local held = redis.call('EXISTS', HELD) == 1
  if not held then
    if is_paused() and redis.call('EXISTS', QUEUE) == 1 then
      redis.call('RENAME', QUEUE, HELD)
      return true
    end
    return false
  end
  for _ = 1, max + 1 do
    if not redis.call('LMOVE', QUEUE, HELD, 'RIGHT', 'LEFT') then
      if is_paused() then
        return true
      end
      redis.call('RENAME', HELD, QUEUE)
      return false
    end
  end
  return true
end

-- Takes the next waiting id (h: the queue's hints in this database, db_hints): the tail of the
-- highest non-empty level. Returns id, level, or nil.
-- Levels found empty leave P:prios. With no other level in use, one RPOP of P:queue.
-- Whether other levels are in use is a hint (db_hints(db).prios): false once P:prios was
-- found empty, true again when this library pushes to another level, and forgotten by
-- housekeeping, so that levels pushed by other clients count within HOUSEKEEPING_MS.
local function other_levels(h)
  if h.prios == nil then
    h.prios = redis.call('EXISTS', PRIOS) == 1
  end
  if h.groups == nil then
    h.groups = redis.call('EXISTS', READY) == 1
  end
  return h.prios or h.held or h.groups
end

-- The next id of priority 0: P:held's first while an unfinished resume left it (h.held), else
-- P:queue's.
local function pop_level_zero(h)
  if h.held then
    local id = redis.call('RPOP', HELD)
    if id then
      return id
    end
    h.held = false
  end
  return redis.call('RPOP', QUEUE)
end

local function pop_waiting(h)
  if not other_levels(h) then
    return redis.call('RPOP', QUEUE), 0
  end
  if not h.prios then
    return pop_level_zero(h), 0
  end
  while true do
    local top = redis.call('ZREVRANGE', PRIOS, 0, 0)[1]
    top = top and tonumber(top)
    if top and top > 0 then
      local id = redis.call('RPOP', PRIO .. top)
      if id then
        return id, top
      end
      redis.call('ZREM', PRIOS, top)
    else
      local id = pop_level_zero(h)
      if id then
        return id, 0
      end
      if not top then
        h.prios = false
        return nil
      end
      id = redis.call('RPOP', PRIO .. top)
      if id then
        return id, top
      end
      redis.call('ZREM', PRIOS, top)
    end
  end
end

-- Takes up to k waiting ids (k >= 1) in lease order (h: the queue's hints in this database), as k calls of pop_waiting would. With no
-- other level in use, one RPOP of P:queue with a count: one command for the whole batch.
-- With groups in use, grouped and ungrouped ids take turns (h.turn), each side standing in
-- for the other when it has none. Returns the ids, and the group of each grouped one (its
-- slot is taken: the caller gives it back with release_slot if it does not lease the id).
local function pop_waiting_many(h, k, now)
  if not other_levels(h) then
    return redis.call('RPOP', QUEUE, k) or {}, {}
  end
  local ids, groups = {}, {}
  while #ids < k do
    local id, g
    if h.groups then
      h.turn = not h.turn
      if h.turn then
        id, g = pop_grouped(h, now)
      end
      if not id then
        id = pop_waiting(h)
      end
      if not id and not h.turn then
        id, g = pop_grouped(h, now)
      end
    else
      id = pop_waiting(h)
    end
    if not id then
      break
    end
    ids[#ids + 1] = id
    if g then
      groups[id] = g
    end
  end
  return ids, groups
end
