--! include: keys
--! flags: no-writes
-- get. ARGV: id. Returns nil when no item or kept result has this id, else
-- {state, data, job fields (flat name, value list, with lease_expires from P:leased), lease_ttl_ms, result}: state is waiting,
-- delayed, leased, dead or done; data is nil for done; lease_ttl_ms is -2 without a lease;
-- result is the kept result's {finished, attempts, result, added, name} or an empty list.
local id = ARGV[1]
local job = redis.call('HGETALL', JOB .. id)
local state = redis.call('HGET', JOB .. id, 'state')
local data
if state == 'delayed' or state == 'dead' or state == 'grouped' or state == 'blocked' then
  data = redis.call('GET', DATA .. id)
else
  data = redis.pcall('GET', ITEM .. id)
  if type(data) ~= 'string' then
    data = nil
  end
end
local ttl = redis.call('PTTL', LEASE .. id)
-- A leaseq lease's expiry is its score in P:leased (the job hash does not repeat it).
local expires = redis.call('ZSCORE', LEASED, id)
if expires then
  job[#job + 1] = 'lease_expires'
  job[#job + 1] = expires
end
local result = redis.call('LRANGE', RESULT .. id, 0, 4)
if not data then
  if #result == 0 then
    return nil
  end
  return {'done', false, {}, -2, result}
end
if state == 'grouped' then
  state = 'waiting'
elseif state ~= 'delayed' and state ~= 'dead' and state ~= 'blocked' then
  state = ttl > 0 and 'leased' or 'waiting'
end
return {state, data, job, ttl, result}
