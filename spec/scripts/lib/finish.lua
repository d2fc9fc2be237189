-- Completing an item. Needs keys, config, rate and outcome.
-- First wins within one incarnation: the call whose DEL of P:item:<id> removed the key, even
-- after its lease expired (a later holder's renew then says done). Returns 1 when this call
-- completed the item, else an outcome code of lib/outcome.lua (-2, -3, -4, or 0 when the item
-- was failed, released or dead-lettered since).
-- The common case takes a shortcut: the first lease of an item added without options, whose
-- incarnation is its own token (lib/lease.lua), while P:lease:<id> still holds that token. A
-- lease writes its token as the incarnation only when the item had none, so the live token
-- proves the incarnation (and a cancel overwrites the token, see cancel.lua).
local function complete_item(id, inc, token, has_result, result, keep_ms, now)
  if not has_result and inc == token and redis.call('GET', LEASE .. id) == token then
    if redis.call('DEL', ITEM .. id) == 0 then
      redis.call('DEL', LEASE .. id, JOB .. id)
      redis.call('ZREM', LEASED, id)
      return -2
    end
    redis.call('DEL', LEASE .. id, JOB .. id)
    redis.call('ZREM', LEASED, id)
    count_event(now, 'completed')
    return 1
  end
  local job = redis.call('HMGET', JOB .. id, 'inc', 'cancelled', 'state', 'attempts', 'keep_result_ms')
  if job[1] ~= inc then
    return lost_outcome(id, inc, nil, job[1], nil)
  end
  if job[2] then
    drop_cancelled(id)
    return -3
  end
  if job[3] == 'delayed' or job[3] == 'dead' then
    return 0
  end
  if redis.call('DEL', ITEM .. id) == 0 then
    redis.call('DEL', JOB .. id)
    return -2
  end
  redis.call('ZREM', LEASED, id)
  redis.call('DEL', LEASE .. id, JOB .. id)
  count_event(now, 'completed')
  if has_result then
    local keep = tonumber(keep_ms) or tonumber(job[5]) or tonumber(config('keep_result_ms'))
    if keep > 0 then
      redis.call('DEL', RESULT .. id)
      redis.call('RPUSH', RESULT .. id, now, job[4] or 0, result)
      redis.call('PEXPIRE', RESULT .. id, keep)
    end
  end
  return 1
end
