-- drain: removes the jobs that wait to run (wait, the legacy paused list, prioritized, and delayed when asked)
-- with their hashes and sub-keys, as BullMQ's drain: no events, a job scheduler's pending job is kept, and a
-- parent whose last child goes is removed too (same queue only).
-- KEYS[1] wait
-- KEYS[2] paused (legacy list)
-- KEYS[3] prioritized
-- KEYS[4] delayed
-- ARGV[1] key base
-- ARGV[2] "1" to drain delayed jobs too
-- Returns the number of jobs removed.
--@include queueState
--@include destroyJob

local base = ARGV[1]
local PAGE = 1000
local removed = 0

-- ids of the pending jobs of job schedulers, which drain leaves in place
local keep = {}
local schedulers = redis.call("ZRANGE", base .. "repeat", 0, -1, "WITHSCORES")
for i = 1, #schedulers, 2 do
  keep["repeat:" .. schedulers[i] .. ":" .. schedulers[i + 1]] = true
end

local function drainList(key)
  local kept = {}
  local from = 0
  while true do
    local ids = redis.call("LRANGE", key, from, from + PAGE - 1)
    if #ids == 0 then
      break
    end
    for _, id in ipairs(ids) do
      if keep[id] then
        kept[#kept + 1] = id
      else
        destroyJob(base, id, true)
        removed = removed + 1
      end
    end
    from = from + PAGE
  end
  redis.call("DEL", key)
  for i = 1, #kept, PAGE do
    redis.call("RPUSH", key, unpack(kept, i, math.min(i + PAGE - 1, #kept)))
  end
end

local function drainSet(key)
  local skipped = 0
  while true do
    local ids = redis.call("ZRANGE", key, skipped, skipped + PAGE - 1)
    if #ids == 0 then
      break
    end
    local gone = {}
    for _, id in ipairs(ids) do
      if keep[id] then
        skipped = skipped + 1
      else
        destroyJob(base, id, true)
        gone[#gone + 1] = id
      end
    end
    if #gone > 0 then
      redis.call("ZREM", key, unpack(gone))
      removed = removed + #gone
    end
  end
end

drainList(KEYS[1])
drainList(KEYS[2])
drainSet(KEYS[3])
if ARGV[2] == "1" then
  drainSet(KEYS[4])
end
return removed
