--! include: keys
--! flags: allow-oom
-- runner_leave (spec/PROTOCOL.md, 13.2). KEYS 17: P:workers, 18: P:worker: (family), 19:
-- P:lock:housekeeping. ARGV: id. Returns 1.
local id = ARGV[1]
redis.call('DEL', KEYS[18] .. id)
redis.call('ZREM', KEYS[17], id)
if redis.call('GET', KEYS[19]) == id then
  redis.call('DEL', KEYS[19])
end
return 1
