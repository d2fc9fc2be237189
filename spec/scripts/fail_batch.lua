--! include: keys time guard fail
--! flags: allow-oom
-- fail_batch. ARGV: 8 values per lease, as fail.lua's with its trace ('' for none) (at most
-- 1000 leases).
-- Returns one {code, due_ms} per lease, in order, as fail's.
local now = now_ms()
local replies = {}
-- Every write of the batch is checked before the first (lib/guard.lua): the shared keys, and
-- each item's waiting list (a job record of another type fails here too).
want_queue()
for i = 1, #ARGV, 8 do
  want_level(redis.call('HGET', JOB .. ARGV[i], 'priority'))
end
for i = 1, #ARGV, 8 do
  replies[#replies + 1] = fail_item(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], now, ARGV[i + 7])
end
return replies
