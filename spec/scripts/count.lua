--! include: keys waiting deps
--! flags: no-writes
-- count, queue_len, processing_len. ARGV: state (waiting, delayed, leased, dead, done, processing, or
-- in_progress: leaseq's leases plus redis-work-queue's processing list, processing_len's count;
-- or waiting_listed: the waiting positions list numbers, without the items waiting in groups).
-- Returns the number of ids in that state's lists or sets (waiting lists may hold stale ids until a
-- lease or clean drops them; done counts P:done, whose entries of expired results stay until a
-- complete that keeps a result drops them).
local state = ARGV[1]
if state == 'waiting' then
  return waiting_count()
end
if state == 'waiting_listed' then
  local n = 0
  for _, level in ipairs(levels_in_order()) do
    n = n + redis.call('LLEN', waiting_list(level))
  end
  return n
end
if state == 'processing' then
  return redis.call('LLEN', PROCESSING)
end
if state == 'in_progress' then
  return redis.call('ZCARD', LEASED) + redis.call('LLEN', PROCESSING)
end
if state == 'blocked' then
  return redis.call('ZCARD', blocked_key())
end
return redis.call('ZCARD', ({delayed = DELAYED, leased = LEASED, dead = DEAD, done = DONE})[state])
