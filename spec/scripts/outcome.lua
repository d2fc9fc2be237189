--! include: keys
--! flags: no-writes
-- outcome. ARGV: id. What a wait for the id's result reads (spec/PROTOCOL.md 5.11), in one
-- step, so that no complete or death lands between the reads: {died, reason, error_type, error,
-- live, result}: died is the time the item died (P:dead's score) or nil while it is not dead;
-- reason, error_type and error are its P:job:X fields (nil when absent); live is 1 when
-- P:item:X (waiting or leased) or P:data:X (parked) exists, else 0 (a record alone is what a
-- redis-work-queue client's complete leaves); result is the kept result (LRANGE 0 4, empty
-- when none).
local id = ARGV[1]
local died = redis.call('ZSCORE', DEAD, id)
local job = redis.call('HMGET', JOB .. id, 'reason', 'error_type', 'error')
local live = redis.call('EXISTS', ITEM .. id, DATA .. id) > 0 and 1 or 0
return {died, job[1], job[2], job[3], live, redis.call('LRANGE', RESULT .. id, 0, 4)}
