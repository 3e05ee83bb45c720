-- isMaxed: 1 while a global concurrency is set and as many jobs are active, else 0.
-- KEYS[1] meta
-- KEYS[2] active
local limit = tonumber(redis.call("HGET", KEYS[1], "concurrency"))
if limit and redis.call("LLEN", KEYS[2]) >= limit then
  return 1
end
return 0
