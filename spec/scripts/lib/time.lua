--! include:
-- An integer (a time or a duration in milliseconds) as the decimal string a command argument
-- needs. Lua's own number-to-string is a '%.14g' sprintf, several times the cost of '%d'; '%d'
-- is used where Lua's integer format holds every integer up to 2^53 (decided at the first call:
-- a library's load cannot use `string`).
local int_format = nil
local function decimal(n)
  if not int_format then
    int_format = string.format('%d', 2 ^ 53) == '9007199254740992' and '%d' or '%.0f'
  end
  return string.format(int_format, n)
end

-- The server's clock in milliseconds since the epoch: the only clock the protocol reads.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
