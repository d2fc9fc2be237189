-- leaseq protocol v2: the keys every function receives, in this order (spec/PROTOCOL.md, 4.2).
-- The library is every file of lib/ in the order of spec/PROTOCOL.md 4.1, then each function's
-- file as its body. These names are bound to the call's KEYS by bind_keys, first in every call.
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

-- Called first by every function (spec/PROTOCOL.md, 4.1): the keys of this call's queue.
local function bind_keys(keys)
  QUEUE = keys[1]
  PROCESSING = keys[2]
  LEASE = keys[3]
  ITEM = keys[4]
  JOB = keys[5]
  DATA = keys[6]
  DELAYED = keys[7]
  LEASED = keys[8]
  DEAD = keys[9]
  PRIOS = keys[10]
  PRIO = keys[11]
  CONFIG = keys[12]
  WAKE = keys[13]
  RESULT = keys[14]
  RATE = keys[15]
  COUNTS = keys[16]
end
