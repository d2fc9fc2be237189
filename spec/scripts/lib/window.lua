--! include: keys
-- The ids at positions start .. start+count-1 of a list: which is 'queue', 'processing', 'held'
-- (P:held, a paused queue's ids of priority 0), or a priority level's number (its P:prio:<n>
-- list).
local function list_window(which, start, count)
  local list = PROCESSING
  if which == 'queue' then
    list = QUEUE
  elseif which == 'held' then
    list = HELD
  elseif which ~= 'processing' then
    list = PRIO .. which
  end
  start = tonumber(start)
  return redis.call('LRANGE', list, start, start + tonumber(count) - 1)
end
