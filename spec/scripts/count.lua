--! include: keys waiting
--! flags: no-writes
-- count, queue_len, processing_len. ARGV: state (waiting, delayed, leased, dead, processing, or
-- in_progress: leaseq's leases plus redis-work-queue's processing list, processing_len's count).
-- Returns the number of ids in that state's lists or sets (waiting lists may hold stale ids until a
-- lease or clean drops them).
local state = ARGV[1]
if state == 'waiting' then
  return waiting_count()
end
if state == 'processing' then
  return redis.call('LLEN', PROCESSING)
end
if state == 'in_progress' then
  return redis.call('ZCARD', LEASED) + redis.call('LLEN', PROCESSING)
end
return redis.call('ZCARD', ({delayed = DELAYED, leased = LEASED, dead = DEAD})[state])
