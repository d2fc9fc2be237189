--! include: keys config guard waiting(paused_now)
--! flags: allow-oom
-- pause, resume (spec/PROTOCOL.md 5.17). ARGV: '1' to pause, '0' to resume. Returns 1 when the
-- call changed the state, 0 when the queue already was so.
-- Pause: P:paused is set, and the ids of priority 0 go from P:queue to P:held (one RENAME), where
-- redis-work-queue clients do not look. Resume: P:paused goes, P:held becomes P:queue again (one
-- RENAME; see settle_held for the rare case of both lists), and P:wake wakes every waiter.
-- allow-oom: an operator can pause or resume a queue whose server is full.
local pause = ARGV[1] == '1'
refuse_base()
want(QUEUE, 'list')
want(HELD, 'list')
want(WAKE, 'list')
local was = is_paused()
if pause then
  redis.call('SET', PAUSED, '1')
  -- Leases read P:paused from now on (lib/lease.lua, h.watch), in every database.
  for _, h in pairs(queue_hints().dbs) do
    h.watch = true
  end
else
  redis.call('DEL', PAUSED)
end
paused_now = pause
local held = settle_held(1000)
if not pause then
  -- P:held is left only when more than 1000 ids were pushed to P:queue during the pause: leases
  -- take P:held's first (lib/waiting.lua, pop_level_zero), in every database's hints.
  if held then
    for _, h in pairs(queue_hints().dbs) do
      h.held = true
    end
  end
  if redis.call('LLEN', WAKE) == 0 then
    redis.call('RPUSH', WAKE, '1')
  end
  redis.call('PEXPIRE', WAKE, WAKE_TTL_MS)
end
return was == pause and 0 or 1
