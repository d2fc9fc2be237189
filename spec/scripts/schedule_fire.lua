--! include: keys time config guard waiting schedule events
--! flags:
-- schedule_fire (spec/PROTOCOL.md 5.23). ARGV: name, version, from, new_from, next, skipped,
-- inc_base, then the ticks to fire (ms, ascending, at most 1010). Compares and sets: unless the
-- schedule still has this version and this `from`, nothing is written and the reply is
-- {-1, now} (another firer, or an upsert, moved it; a lost reply's resend lands here too).
-- Else it checks the ticks against the server's clock (each after `from`, at or before
-- `new_from`, itself at or before now; `next` after `new_from`), adds one item per tick, with
-- the id `<name>@<tick>` and the schedule's data and options, as add.lua adds an item (an id
-- that exists is not added again), moves `from` and the score in P:cron to `next`, and counts.
-- Returns {items added, now}. A bounded queue without room for them refuses the call (FULL)
-- and nothing is written: the ticks stay due.
local name = ARGV[1]
local index, key = cron_keys(name)
local now = now_ms()
want(index, 'zset')
local h = redis.call('HMGET', key, 'version', 'from', 'data', 'priority', 'max_attempts', 'backoff',
  'expires_after_ms', 'keep_result_ms', 'group', 'item_name')
if h[1] ~= ARGV[2] or h[2] ~= ARGV[3] then
  return {-1, now}
end
local from, new_from, next_at = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if not (new_from and next_at and new_from >= from and new_from <= now and next_at > new_from)
    or #ARGV - 7 > 1010 then
  error({err = 'ERR leaseq: schedule_fire: from, new_from and next are out of order'})
end
local last = from
for i = 8, #ARGV do
  local tick = tonumber(ARGV[i])
  if not tick or tick <= last or tick > new_from then
    error({err = 'ERR leaseq: schedule_fire: tick ' .. ARGV[i] .. ' is out of order'})
  end
  last = tick
end

-- The items: one per tick whose id is free, with the template's options (add.lua, step 3).
local data, priority, max, backoff = h[3] or '', h[4] or '', h[5] or '', h[6] or ''
local expires_after, keep, group, item_name = h[7] or '', h[8] or '', h[9] or '', h[10] or ''
local level = tonumber(priority) or tonumber(config('priority')) or 0
local expires = tonumber(expires_after) or tonumber(config('expires_after_ms'))
local plain = level == 0 and max == '' and backoff == '' and not expires and keep == ''
  and group == '' and item_name == ''
local plan = {}
for i = 8, #ARGV do
  local id = name .. '@' .. ARGV[i]
  if redis.call('EXISTS', ITEM .. id, JOB .. id) == 0 then
    plan[#plan + 1] = id
  end
end
local capacity = tonumber(config('capacity'))
if capacity and #plan > 0 then
  local size = waiting_count() + redis.call('ZCARD', DELAYED)
  if size + #plan > capacity then
    return redis.error_reply('FULL leaseq: the queue ' .. string.sub(QUEUE, 1, -7) .. ' holds ' .. size .. ' of its capacity ' .. capacity
      .. '; the ' .. #plan .. ' items of schedule ' .. name .. ' do not fit')
  end
end
if #plan > 0 then
  want_queue()
  want_level(level, group)
end

-- Then the writes.
for n, id in ipairs(plan) do
  if plain then
    redis.call('LPUSH', level_zero_list(), id)
    redis.call('SET', ITEM .. id, data)
    emit('added', id, nil, 0, nil, 'schedule', name)
  else
    local fields = {'inc', ARGV[7] .. ':' .. n, 'attempts', 0, 'added', now}
    local function field(f, value)
      fields[#fields + 1] = f
      fields[#fields + 1] = value
    end
    if level ~= 0 then field('priority', level) end
    if max ~= '' then field('max_attempts', max) end
    if backoff ~= '' then field('backoff', backoff) end
    if expires then field('expires_at', now + expires) end
    if keep ~= '' then field('keep_result_ms', keep) end
    if group ~= '' then field('group', group) end
    if item_name ~= '' then field('name', item_name) end
    if group ~= '' then
      field('state', 'grouped')
      redis.call('HSET', JOB .. id, unpack(fields))
      redis.call('SET', DATA .. id, data)
      push_waiting(id, level, group)
    else
      field('state', 'waiting')
      push_waiting(id, level)
      redis.call('HSET', JOB .. id, unpack(fields))
      redis.call('SET', ITEM .. id, data)
    end
    emit('added', id, fields[2], 0, item_name, 'schedule', name)
  end
end
local fields = {'from', new_from, 'next', next_at}
if #ARGV >= 8 then
  fields[#fields + 1] = 'last_tick'
  fields[#fields + 1] = ARGV[#ARGV]
  fields[#fields + 1] = 'last_fired_at'
  fields[#fields + 1] = now
  redis.call('HINCRBY', key, 'fired', #ARGV - 7)
end
if tonumber(ARGV[6]) > 0 then
  redis.call('HINCRBY', key, 'skipped', ARGV[6])
end
redis.call('HSET', key, unpack(fields))
redis.call('ZADD', index, next_at, name)
return {#plan, now}
