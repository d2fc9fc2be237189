-- renew. ARGV: id, token, ttl_ms
-- 1: renewed; 0: the lease expired and nobody holds it; -1: another holder leases the item;
-- -2: the item is complete.
local holder = redis.call('GET', LEASE .. ARGV[1])
if holder == ARGV[2] then
  redis.call('PEXPIRE', LEASE .. ARGV[1], ARGV[3])
  return 1
end
if redis.call('EXISTS', ITEM .. ARGV[1]) == 0 then
  return -2
end
if holder then
  return -1
end
return 0
