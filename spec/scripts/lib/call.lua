--! include: keys config(config_cache) guard(checked) rate(counting,switches) finish(finish_batch) waiting(paused_now,woke_now)
-- The start of every function call (spec/PROTOCOL.md, 4.1): binds this call's keys, and forgets
-- what the previous call cached or left half done (the library's state outlives a call; a
-- call's must not). It clears the per-call variables of config, guard, rate, finish and waiting itself,
-- as its include line declares, rather than through a function of each: begin_call runs on
-- every call.
local function begin_call(keys)
  bind_keys(keys)
  config_cache = nil
  counting = nil
  switches = nil
  finish_batch = nil
  checked = nil
  paused_now = nil
  woke_now = nil
end
