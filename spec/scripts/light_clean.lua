-- light_clean, one batch. ARGV: batch_size
-- Takes up to batch_size ids (never more than processing holds, so that no id is seen twice in
-- one batch) from the tail (oldest end) of processing and sorts each:
--   item gone            -> dropped (and its lease count with it); so is an id whose item key
--                           holds another type than a string: it is no item
--   lease live           -> back to the head of processing
--   no lease, item there -> back to the queue (LPUSH: the end of the line), once per batch
-- Returns {examined, requeued, removed, length of processing before this batch}.
local before = redis.call('LLEN', PROCESSING)
local examined, requeued, removed = 0, 0, 0
local seen = {}
for _ = 1, math.min(tonumber(ARGV[1]), before) do
  local id = redis.call('RPOP', PROCESSING)
  if not id then
    break
  end
  examined = examined + 1
  if redis.call('TYPE', ITEM .. id)['ok'] ~= 'string' then
    redis.call('HDEL', COUNTS, id)
    removed = removed + 1
  elseif redis.call('EXISTS', LEASE .. id) == 1 then
    redis.call('LPUSH', PROCESSING, id)
  elseif seen[id] then
    removed = removed + 1
  else
    seen[id] = true
    redis.call('LPUSH', QUEUE, id)
    requeued = requeued + 1
  end
end
return {examined, requeued, removed, before}
