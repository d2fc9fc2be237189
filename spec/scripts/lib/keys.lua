--! include:
-- leaseq protocol v2: the keys of a queue (spec/PROTOCOL.md, 4.2). Every call declares two keys,
-- P:lease: and P:item:, which never exist; bind_keys derives the prefix P from the first and
-- binds these names, first in every call. Any file that includes keys reads them; only
-- bind_keys assigns them (spec/PROTOCOL.md 4.1, the include rule).
local QUEUE      -- P:queue        LIST  waiting ids of priority 0 (redis-work-queue's list)
local PROCESSING -- P:processing   LIST  ids redis-work-queue clients took (leaseq v2 never adds)
local LEASE      -- P:lease:       family: LEASE .. id, STRING token with PX expiry
local ITEM       -- P:item:        family: ITEM .. id, STRING data of a waiting or leased item
local JOB        -- P:job:         family: JOB .. id, HASH of leaseq's per-item fields
local DATA       -- P:data:        family: DATA .. id, STRING data of a delayed or dead item
local DELAYED    -- P:delayed      ZSET  id -> due time (ms)
local LEASED     -- P:leased       ZSET  id -> lease expiry (ms), leaseq leases
local DEAD       -- P:dead         ZSET  id -> time it died (ms)
local PRIOS      -- P:prios        ZSET  priority levels other than 0 that have a list
local PRIO       -- P:prio:        family: PRIO .. n, LIST waiting ids of priority n
local CONFIG     -- P:config       HASH  the queue's stored defaults
local WAKE       -- P:wake         LIST  one element while a leaseq waiter should look
local RESULT     -- P:result:      family: RESULT .. id, LIST {finished, attempts, result}
local RATE       -- P:rate:        family: RATE .. minute, HASH of counters
local COUNTS     -- P:lease_count  HASH  protocol v1's lease counts; only cleaned now
local PAUSED     -- P:paused       STRING '1' while the queue is paused
local HELD       -- P:held         LIST  waiting ids of priority 0 hidden while paused
local ROOM       -- P:room         LIST  one element while a bounded queue made room
local LIMIT      -- P:limit        STRING leases in the rate limit's window, PX: the window
local GROUP      -- P:group:       family: GROUP .. g, ZSET waiting ids of group g
local READY      -- P:ready        LIST  the ring of groups with work and a free slot
local READY_SET  -- P:ready_set    SET   the groups on the ring
local GROUP_ACTIVE  -- P:group_active  HASH g -> its leased items
local GROUP_LIMIT   -- P:group_limit   HASH g -> its own concurrency limit
local GROUP_PAUSED  -- P:group_paused  SET  paused groups
local GROUP_WAITING -- P:group_waiting STRING ids waiting in groups
local GROUP_SEQ     -- P:group_seq     STRING the order of queueing in groups
local GROUP_RATE    -- P:group_rate:   family: GROUP_RATE .. g, STRING g's leases in its window
local GROUP_WAIT    -- P:group_wait    ZSET g -> the end of its rate limit's window (ms)
local DONE          -- P:done          ZSET id -> finished (ms) of items whose result is kept
local EVENTS        -- P:events        STREAM the queue's transitions, while its events are on
local PARTITIONS    -- P:partitions    STRING a partitioned queue's layout: P is its base, no queue

-- Each queue's names, built on a queue's first call and kept in the library's memory (at most
-- 10000 queues, then all are forgotten): a call binds them with one table lookup. last_bound is
-- the names table whose values QUEUE .. EVENTS above hold now.
local NAMES = {'queue', 'processing', 'lease:', 'item:', 'job:', 'data:', 'delayed', 'leased', 'dead',
  'prios', 'prio:', 'config', 'wake', 'result:', 'rate:', 'lease_count', 'paused', 'held', 'room', 'limit',
  'group:', 'ready', 'ready_set', 'group_active', 'group_limit', 'group_paused', 'group_waiting', 'group_seq',
  'group_rate:', 'group_wait', 'done', 'events', 'partitions'}
local bound, bound_count, last_bound = {}, 0, nil

local function names_of(lease_family)
  local prefix = type(lease_family) == 'string' and string.sub(lease_family, 1, -8) or ''
  if prefix == '' or prefix .. ':lease:' ~= lease_family then
    error({err = 'ERR leaseq: KEYS[1] must be <prefix>:lease:'})
  end
  local names = {}
  for i = 1, #NAMES do
    names[i] = prefix .. ':' .. NAMES[i]
  end
  bound_count = bound_count + 1
  if bound_count > 10000 then
    bound, bound_count = {}, 1
  end
  bound[lease_family] = names
  return names
end

-- Called first by every function (spec/PROTOCOL.md, 4.1): the keys of this call's queue, from
-- KEYS[1] (P:lease:) and KEYS[2] (P:item:, checked: the pair is what keeps a call off a
-- migrating slot, 4.2).
local function bind_keys(keys)
  local n = bound[keys[1]] or names_of(keys[1])
  if keys[2] ~= n[4] then
    error({err = 'ERR leaseq: KEYS[2] must be <prefix>:item:'})
  end
  -- The names are still bound from the last call when it was on the same queue (nothing else
  -- assigns them): the common case of one queue skips the 33 assignments (~4,700 instructions).
  if n == last_bound then
    return
  end
  last_bound = n
  QUEUE, PROCESSING, LEASE, ITEM, JOB, DATA, DELAYED, LEASED = n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8]
  DEAD, PRIOS, PRIO, CONFIG, WAKE, RESULT, RATE, COUNTS = n[9], n[10], n[11], n[12], n[13], n[14], n[15], n[16]
  PAUSED, HELD, ROOM, LIMIT = n[17], n[18], n[19], n[20]
  GROUP, READY, READY_SET, GROUP_ACTIVE, GROUP_LIMIT = n[21], n[22], n[23], n[24], n[25]
  GROUP_PAUSED, GROUP_WAITING, GROUP_SEQ, GROUP_RATE, GROUP_WAIT = n[26], n[27], n[28], n[29], n[30]
  DONE = n[31]
  EVENTS = n[32]
  PARTITIONS = n[33]
end
