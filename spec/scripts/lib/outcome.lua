--! include: keys groups
-- Why a holder's lease no longer lets it act (spec/PROTOCOL.md, 5.7). The codes:
--   1 ok · 0 expired (nobody holds the item) · -1 taken by another holder · -2 done (the item is
--   complete or gone) · -3 cancelled · -4 an older incarnation (the id was completed and added again)
local function lost_outcome(id, inc, holder, job_inc, cancelled)
  if job_inc and job_inc ~= inc then
    return -4
  end
  if not job_inc then
    if redis.call('EXISTS', ITEM .. id) == 1 then
      return -4
    end
    return -2
  end
  if cancelled then
    return -3
  end
  if holder then
    return -1
  end
  return 0
end

-- Removes a cancelled item whose holder reported back (`group`: the item's group, whose slot
-- that holder's lease took; nil when the item is not leased).
local function drop_cancelled(id, group)
  if group then
    want_slot_keys()
  end
  redis.call('ZREM', LEASED, id)
  redis.call('DEL', ITEM .. id, JOB .. id, LEASE .. id)
  if group then
    release_slot(group)
  end
end
