--! include: keys config rate
-- The event stream (spec/PROTOCOL.md 14): P:events, a STREAM with one entry per transition of an
-- item, appended only while the queue's events are on (P:config events = 1, read with the
-- counters' switch once per call: off, a call writes and reads nothing more for it).
--
-- emit(kind, id, inc, attempt, name, field, value, ...) appends one entry:
--   event <kind> id <id> inc <inc or ''> attempt <attempt or 0> [name <name>] [field value]...
-- kind is one of the kinds of spec 14.2 (`added`, `leased`, `completed`, ...); `name` is the
-- item's name (nil or '': none); the pairs after it are extra fields (`error`, `due`,
-- `reason`), each left out when its value is nil or ''. Other scripts call it after their own
-- writes, once per item (a batch: once per item of it).
-- The entry's id is the stream id XADD draws from the server's clock. The stream is bounded on
-- every append by length (MAXLEN ~ events_max_len) and, at most once a second per queue, by
-- age (XTRIM MINID ~ <the entry's time - events_max_age_ms>), both approximate (whole radix
-- nodes), so they cost O(1) amortised. Best effort, as the counters (pcall): a P:events of
-- another type never fails an operation; its entries are then not written.

-- Per queue (queue_hints): the time (ms, of the stream's clock) of the last trim by age.
local AGE_TRIM_EVERY_MS = 1000

local function emit(kind, id, inc, attempt, name, ...)
  local on, max_len, max_age = events_on()
  if not on then
    return
  end
  local args = {EVENTS, 'MAXLEN', '~', max_len, '*', 'event', kind, 'id', id, 'inc', inc or '',
    'attempt', attempt or 0}
  if name and name ~= '' then
    args[#args + 1] = 'name'
    args[#args + 1] = name
  end
  local extra = select('#', ...)
  for i = 1, extra, 2 do
    local field, value = select(i, ...)
    if value and value ~= '' then
      args[#args + 1] = field
      args[#args + 1] = value
    end
  end
  local entry = redis.pcall('XADD', unpack(args))
  if type(entry) ~= 'string' then
    return
  end
  local ms = tonumber(string.match(entry, '^(%d+)-'))
  local h = queue_hints()
  if ms and (not h.events_trimmed or ms - h.events_trimmed >= AGE_TRIM_EVERY_MS or ms < h.events_trimmed) then
    h.events_trimmed = ms
    if ms > max_age then
      redis.pcall('XTRIM', EVENTS, 'MINID', '~', ms - max_age)
    end
  end
end

-- A lease reply's leases ({id, data, attempts, inc, max, backoff[, name]} each), one `leased`
-- entry each. `h`: the lease's hints; their `events` (noted by housekeeping, and forgotten by
-- set_config of this library) spare a plain lease the switch's read while events are off.
local function emit_leases(h, leases, first)
  if not h.events then
    return
  end
  for i = first or 1, #leases do
    local lease = leases[i]
    emit('leased', lease[1], lease[4], lease[3], lease[7])
  end
end
