--! include: keys
-- The queue's stored configuration (P:config), falling back to the protocol's defaults
-- (spec/PROTOCOL.md, 3.2). Read at most once per script call.
local DEFAULTS = {
  max_attempts = 25,          -- leases (attempts) before an item is dead; 0: no limit
  backoff = 'exp:1000:3600000:1',
  priority = 0,
  dead_max_count = 10000,
  dead_max_age_ms = 604800000, -- 7 days
  keep_result_ms = 86400000,   -- 1 day
  stats = 0,                   -- per-minute counters (P:rate:<minute>): 1 on, 0 off
  group_concurrency = 1,       -- leased items of one group at once, unless the group says
  events = 0,                  -- the event stream (P:events, spec 14): 1 on, 0 off
  events_max_len = 10000,      -- entries it keeps at least, about (XADD MAXLEN ~)
  events_max_age_ms = 3600000, -- and for how long (XTRIM MINID ~), 1 hour
}
local config_cache = nil
local function config(field)
  if not config_cache then
    config_cache = {}
    local flat = redis.call('HGETALL', CONFIG)
    for i = 1, #flat, 2 do
      config_cache[flat[i]] = flat[i + 1]
    end
  end
  local value = config_cache[field]
  if value == nil then
    return DEFAULTS[field]
  end
  return value
end

-- Per-queue hints kept in the library's memory between calls. Never needed for correctness:
-- lost when the library reloads (restart, failover), and at most 10000 queues are remembered.
-- One library serves every database of a server, and a function cannot tell which database it
-- runs in, so what describes a queue's data is kept per database, as the lease functions name it
-- (their `db` argument, spec/PROTOCOL.md 4.1): the time of the next housekeeping, the queue's
-- backoff and max_attempts as of then, whether priority levels other than 0 are in use. The
-- current minute's counter key is a name, the same in every database.
local hints, remembered = {}, 0
local function queue_hints()
  local q = hints[QUEUE]
  if not q then
    remembered = remembered + 1
    if remembered > 10000 then
      hints, remembered = {}, 1
    end
    q = {dbs = {}}
    hints[QUEUE] = q
  end
  return q
end

-- The hints of this queue in database `db` (a decimal string, as ARGV gives it).
local function db_hints(db)
  local q = queue_hints()
  local h = q.dbs[db]
  if not h then
    h = {}
    q.dbs[db] = h
  end
  return h
end
