--! include: guard holds
--! flags: allow-oom
-- hold (spec/PROTOCOL.md 5.19). ARGV: ms. Holds the queue's leases off for ms (a handler was
-- told "rate limited"): P:limit becomes HOLD, more than any limit, for ms or what its expiry
-- had left, whichever is longer. Returns how long the queue is held off (ms).
-- Not at a partitioned queue's base (5.25).
refuse_base()
return hold_queue(tonumber(ARGV[1]))
