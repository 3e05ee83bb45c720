-- obliterate: deletes a paused queue and everything in it, a batch of jobs per call; the caller calls again
-- while it answers 1. When the jobs are gone it deletes the queue's own keys (meta, events, counters...).
-- KEYS[1] meta
-- KEYS[2] active
-- KEYS[3] delayed
-- KEYS[4] completed
-- KEYS[5] wait
-- KEYS[6] paused (legacy list)
-- KEYS[7] prioritized
-- KEYS[8] failed
-- KEYS[9] waiting-children
-- ARGV[1] key base
-- ARGV[2] jobs per call
-- ARGV[3] "1" to delete active jobs too
-- Returns 1 more to delete, 0 done, -1 the queue is not paused, -2 it has active jobs and no force.
--@include queueState
--@include destroyJob

local base = ARGV[1]
local budget = tonumber(ARGV[2])

if redis.call("HEXISTS", KEYS[1], "paused") == 0 then
  return -1
end
if ARGV[3] ~= "1" and redis.call("LLEN", KEYS[2]) > 0 then
  return -2
end

-- Deletes up to `budget` jobs from the head of a list or the low end of a sorted set.
local function takeList(key)
  local ids = redis.call("LRANGE", key, 0, budget - 1)
  for _, id in ipairs(ids) do
    destroyJob(base, id, true)
  end
  redis.call("LTRIM", key, #ids, -1)
  budget = budget - #ids
end

local function takeSet(key)
  local ids = redis.call("ZRANGE", key, 0, budget - 1)
  for _, id in ipairs(ids) do
    destroyJob(base, id, true)
  end
  for i = 1, #ids, 5000 do
    redis.call("ZREM", key, unpack(ids, i, math.min(i + 4999, #ids)))
  end
  budget = budget - #ids
end

-- job schedulers: their definitions go with the queue
local function takeSchedulers()
  local repeatKey = base .. "repeat"
  local ids = redis.call("ZRANGE", repeatKey, 0, budget - 1)
  for _, id in ipairs(ids) do
    redis.call("DEL", repeatKey .. ":" .. id)
  end
  for i = 1, #ids, 5000 do
    redis.call("ZREM", repeatKey, unpack(ids, i, math.min(i + 4999, #ids)))
  end
  budget = budget - #ids
end

local steps = {
  function() takeList(KEYS[2]) end, function() takeSet(KEYS[3]) end, takeSchedulers,
  function() takeSet(KEYS[4]) end, function() takeList(KEYS[5]) end, function() takeList(KEYS[6]) end,
  function() takeSet(KEYS[7]) end, function() takeSet(KEYS[8]) end, function() takeSet(KEYS[9]) end
}
for _, step in ipairs(steps) do
  step()
  if budget <= 0 then
    return 1
  end
end

redis.call("DEL", base .. "events", base .. "stalled-check", base .. "stalled", base .. "id", base .. "pc",
  base .. "marker", base .. "limiter", base .. "delay", base .. "priority", base .. "metrics:completed",
  base .. "metrics:completed:data", base .. "metrics:failed", base .. "metrics:failed:data", KEYS[1])
return 0
