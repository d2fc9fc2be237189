--! include: keys guard waiting jobs deps events
-- Releasing and failing dependants (spec/PROTOCOL.md 5.24). A blocked item (record state
-- `blocked`, data parked at P:data:<id>, listed in P:blocked) waits for the ids in P:deps:<id>.
-- When one of them finishes, the call that finished it notes it (note_settled) and works off at
-- most SETTLE_PER_CALL dependants; the rest, and cascades (a dependant that dies has dependants
-- of its own), wait on P:settled for the next such call, a lease's housekeeping or light clean.
local SETTLE_PER_CALL = 100

-- What a dependency is now: 'pending' (waiting, leased, delayed, grouped or blocked), 'dead',
-- 'cancelled' (cancelled while leased, not yet removed) or 'done': no item under the id, with a
-- kept result or without one (completed by a redis-work-queue client, or removed by hand).
local function dependency_state(dep)
  local job = redis.pcall('HMGET', JOB .. dep, 'state', 'cancelled')
  if job.err then
    job = {}
  end
  if job[2] then
    return 'cancelled'
  end
  if redis.call('EXISTS', ITEM .. dep) == 1 then
    return 'pending'
  end
  if job[1] == 'delayed' or job[1] == 'grouped' or job[1] == 'blocked' then
    return 'pending'
  end
  if job[1] == 'dead' then
    return 'dead'
  end
  return 'done'
end

-- A blocked item whose last dependency finished: delayed when its own due time is still ahead,
-- else back to waiting (at its priority, in its group), as promote_due does. Checks first.
local function unblock(id, now)
  local job = redis.call('HMGET', JOB .. id, 'priority', 'group', 'due', 'inc', 'attempts', 'name')
  want_level(job[1], job[2])
  redis.call('ZREM', blocked_key(), id)
  redis.call('DEL', deps_key(id))
  local due = tonumber(job[3])
  local state = nil
  if due and due > now then
    redis.call('HSET', JOB .. id, 'state', 'delayed')
    wake_for_due(due)
    redis.call('ZADD', DELAYED, due, id)
    state = 'delayed'
  elseif unpark(id) then
    redis.call('HSET', JOB .. id, 'state', 'waiting')
    push_waiting(id, job[1], job[2])
    state = 'waiting'
  else
    redis.call('DEL', JOB .. id)
  end
  if state then
    -- The event stream (14.2): it waits (or is delayed) now.
    emit('unblocked', id, job[4], tonumber(job[5]) or 0, job[6], 'state', state)
  end
end

local REASONS = {dead = ' is dead', cancelled = ' was cancelled'}

-- Dependency `dep` of `id` finished with `outcome`. Nothing unless `id` is blocked and still
-- waits for `dep` (a stale entry of the reverse index is passed over). A dependency that did
-- not complete kills the dependant (reason naming it) unless its policy is `run`; the last
-- dependency to finish releases it.
local function settle_dependant(id, dep, outcome, now)
  local job = redis.pcall('HMGET', JOB .. id, 'state', 'on_dependency_failure')
  if job.err or job[1] ~= 'blocked' then
    return
  end
  want(deps_key(id), 'set')
  if outcome ~= 'done' and job[2] ~= 'run' then
    redis.call('DEL', deps_key(id))
    redis.call('ZREM', blocked_key(), id)
    to_dead(id, now, 'dependency ' .. dep .. (REASONS[outcome] or ' failed'))
  elseif redis.call('SISMEMBER', deps_key(id), dep) == 1 then
    if redis.call('SCARD', deps_key(id)) == 1 then
      unblock(id, now)
    else
      redis.call('SREM', deps_key(id), dep)
    end
  end
end

-- Works off P:settled: at most `budget` dependants, oldest note first. Returns how many.
local function run_settled(now, budget)
  local done = 0
  want_queue()
  want(settled_key(), 'list')
  want(blocked_key(), 'zset')
  -- Each round takes one note's dependants or drops one note, so 2 * budget rounds at most.
  for _ = 1, 2 * budget do
    if done >= budget then
      break
    end
    local head = redis.call('LRANGE', settled_key(), 0, 1)
    if #head < 2 then
      break
    end
    local dep, outcome = head[1], head[2]
    want(dependants_key(dep), 'set')
    local ids = redis.call('SPOP', dependants_key(dep), budget - done)
    -- In byte order: a call settles the same way whatever order the set gave (and the model's
    -- replay can follow it).
    table.sort(ids)
    for _, id in ipairs(ids) do
      settle_dependant(id, dep, outcome, now)
    end
    done = done + #ids
    if redis.call('EXISTS', dependants_key(dep)) == 0 then
      redis.call('LPOP', settled_key(), 2)
    end
  end
  return done
end

-- run_settled for a call whose own step is done (complete, fail, cancel, a lease's
-- housekeeping): a key of another type met there ends only this part (the dependant it was at
-- is left as it was; light clean meets the error again and reports it), never the call.
local function settle_now(now)
  if redis.call('EXISTS', settled_key()) == 1 then
    pcall(run_settled, now, SETTLE_PER_CALL)
  end
end

-- Light clean's sweep (5.24): at most about `batch` dependencies of the blocked items light
-- clean looked at longest ago, each checked as dependency_state says. One that finished without
-- leaseq seeing it (a redis-work-queue complete, a key removed by hand) settles its dependant
-- here, so no item waits forever for an id that is gone. Runs only when P:settled is empty, so
-- that a noted outcome (a cancel, a death) is never taken for a completion. Returns how many
-- dependencies it settled.
local function sweep_blocked(now, batch)
  if redis.call('EXISTS', settled_key()) == 1 then
    return 0
  end
  want(blocked_key(), 'zset')
  local looked, settled = 0, 0
  for _, id in ipairs(redis.call('ZRANGE', blocked_key(), 0, batch - 1)) do
    if looked >= batch then
      break
    end
    want(deps_key(id), 'set')
    local deps = redis.call('SMEMBERS', deps_key(id))
    table.sort(deps)
    looked = looked + 1 + #deps
    local state = redis.pcall('HGET', JOB .. id, 'state')
    if state ~= 'blocked' then
      -- Not a blocked item of ours any more (cancelled by hand, say): its entry goes.
      redis.call('ZREM', blocked_key(), id)
    elseif #deps == 0 then
      unblock(id, now)
    else
      for _, dep in ipairs(deps) do
        local outcome = dependency_state(dep)
        if outcome ~= 'pending' then
          settle_dependant(id, dep, outcome, now)
          settled = settled + 1
        end
      end
      if redis.call('ZSCORE', blocked_key(), id) then
        redis.call('ZADD', blocked_key(), now, id)
      end
    end
  end
  return settled
end

-- add.lua, first pass (reads only): the dependencies of item `id` (`joined`: ids joined by a
-- newline) sorted into p.pending (items that exist and are not finished, or were planned
-- earlier in this call) and p.marks (those of them added before this call, whose records learn
-- that items wait for them), and p.failed ({dep, outcome}) for the first one that is dead or
-- cancelled, unless the policy is `run`. An id unknown here counts as complete (5.24).
local function plan_dependencies(p, id, joined, policy, planned)
  p.id, p.deps, p.pending, p.marks, p.plain = id, {}, {}, {}, false
  p.policy = policy == 'run' and 'run' or 'fail'
  for dep in string.gmatch(joined, '[^\n]+') do
    p.deps[#p.deps + 1] = dep
    local earlier = planned[dep]
    local state
    if earlier then
      earlier.plain, earlier.dependants = false, true
      state = earlier.failed and earlier.policy ~= 'run' and 'dead' or 'pending'
    else
      state = dependency_state(dep)
      if state == 'pending' then
        p.marks[#p.marks + 1] = dep
      end
    end
    if state == 'pending' then
      p.pending[#p.pending + 1] = dep
    elseif state ~= 'done' and p.policy ~= 'run' and not p.failed then
      p.failed = {dep, state}
    end
  end
end

-- add.lua, checks: the types of every key add_blocked may write for plan entry `p`.
local function want_dependencies(p)
  if not p.deps then
    return
  end
  want(deps_key(p.id), 'set')
  want(blocked_key(), 'zset')
  for _, dep in ipairs(p.pending) do
    want(dependants_key(dep), 'set')
  end
  for _, dep in ipairs(p.marks) do
    want(JOB .. dep, 'hash')
  end
end

-- Blocks item `id` (incarnation `inc`) on `pending`, its dependencies still to finish: each of
-- `marks` (those added before this call) learns that items wait for it, then the reverse index,
-- P:deps:<id> and P:blocked.
local function block_on(id, pending, marks, inc, now)
  for _, dep in ipairs(marks) do
    -- Its complete settles this item (lib/finish.lua reads `dependants`); an item without a
    -- record gets an incarnation, so that its complete takes the path that reads it.
    if not redis.call('HGET', JOB .. dep, 'inc') then
      redis.call('HSET', JOB .. dep, 'inc', inc .. '.d', 'dependants', 1)
    else
      redis.call('HSET', JOB .. dep, 'dependants', 1)
    end
  end
  redis.call('SADD', deps_key(id), unpack(pending))
  for _, dep in ipairs(pending) do
    redis.call('SADD', dependants_key(dep), id)
  end
  redis.call('ZADD', blocked_key(), now, id)
end

-- add.lua, writes: a new item with dependencies (record `fields`, state blocked). With a
-- failed dependency and the policy `fail` it dies at once; else it waits for p.pending.
local function add_blocked(id, data, fields, p, now)
  redis.call('HSET', JOB .. id, unpack(fields))
  redis.call('SET', DATA .. id, data)
  if p.failed then
    to_dead(id, now, 'dependency ' .. p.failed[1] .. (REASONS[p.failed[2]] or ' failed'))
    return
  end
  block_on(id, p.pending, p.marks, fields[2], now)
end

-- dead.lua, checks: the types of every key requeue_dependant may write for dead item `id`
-- with dependencies `joined` (which of them are pending is known only as the call goes).
local function want_requeue_dependant(id, joined)
  want(deps_key(id), 'set')
  want(blocked_key(), 'zset')
  for dep in string.gmatch(joined, '[^\n]+') do
    want(dependants_key(dep), 'set')
    want(JOB .. dep, 'hash')
  end
end

-- dead.lua, writes: dead item `id` (its record there, its data parked, out of P:dead), which
-- has dependencies (`joined`, policy `policy`), is requeued as an add of it with them would add
-- it (5.13): blocked on those still pending, dead again at once (mark_dead: the caller keeps
-- the dead letters' bounds once, after the call's requeues) when one is dead or cancelled and
-- its policy is `fail`. The call requeues its dead letters' dependencies first, so those are
-- pending (or dead again) by now; one that closes a cycle back to `id` (`closing`: possible
-- across add calls, where an id not added yet counted as complete) counts as complete, so that
-- the cycle's items never wait for each other. Returns 'blocked' or 'dead', or nil when none is pending: it waits then, as
-- any requeued item.
local function requeue_dependant(id, joined, policy, closing, inc, now)
  local pending, failed = {}, nil
  for dep in string.gmatch(joined, '[^\n]+') do
    local state = closing[dep] and 'done' or dependency_state(dep)
    if state == 'pending' then
      pending[#pending + 1] = dep
    elseif state ~= 'done' and policy ~= 'run' and not failed then
      failed = {dep, state}
    end
  end
  if failed then
    mark_dead(id, now, 'dependency ' .. failed[1] .. (REASONS[failed[2]] or ' failed'))
    return 'dead'
  end
  if #pending == 0 then
    return nil
  end
  redis.call('HSET', JOB .. id, 'state', 'blocked')
  block_on(id, pending, pending, inc, now)
  return 'blocked'
end
