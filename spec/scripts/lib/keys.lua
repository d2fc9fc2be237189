-- leaseq protocol v2: the keys every script receives, in this order (spec/PROTOCOL.md, 4.2).
-- A script's text is the files its `--! include:` line names, in that order, then its own file.
local QUEUE = KEYS[1]       -- P:queue        LIST  waiting ids of priority 0 (redis-work-queue's list)
local PROCESSING = KEYS[2]  -- P:processing   LIST  ids redis-work-queue clients took (leaseq v2 never adds)
local LEASE = KEYS[3]       -- P:lease:       family: LEASE .. id, STRING token with PX expiry
local ITEM = KEYS[4]        -- P:item:        family: ITEM .. id, STRING data of a waiting or leased item
local JOB = KEYS[5]         -- P:job:         family: JOB .. id, HASH of leaseq's per-item fields
local DATA = KEYS[6]        -- P:data:        family: DATA .. id, STRING data of a delayed or dead item
local DELAYED = KEYS[7]     -- P:delayed      ZSET  id -> due time (ms)
local LEASED = KEYS[8]      -- P:leased       ZSET  id -> lease expiry (ms), leaseq leases
local DEAD = KEYS[9]        -- P:dead         ZSET  id -> time it died (ms)
local PRIOS = KEYS[10]      -- P:prios        ZSET  priority levels other than 0 that have a list
local PRIO = KEYS[11]       -- P:prio:        family: PRIO .. n, LIST waiting ids of priority n
local CONFIG = KEYS[12]     -- P:config       HASH  the queue's stored defaults
local WAKE = KEYS[13]       -- P:wake         LIST  one element while a leaseq waiter should look
local RESULT = KEYS[14]     -- P:result:      family: RESULT .. id, LIST {finished, attempts, result}
local RATE = KEYS[15]       -- P:rate:        family: RATE .. minute, HASH of counters
local COUNTS = KEYS[16]     -- P:lease_count  HASH  protocol v1's lease counts; only cleaned now

-- Scripts are not rolled back when a command fails part-way, and under maxmemory with
-- noeviction Redis refuses commands that may grow memory (SET, HSET, LPUSH, ZADD, ...) while
-- it allows the others (RPOP, DEL, ZREM, ...). A script that may grow memory calls this first:
-- a SET ... XX of the family prefix P:item:, a key that never exists (ids are not empty), does
-- nothing, unless Redis is out of memory, when it fails before the script has changed anything.
local function refuse_when_out_of_memory()
  redis.call('SET', ITEM, '', 'XX')
end
