--! include: keys time
--! flags: no-writes
-- runner_list (spec/PROTOCOL.md, 13.2). KEYS 17: P:workers, 18: P:worker: (family), 19:
-- P:lock:housekeeping. ARGV: limit (at most 1000).
-- Returns {now, lock holder or false, {id, expires, info or false}...}.
local now = now_ms()
local live = redis.call('ZRANGEBYSCORE', KEYS[17], '(' .. now, '+inf', 'WITHSCORES',
  'LIMIT', 0, tonumber(ARGV[1]))
local reply = {now, redis.call('GET', KEYS[19])}
for i = 1, #live, 2 do
  reply[#reply + 1] = {live[i], tonumber(live[i + 1]), redis.call('GET', KEYS[18] .. live[i])}
end
return reply
