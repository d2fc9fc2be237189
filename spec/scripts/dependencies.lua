--! include: keys deps
--! flags: no-writes
-- dependencies (5.24). ARGV: action, id.
--   'info' id     -> {depends_on, on_dependency_failure, pending, dependants_count, dependants}:
--                    the ids the item was added to wait for (a list), its policy ('fail' or
--                    'run'; '' when the item has no dependencies), those it still waits for
--                    (P:deps:<id>), how many blocked items wait for it and up to 100 of them
--   'results' id  -> {dep, result, dep, result, ...} for each id it was added to wait for, in
--                    order: the kept result's data, or false when none is kept
-- Bounded: an item has at most 1000 dependencies.
local action, id = ARGV[1], ARGV[2]
local job = redis.pcall('HMGET', JOB .. id, 'depends_on', 'on_dependency_failure')
if job.err then
  job = {}
end
local deps = {}
for dep in string.gmatch(job[1] or '', '[^\n]+') do
  deps[#deps + 1] = dep
end
if action == 'results' then
  local out = {}
  for _, dep in ipairs(deps) do
    local kept = redis.pcall('LINDEX', RESULT .. dep, 2)
    out[#out + 1] = dep
    out[#out + 1] = type(kept) == 'string' and kept or false
  end
  return out
end
local pending = redis.pcall('SMEMBERS', deps_key(id))
local count = redis.pcall('SCARD', dependants_key(id))
local some = redis.pcall('SRANDMEMBER', dependants_key(id), 100)
return {deps, job[1] and (job[2] or 'fail') or '', type(pending) == 'table' and not pending.err and pending or {},
  type(count) == 'number' and count or 0, type(some) == 'table' and not some.err and some or {}}
