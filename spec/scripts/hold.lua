--! include: keys lease
--! flags: allow-oom
-- hold (spec/PROTOCOL.md 5.19). ARGV: ms. Holds the queue's leases off for ms (a handler was
-- told "rate limited"): P:limit becomes HOLD, more than any limit, for ms or what its expiry
-- had left, whichever is longer. Returns how long the queue is held off (ms).
local ms = tonumber(ARGV[1])
local left = redis.call('PTTL', LIMIT)
if left > ms then
  ms = left
end
redis.call('SET', LIMIT, HOLD_TEXT, 'PX', ms)
-- Leases read P:limit from now on (lib/lease.lua, h.watch), in every database.
for _, h in pairs(queue_hints().dbs) do
  h.watch = true
end
return ms
