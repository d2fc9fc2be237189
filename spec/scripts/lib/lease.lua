--! include: keys time config guard holds groups waiting(paused_now,woke_now) jobs outcome flows events
-- Leases up to n items (spec/PROTOCOL.md, 4.4).
-- First moves up to 100 due delayed items to their waiting lists and recovers up to 20 expired
-- leases (so no cleaner is needed for either), then leases up to n items in priority order.
-- The k-th lease's token is the token for k = 1, token .. '.' .. k after that.
-- Returns {more, wait_ms, lease, ...}, each lease {id, data, attempts, incarnation,
-- max_attempts, backoff[, name]} (the name only for an item that has one). more is 1 when 1000 unusable ids were dropped (call again); wait_ms,
-- when nothing was leased, is how long until a delayed item is due or a lease expires (-1: never).
-- When more is 0 and every lease is a plain item's first as the reply shows it (attempts 1,
-- incarnation = its token, no name, one max_attempts and backoff for all), the plain form instead
-- (lease_reply): {3, max_attempts, backoff, id, data, id, data, ...}, from which the caller
-- rebuilds the rest.
local MAX_DROPS = 1000
local NO_JOB = {}
-- The first element of a lease reply in the plain form (spec/PROTOCOL.md 4.4).
local PLAIN = 3

-- Housekeeping (promote_due, recover_expired) runs on a queue's lease path at most once per
-- HOUSEKEEPING_MS of server time while leases find items, and always when a lease finds none;
-- it also rereads the queue's backoff and max_attempts for the leases of plain items. The time
-- of the next one is a hint (queue_hints, lib/config.lua). So while the queue is busy, a due
-- item or an expired lease waits at most that long, and a changed configuration reaches
-- leases at most that late.
local HOUSEKEEPING_MS = 100
local function housekeeping(h, now, always)
  if h.housekeeping and h.housekeeping > now and not always then
    return h
  end
  -- The queue's settings and the types of what it writes first (lib/guard.lua): a P:config that
  -- cannot be read, or a key of another type, fails this call, and the next, before anything is
  -- written and before the hint says housekeeping is done. So does a partitioned queue's base
  -- (5.25): a queue's first lease has no hint, and nothing is added at a base, so a lease there
  -- finds nothing and runs housekeeping at once.
  want_queue()
  refuse_base()
  local due, expired = want_targets(now, 100, 20)
  local backoff, max_attempts = config('backoff'), max_attempts_of(nil)
  h.housekeeping, h.prios, h.backoff, h.max_attempts = now + HOUSEKEEPING_MS, nil, backoff, max_attempts
  h.capacity = tonumber(config('capacity'))
  h.rate_max, h.rate_per = tonumber(config('rate_max')), tonumber(config('rate_per_ms'))
  -- Whether leases must read P:paused and P:limit on every call: while either exists (pause
  -- and hold set it at once, in every database's hints; otherwise housekeeping finds it), or
  -- with a rate limit, whose count changes with every lease. Else a lease skips the read.
  h.watch = redis.call('EXISTS', PAUSED, LIMIT) > 0
  h.groups = nil
  h.held = settle_held(100)
  -- The groups' rate limit (5.21), and groups whose window ended back on the ring.
  h.group_rate_max = tonumber(config('group_rate_max'))
  h.group_rate_per = tonumber(config('group_rate_per_ms'))
  h.group_holds = groups_back(now, 100)
  -- Whether leases append to the event stream, as of now (set_config of `events` forgets the
  -- housekeeping hint, so that the next lease comes here).
  h.events = events_on()
  promote_due(now, 100, due)
  recover_expired(now, 20, expired)
  settle_now(now)
  return h
end

-- One lease of a plain item from P:queue, the common case: the commands the loop of
-- lease_items takes for it, without the loop's tables (most of a plain lease's Lua time).
-- Returns the call's reply (the plain form), or nil and what it took from the queue (the id, what GET gave for it, and
-- whether it found no job hash) for the loop to go on with.
local function lease_plain(h, token, ttl_s, now_s, expiry_s)
  local id = redis.call('RPOP', QUEUE)
  if not id then
    return nil
  end
  local data = redis.pcall('GET', ITEM .. id)
  if type(data) ~= 'string' then
    return nil, id, data
  end
  local job_key = JOB .. id
  if redis.call('EXISTS', job_key) == 1 then
    return nil, id, data, false
  end
  if not redis.call('SET', LEASE .. id, token, 'NX', 'PX', ttl_s) then
    return nil, id, data, true
  end
  -- P:leased is the one shared key written here after the RPOP (which fails by itself on a
  -- P:queue of another type): refused, the lease and the pop are undone before the error, so
  -- the call changes nothing (spec/PROTOCOL.md 4.1, Refused calls) without a check per lease.
  local tracked = redis.pcall('ZADD', LEASED, expiry_s, id)
  if type(tracked) == 'table' then
    redis.call('DEL', LEASE .. id)
    redis.call('RPUSH', QUEUE, id)
    error(tracked)
  end
  redis.call('HSET', job_key, 'inc', token, 'attempts', '1', 'state', 'leased', 'leased_at', now_s)
  return {PLAIN, h.max_attempts, h.backoff, id, data}
end

-- One lease of a grouped item, the common case of a queue that uses groups (spec/PROTOCOL.md
-- 5.20, "Leasing"): the ring's tail group is ready and its first item is leasable. It leases
-- what pop_grouped and the loop of lease_items would, with the same writes, but reads first:
-- every key it writes is of its type by a read (or by the write's own failure before anything
-- else is written), so it needs no want_queue (19 commands on a queue with groups). Anything
-- else (no ready group at the tail, a group paused, at its limit or rate limited, an item
-- cancelled, expired, out of attempts, held by a copy, a key of another type) returns nil with
-- nothing written: the loop then does what it would have done.
local function lease_grouped(h, token, ttl_s, now_s, expiry_s, now)
  local g = redis.call('LINDEX', READY, -1)
  if not g then
    return nil
  end
  local active = redis.call('HGET', GROUP_ACTIVE, g)
  local n_active = tonumber(active or 0)
  local limit = group_limit(g)
  if not n_active or n_active >= limit or redis.call('SISMEMBER', GROUP_PAUSED, g) == 1 then
    return nil
  end
  local id = redis.call('ZRANGE', GROUP .. g, 0, 0)[1]
  local waiting = tonumber(redis.call('GET', GROUP_WAITING))
  if not id or not waiting then
    return nil
  end
  local job_key = JOB .. id
  local job = redis.pcall('HMGET', job_key, 'inc', 'attempts', 'max_attempts', 'backoff', 'expires_at',
    'leased_at', 'cancelled', 'state', 'name')
  if job.err or job[7] or job[8] ~= 'grouped' then
    return nil
  end
  local max, backoff = max_attempts_of(job[3]), job[4] or config('backoff')
  local attempts = (tonumber(job[2]) or 0) + 1
  if (job[5] and not job[6] and tonumber(job[5]) <= now) or (max > 0 and attempts > max) then
    return nil
  end
  local data = redis.pcall('GET', DATA .. id)
  if type(data) ~= 'string' then
    return nil
  end
  -- The writes. The lease key first: refused (a copy somebody holds), nothing is written.
  if not redis.call('SET', LEASE .. id, token, 'NX', 'PX', ttl_s) then
    return nil
  end
  -- P:ready_set and P:leased are the keys no read above checked: each write undoes the ones
  -- before it when refused, so the call changes nothing (4.1, Refused calls).
  local off = redis.pcall('SREM', READY_SET, g)
  if type(off) == 'table' then
    redis.call('DEL', LEASE .. id)
    error(off)
  end
  local tracked = redis.pcall('ZADD', LEASED, expiry_s, id)
  if type(tracked) == 'table' then
    if off == 1 then
      redis.call('SADD', READY_SET, g)
    end
    redis.call('DEL', LEASE .. id)
    error(tracked)
  end
  redis.call('RPOP', READY)
  redis.call('ZREM', GROUP .. g, id)
  grouped_left(1)
  n_active = redis.call('HINCRBY', GROUP_ACTIVE, g, 1)
  -- Still ready: back at the ring's head (it was on the ring: nobody needs waking).
  if n_active < limit and redis.call('ZCARD', GROUP .. g) > 0 then
    ring_push(g, false)
  end
  redis.call('RENAME', DATA .. id, ITEM .. id)
  local inc = job[1] or token
  redis.call('HSET', job_key, 'inc', inc, 'attempts', attempts, 'state', 'leased', 'leased_at', now_s)
  return {id, data, attempts, inc, max, backoff, job[9] or nil}
end

-- A lease of a bounded queue (P:config capacity, as of the last housekeeping) made room: one
-- element in P:room wakes the producers waiting for room (5.18). An add refused for want of
-- room deletes it, so a waiting producer never wakes for room it was already refused. (pcall:
-- it comes after the leases' writes, and a P:room of another type must not fail the call; the
-- producers then see the room at the end of their wait's slice.)
local ROOM_TTL_MS = 3600000
local function made_room(h)
  if h.capacity and redis.call('EXISTS', ROOM) == 0 then
    redis.pcall('RPUSH', ROOM, '1')
    redis.pcall('PEXPIRE', ROOM, ROOM_TTL_MS)
  end
end

-- What MGET P:paused P:limit gives when neither exists, for a lease that need not read them.
local NOT_WATCHED = {false, false}

-- k leases counted in the rate limit's window (5.19); the first lease of a window starts it.
-- (pcall: after the leases' writes, a P:limit that is no counter must not fail the call.)
local function counted(h, k)
  if h.rate_max then
    local v = redis.pcall('INCRBY', LIMIT, k)
    if v == k then
      redis.pcall('PEXPIRE', LIMIT, h.rate_per)
    end
  end
end

-- '.' .. k, the k-th lease's token suffix, kept once made: Lua's number-to-string is a
-- '%.14g' sprintf, and a batch lease needs one per lease after the first.
local suffixes = {}
local function token_suffix(k)
  local s = suffixes[k]
  if not s then
    s = '.' .. decimal(k)
    suffixes[k] = s
  end
  return s
end

-- The `leased` events of a reply in the plain form whose first token is `base`.
local function emit_plain(h, reply, base)
  if not h.events then
    return
  end
  for k = 1, (#reply - 3) / 2 do
    emit('leased', reply[2 * k + 2], k == 1 and base or base .. token_suffix(k), 1)
  end
end

-- Up to n leases of plain items from P:queue, the busy runner's case (lease_batch and
-- complete_and_lease_batch with n > 1): lease_plain for a batch, with the tokens the loop of
-- lease_items would give (base, then base .. '.' .. k). Its reads come first (RPOP with a count,
-- which fails by itself on a P:queue of another type, one MGET of the items, one EXISTS of their
-- job hashes); its writes are new keys (the lease keys, SET NX; the job hashes, which EXISTS
-- found missing) and one ZADD to P:leased, undone with the pop when refused: so it needs no
-- want_queue (spec/PROTOCOL.md 4.1, Refused calls), whose TYPEs would cost the batch more than
-- its leases. Returns the call's reply (the plain form, built as the leases are: no table per
-- lease); or nil and what it took (the ids, what MGET gave for them,
-- whether none has a job hash), with nothing written, when the pop found fewer than n ids or
-- any id is not the common case (no item, a job hash, an id twice, a lease key taken), for the
-- loop to go on with.
local function lease_plain_many(h, base, ttl_s, n, now_s, expiry_s)
  local ids = redis.call('RPOP', QUEUE, n)
  if not ids then
    return nil
  end
  local keys, job_keys = {}, {}
  for i, id in ipairs(ids) do
    keys[i] = ITEM .. id
    job_keys[i] = JOB .. id
  end
  local datas = redis.call('MGET', unpack(keys))
  local plain = redis.call('EXISTS', unpack(job_keys)) == 0
  if #ids < n or not plain then
    return nil, ids, datas, plain
  end
  -- An id twice in the batch is refused by its second SET NX, which the first just set. (SET
  -- with GET: nil when it set the key, where SET alone answers OK, which reaches Lua as a table;
  -- refused, the value there, or an error value (pcall) for a key of another type.)
  local reply, tokens, expiries = {PLAIN, h.max_attempts, h.backoff}, {}, {}
  for i, id in ipairs(ids) do
    local token = i == 1 and base or base .. token_suffix(i)
    local data = datas[i]
    if not data or redis.pcall('SET', LEASE .. id, token, 'NX', 'PX', ttl_s, 'GET') then
      -- An item missing or of another type, or a copy somebody holds (rare): the lease keys
      -- just set go, and the loop decides.
      if i > 1 then
        for j = 1, i - 1 do
          keys[j] = LEASE .. ids[j]
        end
        redis.call('DEL', unpack(keys, 1, i - 1))
      end
      return nil, ids, datas, plain
    end
    tokens[i] = token
    reply[2 * i + 2], reply[2 * i + 3] = id, data
    expiries[2 * i - 1], expiries[2 * i] = expiry_s, id
  end
  -- P:leased, the one shared key written after the RPOP: refused, the leases and the pop are
  -- undone before the error (the ids back in their order), so the call changes nothing.
  local tracked = redis.pcall('ZADD', LEASED, unpack(expiries))
  if type(tracked) == 'table' then
    local back = {}
    for i = 1, #ids do
      keys[i] = LEASE .. ids[i]
      back[i] = ids[#ids + 1 - i]
    end
    redis.call('DEL', unpack(keys))
    redis.call('RPUSH', QUEUE, unpack(back))
    error(tracked)
  end
  for i = 1, #ids do
    -- (A literal for a plain item's first attempt: Lua's number-to-string costs.)
    redis.call('HSET', job_keys[i], 'inc', tokens[i], 'attempts', '1', 'state', 'leased', 'leased_at', now_s)
  end
  return reply
end

-- The reply for leases made one by one (by the loop of lease_items, or lease_grouped), whose first
-- token is `base`: the plain form when more is 0 and the leases allow it (see the top), else
-- {more, wait, lease, ...}. Which form depends only on what the leases are, never on the path.
local function lease_reply(more, wait, leases, base)
  local first = leases[1]
  local plain = more == 0 and first ~= nil
  if plain then
    for k, lease in ipairs(leases) do
      if lease[3] ~= 1 or lease[7] or lease[5] ~= first[5] or lease[6] ~= first[6]
          or lease[4] ~= (k == 1 and base or base .. token_suffix(k)) then
        plain = false
        break
      end
    end
  end
  local reply
  if plain then
    reply = {PLAIN, first[5], first[6]}
    for k, lease in ipairs(leases) do
      reply[2 * k + 2], reply[2 * k + 3] = lease[1], lease[2]
    end
  else
    reply = {more, wait}
    for k, lease in ipairs(leases) do
      reply[k + 2] = lease
    end
  end
  return reply
end

-- ttl_s and n_s are the lease's TTL (milliseconds) and how many leases are wanted, as ARGV gives
-- them: decimal integers (spec/PROTOCOL.md, 4.4); db is the database the caller selected, which
-- keys the queue's hints (lib/config.lua). Commands take ttl_s as it is; n_s = '1' needs
-- no conversion (Lua's tonumber is a strtod).
local function lease_items(base, ttl_s, n_s, db, now)
  local n = n_s == '1' and 1 or tonumber(n_s)
  local h = housekeeping(db_hints(db), now, false)
  -- Whether the queue is paused, and how many leases its rate limit's window has counted
  -- (5.19), in one read.
  local flags = NOT_WATCHED
  if h.watch or h.rate_max then
    flags = redis.call('MGET', PAUSED, LIMIT)
  end
  paused_now = flags[1] ~= false
  -- A paused queue leases nothing (5.17); its waiters wait on P:queue and P:wake, which the
  -- resume wakes, so P:wake goes as after a lease that found nothing, and P:queue is emptied.
  if is_paused() then
    -- Ids a redis-work-queue producer pushed to P:queue during the pause go to P:held now, not
    -- at the next housekeeping: a waiter blocked on a P:queue that holds them would wake at
    -- once, again and again. Their types first (lib/guard.lua): a P:queue of another type fails
    -- the call before anything is written.
    want_queue()
    settle_held(100)
    redis.call('DEL', WAKE)
    return {0, -1}
  end
  -- The rate limit (5.19): at the limit, or held off by `hold`, nothing is leased, and the
  -- reply says how long until the window ends (status 2: the caller sleeps, it does not wait
  -- on the lists, which may hold items). Else at most what the window has left.
  local used = tonumber(flags[2])
  if used or h.rate_max then
    -- (No count yet: a new window, whose first batch is capped too.)
    used = used or 0
    local max = h.rate_max or HOLD
    if used >= max then
      local left = redis.call('PTTL', LIMIT)
      if left < 0 then
        -- A count without an expiry (not written by this protocol): it ends with a window.
        left = h.rate_per or 1000
        redis.call('PEXPIRE', LIMIT, left)
      end
      return {2, left}
    end
    if h.rate_max then
      n = math.min(n, max - used)
    end
  end
  -- Numbers given to redis.call become strings on every call (Lua's '%.14g'): once per call
  -- here, and with decimal's cheaper '%d'.
  local now_s, expiry_s = decimal(now), decimal(now + tonumber(ttl_s))
  -- What the shortcut took and could not lease, for the loop to go on with; empty when it
  -- found the queue empty.
  local taken, taken_data, no_job, empty
  -- The same for the batch shortcut: the ids it took, what MGET gave, whether none has a job hash.
  local taken_many, taken_datas, many_plain
  if n == 1 and not other_levels(h) then
    local reply
    reply, taken, taken_data, no_job = lease_plain(h, base, ttl_s, now_s, expiry_s)
    if reply then
      made_room(h)
      counted(h, 1)
      emit_plain(h, reply, base)
      return reply
    end
    empty = not taken
  elseif n == 1 and h.groups and not h.prios and not h.held and not h.group_rate_max
      and not h.group_holds then
    -- Groups and P:queue only: the turn the loop's pop would take (pop_waiting_many), each
    -- side standing in for the other when it has none. A shortcut that finds nothing to lease
    -- puts the turn back, so that the loop takes the same one.
    local turn = h.turn
    h.turn = not turn
    local reply, lease
    if not h.turn then
      reply, taken, taken_data, no_job = lease_plain(h, base, ttl_s, now_s, expiry_s)
    end
    if reply then
      made_room(h)
      counted(h, 1)
      emit_plain(h, reply, base)
      return reply
    end
    if not taken then
      lease = lease_grouped(h, base, ttl_s, now_s, expiry_s, now)
    end
    if lease then
      made_room(h)
      counted(h, 1)
      emit_leases(h, {lease})
      return lease_reply(0, -1, {lease}, base)
    end
    if not taken then
      h.turn = turn
    end
  elseif n > 1 and not other_levels(h) then
    local reply
    reply, taken_many, taken_datas, many_plain = lease_plain_many(h, base, ttl_s, n, now_s, expiry_s)
    if reply then
      made_room(h)
      counted(h, n)
      emit_plain(h, reply, base)
      return reply
    end
    empty = not taken_many
  end
  -- P:leased gets one ZADD for the whole batch, at the end: nothing in between reads it for
  -- these ids.
  local leases, drops, looked, expiries = {}, 0, false, {}
  -- Ids are taken in batches: one RPOP (with a count) and one MGET of their items for as many
  -- ids as leases are still wanted. Each id taken becomes a lease or a drop, so a batch never
  -- holds more than the loop will look at. An id seen twice in one call is read again (its
  -- first copy may have changed it).
  local batch, datas, at, seen, plain, job_keys = {}, {}, 1, {}, false, {}
  -- The group of each grouped id taken (its slot is taken with it: given back if not leased).
  local slots = {}
  -- The loop may write any shared key: their types before its first write. The shortcut's RPOP
  -- is the one write before this point; a refused call puts the id back where it was.
  local ok, refused = pcall(want_queue)
  if not ok then
    if taken then
      redis.call('RPUSH', QUEUE, taken)
    end
    if taken_many then
      local back = {}
      for i = 1, #taken_many do
        back[i] = taken_many[#taken_many + 1 - i]
      end
      redis.call('RPUSH', QUEUE, unpack(back))
    end
    error(refused)
  end
  if taken then
    batch, datas, plain = {taken}, {taken_data}, no_job == true
  elseif taken_many then
    batch, datas, plain = taken_many, taken_datas, many_plain
  elseif empty then
    -- As the loop does when its first pop finds nothing: housekeeping, then one more look.
    looked = true
    h = housekeeping(h, now, true)
  end
  while #leases < n and drops < MAX_DROPS do
    if at > #batch then
      local k = math.min(n - #leases, MAX_DROPS - drops)
      batch, slots = pop_waiting_many(h, k, now)
      at = 1
      if #batch == 0 and not looked then
        looked = true
        h = housekeeping(h, now, true)
        batch, slots = pop_waiting_many(h, k, now)
      end
      if #batch == 0 then
        break
      end
      local keys = {}
      job_keys = {}
      for i, id in ipairs(batch) do
        keys[i] = ITEM .. id
        job_keys[i] = JOB .. id
      end
      datas = redis.call('MGET', unpack(keys))
      -- No job hash for any of them (plain items, the common case): no EXISTS per id below.
      plain = redis.call('EXISTS', unpack(job_keys)) == 0
    end
    local id, data, job_key = batch[at], datas[at], job_keys[at]
    at = at + 1
    local group, granted = slots[id], false
    slots[id] = nil
    -- MGET gives nil for a missing key and for a key of another type: GET tells them apart.
    -- pcall: a key of another type under ITEM .. id is no item of ours; it must not stop the queue.
    local again = seen[id]
    if not data or again then
      data = redis.pcall('GET', ITEM .. id)
    end
    seen[id] = true
    local token = base
    job_key = job_key or JOB .. id
    if #leases > 0 then
      token = base .. token_suffix(#leases + 1)
    end
    if type(data) ~= 'string' then
      if not data then
        drop_stale(id)
      end
      drops = drops + 1
    elseif not redis.call('SET', LEASE .. id, token, 'NX', 'PX', ttl_s) then
      -- A copy of an item somebody holds right now. A redis-work-queue holder's item must stay on
      -- a list, so that a light clean finds it if that holder dies; a leaseq lease is in P:leased.
      -- (pcall: a job key of another type is no leaseq holder's: the copy goes to processing.)
      if redis.pcall('HGET', job_key, 'state') ~= 'leased' then
        redis.call('LPUSH', PROCESSING, id)
      end
      drops = drops + 1
    else
      -- A plain item (no job hash) takes the queue's settings as of the last housekeeping.
      local job, max, backoff = NO_JOB, h.max_attempts, h.backoff
      if not (plain and not again) and redis.call('EXISTS', job_key) == 1 then
        job = redis.pcall('HMGET', job_key, 'inc', 'attempts', 'max_attempts', 'backoff', 'expires_at',
          'leased_at', 'cancelled', 'name')
        if job.err then
          -- A key of another type under JOB .. id: no job of ours. Nothing is written for it
          -- (the lease just set is taken back); the item stays for an operator.
          redis.call('DEL', LEASE .. id)
        else
          max, backoff = max_attempts_of(job[3]), job[4] or config('backoff')
        end
      end
      local attempts = (tonumber(job[2]) or 0) + 1
      if job.err then
        drops = drops + 1
      elseif job[7] then
        -- Cancelled while leased, and that lease ran out: removed, as its recovery would.
        drop_cancelled(id)
        drops = drops + 1
      elseif job[5] and not job[6] and tonumber(job[5]) <= now then
        -- expires_after is for items not yet started (never leased).
        to_dead(id, now, 'expired before it started')
        drops = drops + 1
      elseif max > 0 and attempts > max then
        to_dead(id, now, 'attempts used up')
        drops = drops + 1
      else
        local inc = job[1] or token
        -- (A literal for a plain item's first attempt: Lua's number-to-string costs.)
        redis.call('HSET', job_key, 'inc', inc, 'attempts', job == NO_JOB and '1' or attempts,
          'state', 'leased', 'leased_at', now_s)
        expiries[#expiries + 1] = expiry_s
        expiries[#expiries + 1] = id
        leases[#leases + 1] = {id, data, attempts, inc, max, backoff, job[8] or nil}
        granted = true
      end
    end
    if group and not granted then
      release_slot(group)
    end
  end
  if #expiries > 0 then
    redis.call('ZADD', LEASED, unpack(expiries))
    made_room(h)
    counted(h, #leases)
  end
  local more = drops >= MAX_DROPS and 1 or 0
  local wait = -1
  if #leases == 0 and more == 0 then
    -- Waiters need not look again for what this lease saw, unless this call delayed an item
    -- that wakes them (wake_for_due: a complete's dependant unblocked to delayed).
    if not woke_now then
      redis.call('DEL', WAKE)
    end
    for _, key in ipairs({DELAYED, LEASED, GROUP_WAIT}) do
      local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]
      if first then
        local left = math.max(tonumber(first) - now, 0)
        if wait < 0 or left < wait then
          wait = left
        end
      end
    end
  end
  emit_leases(h, leases)
  return lease_reply(more, wait, leases, base)
end
