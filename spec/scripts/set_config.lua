--! include: keys config waiting
--! flags:
-- set_config (spec/PROTOCOL.md 3.2). ARGV: field, value, field, value, ... (validated by the
-- client). A capacity below the queue's size (waiting and delayed items) is refused: returns
-- that size and writes nothing. Else writes every field and returns -1. Not at a partitioned
-- queue's base (5.25).
refuse_base()
for i = 1, #ARGV, 2 do
  if ARGV[i] == 'capacity' then
    local size = waiting_count() + redis.call('ZCARD', DELAYED)
    if size > tonumber(ARGV[i + 1]) then
      return size
    end
  end
end
redis.call('HSET', CONFIG, unpack(ARGV))
-- The event stream's switch (spec 14.1): this library's leases read it at their next
-- housekeeping, which a forgotten hint makes the next lease's, in every database.
for i = 1, #ARGV, 2 do
  if ARGV[i] == 'events' then
    for _, h in pairs(queue_hints().dbs) do
      h.housekeeping = nil
    end
  end
end
return -1
