--! include: schedule
--! flags: allow-oom
-- schedule_remove (spec/PROTOCOL.md 5.23). ARGV: name. Removes the schedule; items it added
-- stay. Returns 1, or 0 when there was no such schedule.
local index, key = cron_keys(ARGV[1])
local removed = redis.call('ZREM', index, ARGV[1])
return math.max(removed, redis.call('DEL', key))
