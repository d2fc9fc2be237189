-- Completing an item. Needs keys, config, rate and outcome.
-- First wins within one incarnation: the call whose DEL of P:item:<id> removed the key, even
-- after its lease expired (a later holder's renew then says done). Returns 1 when this call
-- completed the item, else an outcome code of lib/outcome.lua (-2, -3, -4, or 0 when the item
-- was failed, released or dead-lettered since).
-- The common case takes a shortcut: the first lease of an item added without options, whose
-- incarnation is its own token (lib/lease.lua), while P:lease:<id> still holds that token. A
-- lease writes its token as the incarnation only when the item had none, so the live token
-- proves the incarnation (and a cancel overwrites the token, see cancel.lua).
--
-- A batch (complete_batch, complete_and_lease_batch) opens finish_batch first: the fast path then
-- leaves its ZREM from P:leased and its count for end_finish_batch, one ZREM and one HINCRBY
-- for the whole batch. Nothing between reads P:leased for those ids. begin_call resets it.
local finish_batch = nil

local function begin_finish_batch()
  finish_batch = {ids = {}, completed = 0}
end

local function end_finish_batch(now)
  local b = finish_batch
  finish_batch = nil
  if b and #b.ids > 0 then
    redis.call('ZREM', LEASED, unpack(b.ids))
  end
  if b and b.completed > 0 then
    count_event(now, 'completed', b.completed)
  end
end

local function complete_item(id, inc, token, has_result, result, keep_ms, now)
  if not has_result and inc == token and redis.call('GET', LEASE .. id) == token then
    local gone = redis.call('DEL', ITEM .. id) == 0
    redis.call('DEL', LEASE .. id, JOB .. id)
    local b = finish_batch
    if b then
      b.ids[#b.ids + 1] = id
      if gone then
        return -2
      end
      b.completed = b.completed + 1
      return 1
    end
    redis.call('ZREM', LEASED, id)
    if gone then
      return -2
    end
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
