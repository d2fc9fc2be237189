--! include: keys guard rate
--! flags: no-writes
-- read_events (spec/PROTOCOL.md 14.4). ARGV: after ('' for "from now": no entries), count.
-- Reads the queue's event stream (P:events) after the entry id `after` (the client checked its
-- form: `<ms>-<seq>`), at most `count` entries. Returns {gap, last, entries, unknown, on}:
--   gap      '' or the id of the stream's first entry when entries after `after` may have
--            been trimmed away before the follower read them (length 0: the last id);
--   last     the stream's last id (XADD's, '0-0' for no stream): where "from now" starts;
--   entries  {{id, {field, value, ...}}, ...}, as XRANGE gives them;
--   unknown  1 when `after` is later than the stream's last id (an id it never gave), else 0;
--   on       1 while the queue's events are on (P:config events).
local after, count = ARGV[1], tonumber(ARGV[2])
local on = events_on() and 1 or 0
if redis.call('EXISTS', EVENTS) == 0 then
  return {'', '0-0', {}, 0, on}
end
want(EVENTS, 'stream')
local info = redis.call('XINFO', 'STREAM', EVENTS)
local fields = {}
for i = 1, #info, 2 do
  fields[info[i]] = info[i + 1]
end
local last = fields['last-generated-id'] or '0-0'
if after == '' then
  return {'', last, {}, 0, on}
end
-- Stream ids compared as (ms, seq).
local function id_of(text)
  local ms, seq = string.match(text, '^(%d+)-(%d+)$')
  return tonumber(ms) or 0, tonumber(seq) or 0
end
local function before(a, b)
  local a_ms, a_seq = id_of(a)
  local b_ms, b_seq = id_of(b)
  return a_ms < b_ms or (a_ms == b_ms and a_seq < b_seq)
end
if before(last, after) then
  return {'', last, {}, 1, on}
end
-- Trimming drops the oldest entries only (lib/events.lua), so entries are missing after
-- `after` when some were trimmed (entries-added > length) and `after` is before the first
-- entry kept: the gap is reported with that entry's id (it may be that `after` was itself the
-- last entry trimmed, and nothing was missed: the stream cannot tell).
local gap = ''
local first = fields['recorded-first-entry-id']
local length, added = tonumber(fields['length']) or 0, tonumber(fields['entries-added']) or 0
if added > length then
  if length == 0 then
    first = last
  end
  if first and before(after, first) and after ~= first then
    gap = first
  end
end
return {gap, last, redis.call('XRANGE', EVENTS, '(' .. after, '+', 'COUNT', count), 0, on}
