--! include: keys time groups deps flows events
--! flags: allow-oom
-- cancel. ARGV: id. Removes a waiting, delayed or dead item; marks a leased one, so that its
-- holder's renew, complete, fail and release answer "cancelled" (-3) and remove it, as does the
-- recovery of its lease when it expires. Returns the state the item was in, or nil (no item).
-- A waiting item's id stays in its list, stale, until a lease or a clean drops it.
local id = ARGV[1]
local state = redis.call('HGET', JOB .. id, 'state')
-- The event stream's entry (lib/events.lua) needs the record, read before the writes below.
local seen = events_on() and redis.call('HMGET', JOB .. id, 'inc', 'attempts', 'name')
-- Each way out below: items that wait for this one (5.24) learn that it was cancelled (a dead
-- one's learnt it when it died), then the stream's entry, after the writes.
local function cancelled(was)
  if was ~= 'dead' then
    note_settled(id, 'cancelled')
    settle_now(now_ms())
  end
  if seen then
    emit('cancelled', id, seen[1], tonumber(seen[2]) or 0, seen[3], 'state', was)
  end
  return was
end
if state == 'blocked' then
  -- Waiting for its dependencies (lib/flows.lua): out of P:blocked, its parked data and record gone.
  redis.call('ZREM', blocked_key(), id)
  redis.call('DEL', DATA .. id, JOB .. id, deps_key(id))
  return cancelled('blocked')
end
if state == 'grouped' then
  -- Waiting in its group (lib/groups.lua): out of the group's set, its parked data and record gone.
  remove_grouped(id, redis.call('HGET', JOB .. id, 'group'))
  redis.call('DEL', DATA .. id, JOB .. id)
  return cancelled('waiting')
end
if state == 'delayed' then
  redis.call('ZREM', DELAYED, id)
  redis.call('DEL', DATA .. id, JOB .. id)
  return cancelled('delayed')
end
if state == 'dead' then
  redis.call('ZREM', DEAD, id)
  redis.call('DEL', DATA .. id, JOB .. id)
  return cancelled('dead')
end
if redis.call('EXISTS', ITEM .. id) == 0 then
  if state then
    redis.call('DEL', JOB .. id)
  end
  return nil
end
if redis.call('EXISTS', LEASE .. id) == 1 then
  -- The holder's token is overwritten (the expiry kept), so that its complete takes no shortcut
  -- (lib/finish.lua) and its next call finds the mark.
  redis.call('SET', LEASE .. id, 'cancelled', 'KEEPTTL')
  redis.call('HSET', JOB .. id, 'cancelled', 1)
  if not state then
    redis.call('HSET', JOB .. id, 'state', 'leased')
  end
  return cancelled('leased')
end
-- Waiting, or leased by a lease that ran out and is not recovered yet: its P:leased entry goes
-- too, so that the recovery cannot take a later incarnation of the id for it. That lease's
-- group slot is given back here, since no recovery will (found by the protocol's model).
local group = state == 'leased' and redis.call('HGET', JOB .. id, 'group')
if group then
  want_slot_keys()
  release_slot(group)
end
redis.call('ZREM', LEASED, id)
redis.call('DEL', ITEM .. id, JOB .. id)
return cancelled('waiting')
