--! include: keys
-- create_layout (spec/PROTOCOL.md 5.25, "Creation", step 3). KEYS[3..]: the base B's fixed keys
-- but B:partitions (5.12), and B:done. ARGV: the layout's text.
-- Stores a partitioned queue's layout in B:partitions unless a layout is stored there or the
-- plain queue B exists, in one call: an add at B (which refuses once the layout exists, lib/
-- guard.lua refuse_base) cannot come between the check and the write. Returns {'stored', text}
-- when a layout is stored (nothing written), {'queue'} when B holds a queue (nothing written),
-- {'created'} when it wrote the layout. One loop-free call over at most 32 keys.
local stored = redis.call('GET', PARTITIONS)
if stored then
  return {'stored', stored}
end
if #KEYS > 2 and redis.call('EXISTS', unpack(KEYS, 3)) > 0 then
  return {'queue'}
end
redis.call('SET', PARTITIONS, ARGV[1])
return {'created'}
