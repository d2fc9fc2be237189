--! include: keys guard groups
--! flags: allow-oom
-- pause_group, resume_group, set_group_limit, group (spec/PROTOCOL.md 5.20). ARGV: action, group,
-- then for 'limit' the limit ('' removes the group's own, so that P:config group_concurrency
-- applies). Returns, for 'pause' and 'resume', 1 when the call changed the group, else 0; for
-- 'limit', 1; for 'info', {waiting, leased, limit, paused (1 or 0)}.
local action, g = ARGV[1], ARGV[2]
if action == 'info' then
  return {redis.call('ZCARD', GROUP .. g), tonumber(redis.call('HGET', GROUP_ACTIVE, g)) or 0,
    group_limit(g), redis.call('SISMEMBER', GROUP_PAUSED, g)}
end
want_queue()
want(GROUP .. g, 'zset')
if action == 'pause' then
  -- The ring drops the group when a lease meets it (lib/groups.lua, pop_grouped).
  return redis.call('SADD', GROUP_PAUSED, g)
end
if action == 'resume' then
  local changed = redis.call('SREM', GROUP_PAUSED, g)
  group_check(g)
  return changed
end
if action == 'limit' then
  if ARGV[3] == '' then
    redis.call('HDEL', GROUP_LIMIT, g)
  else
    redis.call('HSET', GROUP_LIMIT, g, ARGV[3])
  end
  group_check(g)
  return 1
end
error({err = 'ERR leaseq: unknown group action'})
