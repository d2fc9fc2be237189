--! include: time schedule
--! flags: no-writes
-- schedules (spec/PROTOCOL.md 5.23), reads only. ARGV:
--   'due' limit      -> {now, next, {name, fields (flat)}...}: the schedules due now (score at or
--                       before now, at most `limit`, the earliest first) and `next`, the score
--                       of the first one not due ('' when none);
--   'page' start n   -> {now, total, {name, fields}...}: n schedules from rank `start`, by next
--                       fire time;
--   'get' name       -> {now, fields or false}.
local index = cron_keys()
local now = now_ms()
local mode = ARGV[1]
local function with_fields(names)
  local out = {}
  for i = 1, #names do
    local _, key = cron_keys(names[i])
    out[i] = {names[i], redis.call('HGETALL', key)}
  end
  return out
end
if mode == 'get' then
  local _, key = cron_keys(ARGV[2])
  local fields = redis.call('HGETALL', key)
  return {now, #fields > 0 and fields or false}
elseif mode == 'due' then
  local names = redis.call('ZRANGEBYSCORE', index, '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
  local after = redis.call('ZRANGEBYSCORE', index, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  return {now, after[2] or '', with_fields(names)}
end
local start = tonumber(ARGV[2])
local names = redis.call('ZRANGE', index, start, start + tonumber(ARGV[3]) - 1)
return {now, redis.call('ZCARD', index), with_fields(names)}
