--! include: time
--! flags: allow-oom
-- runner_beat (spec/PROTOCOL.md, 13.2). KEYS 3: P:workers, 4: P:worker: (family), 5:
-- P:lock:housekeeping. ARGV: id, info, ttl_ms, lock (1: take or keep the housekeeping lock),
-- lock_ttl_ms. Returns {holds_lock, now}.
local workers, lock = KEYS[3], KEYS[5]
local id, ttl = ARGV[1], tonumber(ARGV[3])
local now = now_ms()
-- Reads and the registry's type first: a key of another type fails the call before any write.
local holder = ARGV[4] == '1' and redis.call('GET', lock)
redis.call('ZADD', workers, now + ttl, id)
redis.call('SET', KEYS[4] .. id, ARGV[2], 'PX', ttl)
local gone = redis.call('ZRANGEBYSCORE', workers, '-inf', now, 'LIMIT', 0, 100)
if #gone > 0 then
  redis.call('ZREM', workers, unpack(gone))
end
-- The registry expires with its last registration, so that runners killed without a leave
-- leave no key behind when no runner beats any more.
local last = tonumber(redis.call('ZRANGE', workers, -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', workers, math.max(last - now, 1))
local holds = 0
if ARGV[4] == '1' then
  if not holder then
    redis.call('SET', lock, id, 'PX', ARGV[5])
    holds = 1
  elseif holder == id then
    redis.call('PEXPIRE', lock, ARGV[5])
    holds = 1
  end
end
return {holds, now}
