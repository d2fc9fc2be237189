--! include: time
--! flags: no-writes
-- runner_list (spec/PROTOCOL.md, 13.2). KEYS 3: P:workers, 4: P:worker: (family), 5:
-- P:lock:housekeeping. ARGV: limit (at most 1000).
-- Returns {now, lock holder or false, {id, expires, info or false}...}.
local now = now_ms()
local live = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. now, '+inf', 'WITHSCORES',
  'LIMIT', 0, tonumber(ARGV[1]))
local reply = {now, redis.call('GET', KEYS[5])}
for i = 1, #live, 2 do
  reply[#reply + 1] = {live[i], tonumber(live[i + 1]), redis.call('GET', KEYS[4] .. live[i])}
end
return reply
