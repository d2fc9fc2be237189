-- leaseq protocol v1: definitions shared by every script. An implementation sends each
-- operation's script as the text of this file, a newline, then the operation's file.
--
-- KEYS[1..5] are the same for every script (spec/PROTOCOL.md, "Scripts"):
local QUEUE = KEYS[1]      -- <prefix>:queue        LIST of ids waiting (LPUSH in, pop from the right)
local PROCESSING = KEYS[2] -- <prefix>:processing   LIST of ids leased (or being repaired)
local COUNTS = KEYS[3]     -- <prefix>:lease_count  HASH id -> times leased
local LEASE = KEYS[4]      -- <prefix>:lease:       family prefix: LEASE .. id is a lease key
local ITEM = KEYS[5]       -- <prefix>:item:        family prefix: ITEM .. id is an item key

-- How many unusable ids one lease may drop before it hands control back to the client, so that
-- a queue full of stale ids never blocks Redis for long.
local MAX_DROPS_PER_CALL = 1000

-- Moves ids from the queue into processing until one can be leased. Returns {id, data, count}
-- when one was leased, false when the queue is empty, and 1 when MAX_DROPS_PER_CALL ids were
-- dropped and the client should call again.
local function lease_next(token, ttl_ms)
  for _ = 1, MAX_DROPS_PER_CALL do
    local id = redis.call('LMOVE', QUEUE, PROCESSING, 'RIGHT', 'LEFT')
    if not id then
      return false
    end
    -- pcall: a key of another type under ITEM .. id is no item of ours; it must not stop the queue.
    local data = redis.pcall('GET', ITEM .. id)
    if type(data) == 'string' then
      -- NX: only when nobody leases the item (one command for the check and the write).
      if redis.call('SET', LEASE .. id, token, 'NX', 'PX', ttl_ms) then
        return {id, data, redis.call('HINCRBY', COUNTS, id, 1)}
      end
      -- A duplicate id of an item that another holder leases right now. Leave this copy in
      -- processing: if that holder dies, light clean re-queues the item from here.
    else
      -- The item is complete (its data is gone) or the key is not an item: drop this copy,
      -- which LMOVE put at the head of processing.
      redis.call('LREM', PROCESSING, 1, id)
      if not data then
        redis.call('HDEL', COUNTS, id)
      end
    end
  end
  return 1
end

-- The ids at positions start .. start+count-1 of the queue (which == 'queue') or of processing.
local function list_window(which, start, count)
  local list = QUEUE
  if which == 'processing' then
    list = PROCESSING
  end
  start = tonumber(start)
  return redis.call('LRANGE', list, start, start + tonumber(count) - 1)
end

-- Completes an item: returns 1 when this call removed the item's data (the one completer that
-- wins), 0 when the item was already complete. Clears everything else kept for the id.
local function complete_item(id)
  local removed = redis.call('DEL', ITEM .. id)
  redis.call('LREM', PROCESSING, 1, id)
  redis.call('DEL', LEASE .. id)
  redis.call('HDEL', COUNTS, id)
  return removed
end
