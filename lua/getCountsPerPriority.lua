-- getCountsPerPriority: how many ready jobs each priority holds, in one step (read only).
-- KEYS[1] wait (priority 0)
-- KEYS[2] prioritized (score = priority * 2^32 + a counter)
-- ARGV[...] the priorities, 0..2097151
-- Returns one count per ARGV, in order.

local counts = {}
for i, arg in ipairs(ARGV) do
  local p = tonumber(arg)
  if p == 0 then
    counts[i] = redis.call("LLEN", KEYS[1])
  else
    counts[i] = redis.call("ZCOUNT", KEYS[2], p * 4294967296, (p + 1) * 4294967296 - 1)
  end
end
return counts
