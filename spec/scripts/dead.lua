--! include: keys time guard waiting jobs flows events
--! flags: allow-oom
-- Dead letters. ARGV: action, then
--   'requeue' id...   requeue these dead items (attempts reset to 0); one with dependencies
--                     as an add of it with them would add it (spec/PROTOCOL.md 5.13)
--   'requeue_each' id...   the same, replying 1 (requeued) or 0 (not dead) per id, in order
--   'requeue_oldest' n   requeue the n oldest
--   'purge' n            delete the n oldest
-- n is at most 1000 per call. Returns how many items were requeued or deleted.
local action = ARGV[1]
local ids
local each = action == 'requeue_each'
if action == 'requeue' or each then
  ids = {}
  for i = 2, #ARGV do
    ids[#ids + 1] = ARGV[i]
  end
else
  ids = redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[2]) - 1)
end
-- A requeue checks every write first (lib/guard.lua); a purge's first write is its first ZREM.
-- `requeuing`: the dead letters this call requeues, by id, with their dependencies (or '').
local requeuing = {}
if action ~= 'purge' then
  want_queue()
  for _, id in ipairs(ids) do
    if redis.call('ZSCORE', DEAD, id) then
      local job = redis.call('HMGET', JOB .. id, 'priority', 'group', 'depends_on')
      want_level(job[1], job[2])
      requeuing[id] = job[3] or ''
      if job[3] and job[3] ~= '' then
        want_requeue_dependant(id, job[3])
      end
    end
  end
end

local now = nil
local died_again = false
-- The ids this call requeued (a later occurrence of one replies 0), and those being requeued
-- now, whose dependencies go first: one met again closes a cycle.
local requeued, closing = {}, {}

-- Requeues dead letter `id` of this call, its dependencies among this call's dead letters first
-- (depth first: at most the call's ids deep), so that it waits for them as at its add.
local function requeue(id)
  local deps = requeuing[id]
  if not deps or redis.call('ZREM', DEAD, id) == 0 then
    return
  end
  requeuing[id] = nil
  requeued[id] = true
  closing[id] = true
  for dep in string.gmatch(deps, '[^\n]+') do
    if requeuing[dep] then
      requeue(dep)
    end
  end
  closing[id] = nil
  local job = redis.call('HMGET', JOB .. id, 'priority', 'group', 'inc', 'name', 'depends_on',
    'on_dependency_failure')
  -- With dependencies, and its data still parked (no other client's item took the id).
  local with_deps = job[5] and job[5] ~= '' and redis.call('EXISTS', ITEM .. id) == 0
    and redis.call('EXISTS', DATA .. id) == 1
  local held = nil
  if with_deps then
    now = now or now_ms()
    redis.call('HSET', JOB .. id, 'attempts', 0)
    redis.call('HDEL', JOB .. id, 'reason', 'finished', 'expires_at')
    emit('requeued', id, job[3], 0, job[4])
    held = requeue_dependant(id, job[5], job[6], closing, job[3] or '', now)
    if held == 'blocked' then
      emit('blocked', id, job[3], 0, job[4])
    elseif held == 'dead' then
      died_again = true
    end
  end
  -- Unless blocked on its dependencies, or dead again for one of them: waiting.
  if not held then
    if unpark(id) then
      redis.call('HSET', JOB .. id, 'state', 'waiting', 'attempts', 0)
      redis.call('HDEL', JOB .. id, 'reason', 'finished', 'expires_at')
      push_waiting(id, job[1], job[2])
      if not with_deps then
        emit('requeued', id, job[3], 0, job[4])
      end
    else
      redis.call('DEL', JOB .. id)
    end
  end
end

local done, replies = 0, {}
if action == 'purge' then
  for i, id in ipairs(ids) do
    replies[i] = 0
    if redis.call('ZREM', DEAD, id) == 1 then
      done = done + 1
      replies[i] = 1
      forget(id)
    end
  end
else
  for _, id in ipairs(ids) do
    requeue(id)
  end
  -- One reply per id, in order: 1 for the first occurrence of an id this call requeued.
  for i, id in ipairs(ids) do
    replies[i] = 0
    if requeued[id] then
      requeued[id] = nil
      done = done + 1
      replies[i] = 1
    end
  end
  if died_again then
    -- Dead again for a dependency: the notes of those deaths settled now (their dependants
    -- requeued by this call among them), and the dead letters' bounds kept once.
    settle_now(now)
    trim_dead(now)
  end
end
if each then
  return replies
end
return done
