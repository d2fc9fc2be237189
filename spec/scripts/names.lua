--! include: keys time rate
--! flags: no-writes
-- counts_by_name. No ARGV. Returns {counting, name, completed, failed, dead, ...}: counting is 1
-- when the queue's counters are on (P:config stats = 1), else 0 and nothing follows; then, for
-- each name counted in the last 60 minutes (P:rate:<minute> fields `completed:<name>`,
-- `failed:<name>`, `dead:<name>`, lib/rate.lua), its totals over those minutes, by name (byte
-- order), at most MAX_NAMES names. Bounded: 60 hashes of at most NAMED_FIELDS fields each.
local MAX_NAMES = 1000
if not counters_on() then
  return {0}
end
local now = now_ms()
local this_minute = math.floor(now / 60000)
local totals, names = {}, {}
local columns = {completed = 1, failed = 2, dead = 3}
for m = this_minute - 59, this_minute do
  local fields = redis.pcall('HGETALL', RATE .. m)
  if type(fields) == 'table' and not fields.err then
    for i = 1, #fields, 2 do
      local field = fields[i]
      local sep = string.find(field, ':', 1, true)
      local column = sep and columns[string.sub(field, 1, sep - 1)]
      if column then
        local name = string.sub(field, sep + 1)
        local t = totals[name]
        if not t and #names < MAX_NAMES then
          t = {0, 0, 0}
          totals[name] = t
          names[#names + 1] = name
        end
        if t then
          t[column] = t[column] + (tonumber(fields[i + 1]) or 0)
        end
      end
    end
  end
end
table.sort(names)
local reply = {1}
for _, name in ipairs(names) do
  local t = totals[name]
  reply[#reply + 1] = name
  reply[#reply + 1] = t[1]
  reply[#reply + 1] = t[2]
  reply[#reply + 1] = t[3]
end
return reply
