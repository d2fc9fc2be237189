--! include: keys guard
--! flags: allow-oom
-- deep_clean, step 2: sort candidate ids found by SCAN, HSCAN or in the cleaning journal.
-- KEYS[3]: the snapshot set. KEYS[4]: <prefix>:cleaning (redis-work-queue's cleaner journal).
-- KEYS[5]: the suspects set. ARGV: from_journal ('1' or '0'), ttl_ms, id1, id2, ...
-- An id whose item key is gone (or holds no string) only loses its v1 lease count and a stale
-- job hash. An id whose item exists, that no lease holds, that leaseq does not list as leased
-- and that was in no list when the snapshot was taken is a suspect: step 3 looks for it in the
-- lists again before anything is queued.
-- Returns {suspects marked, removed}.
local marked, removed = 0, 0
-- Every write below is checked first (lib/guard.lua).
want(COUNTS, 'hash')
want(LEASED, 'zset')
want(KEYS[3], 'set')
want(KEYS[5], 'set')
if ARGV[1] == '1' then
  want(KEYS[4], 'list')
end
for i = 3, #ARGV do
  local id = ARGV[i]
  if redis.call('TYPE', ITEM .. id)['ok'] ~= 'string' then
    removed = removed + redis.call('HDEL', COUNTS, id)
    -- (pcall: a record of another type is no job of ours, and stays.)
    local state = redis.pcall('HGET', JOB .. id, 'state')
    if type(state) == 'string' and state ~= 'delayed' and state ~= 'dead' and state ~= 'grouped'
      and state ~= 'blocked' then
      removed = removed + redis.call('DEL', JOB .. id)
      redis.call('ZREM', LEASED, id)
    end
  elseif redis.call('SISMEMBER', KEYS[3], id) == 0 and redis.call('EXISTS', LEASE .. id) == 0
      and not redis.call('ZSCORE', LEASED, id) then
    marked = marked + redis.call('SADD', KEYS[5], id)
  end
  if ARGV[1] == '1' then
    redis.call('LREM', KEYS[4], 0, id)
  end
end
if marked > 0 then
  redis.call('PEXPIRE', KEYS[5], ARGV[2])
end
return {marked, removed}
