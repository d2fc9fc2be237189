-- The start of every function call (spec/PROTOCOL.md, 4.1): binds this call's keys, and forgets
-- what the previous call cached or left half done (the library's state outlives a call; a
-- call's must not).
local function begin_call(keys)
  bind_keys(keys)
  config_cache = nil
  counting = nil
  finish_batch = nil
  checked = nil
end
