--! include:
--! flags: allow-oom
-- runner_leave (spec/PROTOCOL.md, 13.2). KEYS 3: P:workers, 4: P:worker: (family), 5:
-- P:lock:housekeeping. ARGV: id. Returns 1.
local id = ARGV[1]
-- The read first: a key of another type fails the call before any write.
local holds = redis.call('GET', KEYS[5]) == id
redis.call('ZREM', KEYS[3], id)
redis.call('DEL', KEYS[4] .. id)
if holds then
  redis.call('DEL', KEYS[5])
end
return 1
