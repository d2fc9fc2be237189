--! include: keys time config waiting
--! flags:
-- add, add_unique, add_batch. ARGV: mode ('add' or 'unique'), incarnation base, then 9 values
-- per item: id, data, delay_ms, run_at_ms, priority, max_attempts, backoff, expires_after_ms,
-- keep_result_ms ('' for "not set"). Returns how many items were added.
-- An item without options is stored as redis-work-queue stores one (P:item:<id> and P:queue),
-- with no other key. An option puts its values in P:job:<id>; a due time in the future parks
-- the data at P:data:<id> and lists the id in P:delayed.
local unique = ARGV[1] == 'unique'
local cfg_priority = tonumber(config('priority')) or 0
local cfg_expires = tonumber(config('expires_after_ms'))
local now = nil
local added = 0

-- Whether an item with this id exists: waiting or leased (P:item:), delayed or dead (P:job:).
-- A job hash (and P:leased entry) left behind by a redis-work-queue complete is stale and goes.
local function taken(id)
  if redis.call('EXISTS', ITEM .. id, JOB .. id) == 0 then
    return false
  end
  if redis.call('EXISTS', ITEM .. id) == 1 then
    return true
  end
  local state = redis.call('HGET', JOB .. id, 'state')
  if state == 'delayed' or state == 'dead' then
    return true
  end
  redis.call('DEL', JOB .. id)
  redis.call('ZREM', LEASED, id)
  return false
end

for i = 3, #ARGV, 9 do
  local id, data = ARGV[i], ARGV[i + 1]
  local delay, run_at, priority = ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local max, backoff, expires_after, keep = ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8]
  if unique or not taken(id) then
    local level = tonumber(priority) or cfg_priority
    local expires = tonumber(expires_after) or cfg_expires
    if delay == '' and run_at == '' and level == 0 and max == '' and backoff == ''
        and not expires and keep == '' then
      -- The list first: a key of another type there fails the call before this item is written.
      redis.call('LPUSH', QUEUE, id)
      redis.call('SET', ITEM .. id, data)
    else
      now = now or now_ms()
      local due = tonumber(run_at) or (tonumber(delay) and now + tonumber(delay)) or now
      local fields = {'inc', ARGV[2] .. ':' .. ((i - 3) / 9 + 1), 'attempts', 0, 'added', now}
      local function field(name, value)
        fields[#fields + 1] = name
        fields[#fields + 1] = value
      end
      if level ~= 0 then field('priority', level) end
      if max ~= '' then field('max_attempts', max) end
      if backoff ~= '' then field('backoff', backoff) end
      if expires then field('expires_at', now + expires) end
      if keep ~= '' then field('keep_result_ms', keep) end
      if due > now then
        field('state', 'delayed')
        field('due', due)
        redis.call('ZADD', DELAYED, due, id)
        redis.call('HSET', JOB .. id, unpack(fields))
        redis.call('SET', DATA .. id, data)
      else
        field('state', 'waiting')
        push_waiting(id, level)
        redis.call('HSET', JOB .. id, unpack(fields))
        redis.call('SET', ITEM .. id, data)
      end
    end
    added = added + 1
  end
end
return added
