--! include: keys config guard holds groups
--! flags: allow-oom
-- pause_group, resume_group, set_group_limit, rate_limit_group, group (spec/PROTOCOL.md 5.20,
-- 5.21). ARGV: action, group, then for 'limit' the limit ('' removes the group's own, so that
-- P:config group_concurrency applies), for 'hold' the hold in ms. Returns, for 'pause' and
-- 'resume', 1 when the call changed the group, else 0; for 'limit', 1; for 'hold', the hold's
-- length (ms); for 'info', {waiting, leased, limit, paused (1 or 0), rate_limited_for (ms, or
-- -1)}.
local action, g = ARGV[1], ARGV[2]
if action == 'info' then
  -- At its rate limit or held: the count above the groups' limit, or at least HOLD (pcall: a
  -- key of another type limits nothing).
  local count = tonumber(redis.pcall('GET', GROUP_RATE .. g))
  local limited_for = -1
  if count and count > (tonumber(config('group_rate_max')) or HOLD - 1) then
    limited_for = redis.call('PTTL', GROUP_RATE .. g)
  end
  return {redis.call('ZCARD', GROUP .. g), tonumber(redis.call('HGET', GROUP_ACTIVE, g)) or 0,
    group_limit(g), redis.call('SISMEMBER', GROUP_PAUSED, g), limited_for}
end
refuse_base()
want_queue()
want(GROUP .. g, 'zset')
if action == 'hold' then
  want(GROUP_RATE .. g, 'string')
  return hold_group(g, tonumber(ARGV[3]))
end
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
