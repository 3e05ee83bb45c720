-- cleanJobsInSet: removes jobs of one state that are older than a cut-off, as BullMQ's clean. A job's age is
-- its finishedOn, else processedOn, else timestamp (delayed jobs: processedOn, else timestamp; prioritized:
-- timestamp); finished and waiting-children jobs go by their score. Locked active jobs and a job scheduler's
-- pending job are kept. Emits "cleaned" with the count, even when 0.
-- KEYS[1] the state's list or sorted set
-- KEYS[2] events
-- ARGV[1] key base
-- ARGV[2] cut-off (ms): jobs at or before it are removed
-- ARGV[3] at most this many jobs (0 = no limit)
-- ARGV[4] state key name: wait, paused, active, prioritized, delayed, completed, failed or waiting-children
-- Returns the removed ids.
--@include queueState
--@include destroyJob

local key, base, state = KEYS[1], ARGV[1], ARGV[4]
local cutoff, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local removed = {}
local GONE = "" -- a placeholder no job id can be: set over removed list entries, then LREMed at once

local function firstTime(jobKey, fields)
  -- a key of another type is a damaged job with no time: as old as can be, so cleaning removes it
  if redis.call("TYPE", jobKey)["ok"] ~= "hash" then
    return 0
  end
  for _, v in ipairs(redis.call("HMGET", jobKey, unpack(fields))) do
    if v then
      return tonumber(v)
    end
  end
  return nil
end

local function full()
  return limit > 0 and #removed >= limit
end

local function cleanList(lockCheck)
  -- with a limit only the oldest entries (the tail) are looked at
  local len = redis.call("LLEN", key)
  local from = 0
  if limit > 0 then
    from = math.max(0, len - limit)
  end
  local ids = redis.call("LRANGE", key, from, -1)
  for i, id in ipairs(ids) do
    if full() then
      break
    end
    local jobKey = base .. id
    if not (lockCheck and redis.call("EXISTS", jobKey .. ":lock") == 1) and not isSchedulerJob(base, id) then
      local t = firstTime(jobKey, {"finishedOn", "processedOn", "timestamp"})
      if not t or t <= cutoff then
        redis.call("LSET", key, from + i - 1, GONE)
        destroyJob(base, id, true)
        removed[#removed + 1] = id
      end
    end
  end
  redis.call("LREM", key, 0, GONE)
end

local function cleanSet(maxScore, fields, schedulerCheck)
  local ids
  if limit > 0 then
    ids = redis.call("ZRANGEBYSCORE", key, 0, maxScore, "LIMIT", 0, limit)
  else
    ids = redis.call("ZRANGEBYSCORE", key, 0, maxScore)
  end
  for _, id in ipairs(ids) do
    if full() then
      break
    end
    if not (schedulerCheck and isSchedulerJob(base, id)) then
      local t = fields and firstTime(base .. id, fields)
      if not fields or not t or t <= cutoff then
        destroyJob(base, id, true)
        removed[#removed + 1] = id
      end
    end
  end
  for i = 1, #removed, 5000 do
    redis.call("ZREM", key, unpack(removed, i, math.min(i + 4999, #removed)))
  end
end

if state == "active" then
  cleanList(true)
elseif state == "wait" or state == "paused" then
  cleanList(false)
elseif state == "delayed" then
  cleanSet("+inf", {"processedOn", "timestamp"}, true)
elseif state == "prioritized" then
  cleanSet("+inf", {"timestamp"}, true)
else
  -- completed, failed (scored by finishedOn) and waiting-children (scored by when they began to wait)
  cleanSet(cutoff, nil, false)
end
redis.call("XADD", KEYS[2], "*", "event", "cleaned", "count", #removed)
return removed
