--! include: time guard schedule
--! flags:
-- schedule_upsert (spec/PROTOCOL.md 5.23). ARGV: name, grace_ms, max_schedules, then the
-- schedule's own field/value pairs (kind, cron, tz, every, missed, and the item template: data,
-- priority, max_attempts, backoff, expires_after_ms, keep_result_ms, group, item_name), which
-- the client validated. Replaces the schedule's spec, bumps its version and sets `from`, the
-- instant up to which every tick is decided: now for a new schedule, else the later of its old
-- `from` and now - grace (a tick the change overtook by more than the grace never fires; one
-- within the grace, or after the change, fires once under the new spec). Its next fire time is
-- unknown until a firer settles it (5.23), so its score in P:cron is `from`: due at once.
-- Returns {1, version, from, now}, or {0, count} when the queue already holds max_schedules
-- schedules and this is a new one (nothing written).
local name, grace, most = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local index, key = cron_keys(name)
local now = now_ms()
-- Reads and types first: a key of another type fails the call before any write; so does a
-- partitioned queue's base (5.25), whose runners fire the schedules of its partition 0.
refuse_base()
want(index, 'zset')
want(key, 'hash')
local old = redis.call('HMGET', key, 'version', 'from', 'created', 'anchor', 'fired', 'skipped',
  'last_tick', 'last_fired_at')
local version, from = tonumber(old[1]), tonumber(old[2])
if version then
  version = version + 1
  from = math.max(from or now, now - grace)
else
  local count = redis.call('ZCARD', index)
  if count >= most then
    return {0, count}
  end
  version, from = 1, now
end
local fields = {'version', version, 'from', from, 'created', old[3] or now, 'updated', now,
  'anchor', old[4] or now}
local kept = {'fired', 'skipped', 'last_tick', 'last_fired_at'}
for i = 1, #kept do
  if old[i + 4] then
    fields[#fields + 1] = kept[i]
    fields[#fields + 1] = old[i + 4]
  end
end
for i = 4, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('DEL', key)
redis.call('HSET', key, unpack(fields))
redis.call('ZADD', index, from, name)
return {1, version, from, now}
