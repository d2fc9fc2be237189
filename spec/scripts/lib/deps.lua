--! include: keys
-- Dependencies (spec/PROTOCOL.md 5.24): the names of their keys, and the note that an item some
-- others wait for has finished. The keys share the queue's prefix (and so its slot):
--   P:deps:<id>        SET   the dependencies <id> still waits for (while it is blocked)
--   P:dependants:<id>  SET   the blocked items that wait for <id> (the reverse index)
--   P:blocked          ZSET  blocked ids -> when light clean last looked at them (ms)
--   P:settled          LIST  pairs <id> <outcome> (done, dead, cancelled) of finished items whose
--                            dependants are not all released or failed yet
-- The names come from the prefix that bind_keys derived (JOB is P:job:), so that keys.lua, which
-- every call runs, stays as it is.
local function deps_key(id)
  return string.sub(JOB, 1, -5) .. 'deps:' .. id
end

local function dependants_key(id)
  return string.sub(JOB, 1, -5) .. 'dependants:' .. id
end

local function blocked_key()
  return string.sub(JOB, 1, -5) .. 'blocked'
end

local function settled_key()
  return string.sub(JOB, 1, -5) .. 'settled'
end

-- `id` finished (`outcome`: done, dead or cancelled): when items wait for it, the pair goes on
-- P:settled, which lib/flows.lua's run_settled works off in bounded steps. With redis.pcall: a
-- P:settled of another type loses the note, and light clean's sweep (5.24) decides instead.
local function note_settled(id, outcome)
  if redis.call('EXISTS', dependants_key(id)) == 1 then
    redis.pcall('RPUSH', settled_key(), id, outcome)
  end
end
