--! include: keys config waiting groups
-- add.lua's helpers (spec/PROTOCOL.md 5.1), defined once with the library rather than on every
-- call of add.
-- At most this many items' values per command: unpack's stack allows 8000 values.
local ADD_SLICE = 1000

-- Runs `command [first] values...` over `values` in slices of ADD_SLICE * width values (width: the
-- values of one item); returns the sum of the integer replies.
local function call_sliced(command, first, values, width)
  local total, step = 0, ADD_SLICE * width
  for a = 1, #values, step do
    local b = math.min(a + step - 1, #values)
    local reply
    if first then
      reply = redis.call(command, first, unpack(values, a, b))
    else
      reply = redis.call(command, unpack(values, a, b))
    end
    if type(reply) == 'number' then
      total = total + reply
    end
  end
  return total
end

-- Whether an item with this id exists: waiting or leased (P:item:), delayed or dead (P:job:).
-- Returns taken, and whether a job hash (and P:leased entry) left behind by a redis-work-queue
-- complete is stale and goes. Reads only.
local function id_taken(id)
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

-- Whether an add call skips the item `id` (with 'add'; 'unique' skips nothing): an id seen
-- earlier in the call, or one id_taken finds (looked at only when `found`, the call's one
-- EXISTS found some key). Returns skip, and whether a stale record goes (id_taken). Marks `id`
-- in `seen`. Reads only.
local function skipped(id, unique, seen, found)
  if unique then
    return false, false
  end
  local skip, stale = false, false
  if seen[id] then
    skip = true
  elseif found then
    skip, stale = id_taken(id)
  end
  seen[id] = true
  return skip, stale
end

-- Step 1 for a whole add call: one EXISTS of the P:item: and P:job: keys of every item of
-- `args` (add.lua's ARGV: an item's id every `per` values from args[4], the last id at or
-- before args[last]). Returns whether any exists (then each item is looked at with id_taken),
-- and the keys (P:item:<id> of the k-th item at 2k - 1).
local function any_id_taken(args, per, last)
  local keys, k, item, job = {}, 0, ITEM, JOB
  for i = 4, last, per do
    local id = args[i]
    keys[k + 1], keys[k + 2], k = item .. id, job .. id, k + 2
  end
  return call_sliced('EXISTS', nil, keys, 2) > 0, keys
end

-- A bounded queue: room for `count` items and `later` more (add.lua's ARGV[3], the items of
-- the batch's later calls), or the error to reply.
local function no_room_for(count, later)
  local capacity = tonumber(config('capacity'))
  if capacity and count > 0 then
    local size = waiting_count() + redis.call('ZCARD', DELAYED)
    local wanted = count + (tonumber(later) or 0)
    if size + wanted > capacity then
      -- A producer that waits for room blocks on P:room next: the next lease sets it again.
      redis.call('DEL', ROOM)
      return redis.error_reply('FULL leaseq: the queue ' .. string.sub(QUEUE, 1, -7) .. ' holds ' .. size .. ' of its capacity ' .. capacity
        .. '; ' .. wanted .. ' more do not fit')
    end
  end
  return nil
end

-- A record left by a redis-work-queue complete goes before its id is added again.
local function drop_stale_record(id)
  redis.call('DEL', JOB .. id)
  redis.call('ZREM', LEASED, id)
end

-- The text of number n as Redis writes it (an integer below 10^14: Lua's 14 digits are all of
-- it), made once per value per call of the library (at most 1000 kept); another number is
-- given back as it is, for Redis to write.
local number_texts, number_texts_count = {}, 0
local function number_text(n)
  local t = number_texts[n]
  if t then
    return t
  end
  if n ~= math.floor(n) or n >= 1e14 or n <= -1e14 then
    return n
  end
  t = tostring(n)
  number_texts_count = number_texts_count + 1
  if number_texts_count > 1000 then
    number_texts, number_texts_count = {}, 1
  end
  number_texts[n] = t
  return t
end

-- ':' .. k, the suffix of the k-th item's incarnation in an add call (`<inc_base>:<k>`, 5.1),
-- kept once made (at most 1000: a call's items): Lua's number-to-string is a '%.14g' sprintf.
local inc_suffixes = {}
local function inc_suffix(k)
  local s = inc_suffixes[k]
  if not s then
    s = ':' .. k
    if k <= 1000 then
      inc_suffixes[k] = s
    end
  end
  return s
end

-- Notes a new grouped item for join_groups: `id` at `score` among group g's `members`, and g in
-- `order` when it is the call's first item of g.
local function group_member(members, order, g, score, id)
  local m = members[g]
  if not m then
    m = {}
    members[g] = m
    order[#order + 1] = g
  end
  m[#m + 1] = score
  m[#m + 1] = id
end

-- New grouped items of an add call into their groups (lib/groups.lua's push_grouped for many):
-- each group's members (score, id, ...; group_member) in one ZADD per group, in `order`,
-- P:group_waiting grown by `count` once, then each group on the ring if it is ready.
local function join_groups(members, order, count)
  for _, g in ipairs(order) do
    call_sliced('ZADD', GROUP .. g, members[g], 2)
  end
  redis.call('INCRBY', GROUP_WAITING, count)
  for _, g in ipairs(order) do
    group_check(g)
  end
end
