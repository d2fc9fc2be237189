--! include: keys config guard rate groups outcome deps flows events
-- Completing an item.
-- First wins within one incarnation: the call whose DEL of P:item:<id> removed the key, even
-- after its lease expired (a later holder's renew then says done). Returns 1 when this call
-- completed the item, else an outcome code of lib/outcome.lua (-2, -3, -4, or 0 when the item
-- was failed, released or dead-lettered since).
-- The common case takes a shortcut: the first lease of an item added without options, whose
-- incarnation is its own token (lib/lease.lua), while P:lease:<id> still holds that token. A
-- lease writes its token as the incarnation only when the item had none, so the live token
-- proves the incarnation (and a cancel overwrites the token, see cancel.lua).
--
-- A batch (complete_batch, complete_and_lease_batch) opens finish_batch first: the fast path then
-- leaves its ZREM from P:leased and its count for end_finish_batch, one ZREM and one HINCRBY
-- for the whole batch. Nothing between reads P:leased for those ids. begin_call resets it.
local finish_batch = nil

local function begin_finish_batch()
  finish_batch = {ids = {}, completed = 0}
end

local function end_finish_batch(now)
  local b = finish_batch
  finish_batch = nil
  if b and #b.ids > 0 then
    redis.call('ZREM', LEASED, unpack(b.ids))
  end
  if b and b.completed > 0 then
    count_event(now, 'completed', b.completed)
  end
end

-- The index of kept results (spec/PROTOCOL.md 4.6 step 4): P:done, id -> finished. Bounded by
-- count (the newest DONE_MAX stay), by time (its TTL is the longest kept result's), and by
-- dropping, per call, at most two of its oldest entries whose result expired. Its first write
-- is a pcall: a key of another type there ends it, and an index that cannot be written never
-- fails a complete; once that ZADD worked, P:done is a sorted set. Only the commands of the
-- ACL of spec 1.2.
local DONE_MAX = 10000
local function index_done(id, now, keep)
  if type(redis.pcall('ZADD', DONE, now, id)) ~= 'number' then
    return
  end
  -- One id in, so at most one beyond the bound (100 at most, whatever was there before).
  local over = math.min(redis.call('ZCARD', DONE) - DONE_MAX, 100)
  if over > 0 then
    redis.call('ZREM', DONE, unpack(redis.call('ZRANGE', DONE, 0, over - 1)))
  end
  for _, old in ipairs(redis.call('ZRANGE', DONE, 0, 1)) do
    if redis.call('EXISTS', RESULT .. old) == 0 then
      redis.call('ZREM', DONE, old)
    end
  end
  if redis.call('PTTL', DONE) < keep then
    redis.call('PEXPIRE', DONE, keep)
  end
end

local function complete_item(id, inc, token, has_result, result, keep_ms, now)
  if has_result and not result then
    error({err = 'ERR leaseq: has_result is 1 but no result follows'})
  end
  if not has_result and inc == token and redis.call('GET', LEASE .. id) == token then
    local b = finish_batch
    -- P:leased first: the first write, so that a key of another type there fails the call
    -- before it changes anything (a batch checks it once, in complete_items).
    if not b then
      redis.call('ZREM', LEASED, id)
    end
    local gone = redis.call('DEL', ITEM .. id) == 0
    redis.call('DEL', LEASE .. id, JOB .. id)
    if b then
      b.ids[#b.ids + 1] = id
      if gone then
        return -2
      end
      b.completed = b.completed + 1
      emit('completed', id, inc, 1)
      return 1
    end
    if gone then
      return -2
    end
    count_event(now, 'completed')
    emit('completed', id, inc, 1)
    return 1
  end
  local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled', 'state', 'attempts', 'keep_result_ms',
    'group', 'added', 'name', 'dependants')
  if job[1] ~= inc then
    return lost_outcome(id, inc, nil, job[1], nil)
  end
  -- A grouped item's slot is this holder's while its record says leased.
  local slot = job[3] == 'leased' and job[6] or nil
  if job[2] then
    drop_cancelled(id, slot)
    return -3
  end
  if job[3] == 'delayed' or job[3] == 'dead' or job[3] == 'grouped' or job[3] == 'blocked' then
    return 0
  end
  if slot then
    -- The group's keys are written first: their types before anything (lib/guard.lua).
    want_slot_keys()
    release_slot(slot)
  end
  redis.call('ZREM', LEASED, id)
  if redis.call('DEL', ITEM .. id) == 0 then
    redis.call('DEL', JOB .. id)
    return -2
  end
  redis.call('DEL', LEASE .. id, JOB .. id)
  count_event(now, 'completed', nil, job[8])
  emit('completed', id, inc, tonumber(job[4]) or 0, job[8])
  if has_result then
    local keep = tonumber(keep_ms) or tonumber(job[5]) or tonumber(config('keep_result_ms'))
    if keep > 0 then
      redis.call('DEL', RESULT .. id)
      -- [finished, attempts, result, added, name]: what is known of the item once its record is
      -- gone (spec 4.6 step 4); added and name are empty when unknown.
      redis.call('RPUSH', RESULT .. id, now, job[4] or 0, result, job[7] or '', job[8] or '')
      redis.call('PEXPIRE', RESULT .. id, keep)
      index_done(id, now, keep)
    end
  end
  -- Items wait for this one (5.24): released now, up to a bound; the rest by the next calls.
  if job[9] then
    note_settled(id, 'done')
    settle_now(now)
  end
  return 1
end

-- Completes a batch: argv[first - 1] is `per`, then from `first` `per` values per lease: 2 (id,
-- token: the incarnation is the token, a plain item's first lease; no result kept), 3 (id,
-- incarnation, token; no result kept) or 6 (then has_result, result, keep_result_ms). Returns
-- one code per lease, in order, as complete_item's.
-- complete_item's shortcut for a whole batch: the leases that qualify (no result, incarnation =
-- token, an id not seen before in the batch) take one MGET of their lease keys; those whose
-- token is live take one EXISTS of their item keys, and when every item is there, one ZREM from
-- P:leased and one DEL of every item, lease and job key: four commands for the batch instead of
-- four per lease.
-- Everything else (a stale token, an item already gone, a result to keep, an id seen twice)
-- goes one by one through complete_item, after the batch, with the same outcome as alone.
-- A batch's `per` argument: '2', '3' or '6' values per lease, which must be what follows it from
-- argv[first]; anything else fails the call before it changes anything.
local PER = {['2'] = 2, ['3'] = 3, ['6'] = 6}
local function values_per_lease(argv, first)
  local per = PER[argv[first - 1]]
  if not per then
    error({err = 'ERR leaseq: per must be 2, 3 or 6'})
  end
  if (#argv - first + 1) % per ~= 0 then
    error({err = 'ERR leaseq: the values after per are not per values for each lease'})
  end
  return per
end

local function complete_items(argv, first, now)
  local per = values_per_lease(argv, first)
  local codes, quick, seen, rest, results = {}, {}, {}, {}, per == 6
  -- Where a lease's token is, after its id: its incarnation (argv[i + 1]) is the token with per = 2.
  local tok = per == 2 and 1 or 2
  for i = first, #argv, per do
    local id = argv[i]
    if not (results and argv[i + 3] == '1') and argv[i + 1] == argv[i + tok] and not seen[id] then
      quick[#quick + 1] = i
    else
      rest[#rest + 1] = i
    end
    seen[id] = true
  end
  begin_finish_batch()
  if #quick > 0 then
    local keys = {}
    for k, i in ipairs(quick) do
      keys[k] = LEASE .. argv[i]
    end
    local tokens = redis.call('MGET', unpack(keys))
    -- The live leases' item keys first (EXISTS counts them), then their lease and job keys:
    -- one table, which DEL takes whole.
    local live, dels = {}, {}
    for k, i in ipairs(quick) do
      if tokens[k] == argv[i + tok] then
        live[#live + 1] = i
        dels[#live] = ITEM .. argv[i]
        -- (keys compacted in place to the live leases': #live <= k, so none is read after.)
        keys[#live] = keys[k]
      else
        rest[#rest + 1] = i
      end
    end
    local n = #live
    if n > 0 and redis.call('EXISTS', unpack(dels)) == n then
      local ids = {}
      for k, i in ipairs(live) do
        local id = argv[i]
        dels[n + 2 * k - 1] = keys[k]
        dels[n + 2 * k] = JOB .. id
        ids[k] = id
        codes[(i - first) / per + 1] = 1
      end
      -- P:leased first, the call's first write: a key of another type there fails the call
      -- before it changes anything, so the call needs no TYPE of it (the rest below may).
      redis.call('ZREM', LEASED, unpack(ids))
      passed(LEASED)
      redis.call('DEL', unpack(dels))
      finish_batch.completed = finish_batch.completed + n
      if events_on() then
        for _, i in ipairs(live) do
          emit('completed', argv[i], argv[i + 1], 1)
        end
      end
    else
      for _, i in ipairs(live) do
        rest[#rest + 1] = i
      end
    end
  end
  table.sort(rest)
  if #rest > 0 then
    -- Their ZREMs wait for end_finish_batch: P:leased's type before their first write.
    want(LEASED, 'zset')
  end
  for _, i in ipairs(rest) do
    if results then
      codes[(i - first) / per + 1] =
        complete_item(argv[i], argv[i + 1], argv[i + 2], argv[i + 3] == '1', argv[i + 4], argv[i + 5], now)
    else
      codes[(i - first) / per + 1] = complete_item(argv[i], argv[i + 1], argv[i + tok], false, nil, nil, now)
    end
  end
  end_finish_batch(now)
  return codes
end
