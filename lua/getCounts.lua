-- getCounts: the size of every state in one call (read only).
-- KEYS[1] wait
-- KEYS[2] paused (legacy list)
-- KEYS[3] active
-- KEYS[4] prioritized
-- KEYS[5] delayed
-- KEYS[6] completed
-- KEYS[7] failed
-- KEYS[8] waiting-children
-- Returns the eight counts in KEYS order. A legacy "0:" delay marker at the tail of a list is not counted.

local function listCount(key)
  local n = redis.call("LLEN", key)
  local last = redis.call("LINDEX", key, -1)
  if last and string.sub(last, 1, 2) == "0:" then
    n = n - 1
  end
  return n
end

local counts = {listCount(KEYS[1]), listCount(KEYS[2]), redis.call("LLEN", KEYS[3])}
for i = 4, 8 do
  counts[i] = redis.call("ZCARD", KEYS[i])
end
return counts
