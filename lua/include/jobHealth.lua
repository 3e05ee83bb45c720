-- Checks a script makes on a job before its first write, and the one way a damaged job leaves the queue's lists:
-- never looped, never dropped without a trace.

-- Redis's clock in ms, for scripts that are not given the caller's time.
local function redisNowMs()
  local t = redis.call("TIME")
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- nil when the job key holds a hash; else "missing", or what the key holds instead.
local function jobKeyProblem(jobKey)
  local keyType = redis.call("TYPE", jobKey)["ok"]
  if keyType == "hash" then
    return nil
  end
  if keyType == "none" then
    return "missing"
  end
  return "job key holds a " .. keyType .. ", not a hash"
end

-- The problem of the first `count` named fields, each a counter the caller will increment (HINCRBY needs an
-- integer or nothing), or nil; values[i] holds names[i]'s value, false when absent.
local function counterProblem(names, values, count)
  for i = 1, count do
    local v = values[i]
    if v and not string.match(v, "^%-?%d+$") then
      return "field " .. names[i] .. " is not an integer (\"" .. string.sub(v, 1, 40) .. "\")"
    end
  end
  return nil
end

-- Reads the named fields of a job and checks it before the script's first write, in one command while the job is
-- sound: every job hash has "timestamp" (bull4j's and BullMQ's adds write it), so a value for it shows the key is a
-- hash, and pcall turns a key of another type into an error instead of aborting. Only when timestamp is absent or
-- the read fails does TYPE tell a missing key from a hash without timestamp or another type. The first `counters`
-- names are the counters the caller will increment. Returns the problem (nil when sound, as jobProblem) and the
-- values, values[i] for the i-th name (false when absent).
local function readSoundJob(jobKey, counters, ...)
  local names = {...}
  local values = redis.pcall("HMGET", jobKey, "timestamp", ...)
  if values.err or not values[1] then
    local problem = jobKeyProblem(jobKey)
    if problem then
      return problem, {}
    end
    if values.err then
      values = redis.call("HMGET", jobKey, "timestamp", ...)
    end
  end
  table.remove(values, 1)
  return counterProblem(names, values, counters), values
end

-- The job's problem, nil when it is sound: the key type first, then the named counters the caller will increment.
local function jobProblem(jobKey, ...)
  return (readSoundJob(jobKey, select("#", ...), ...))
end

-- The fields of a job about to be started, as a flat HGETALL list, read and checked before the first write in one
-- command (a hash is never empty in Redis, so an empty answer or an error is looked at with TYPE). The counter ats
-- is checked as jobProblem does. Returns the problem (nil when sound) and the list.
local function readJobToStart(jobKey)
  local flat = redis.pcall("HGETALL", jobKey)
  if flat.err or #flat == 0 then
    local problem = jobKeyProblem(jobKey)
    if problem then
      return problem, {}
    end
    flat = redis.call("HGETALL", jobKey)
  end
  for i = 1, #flat - 1, 2 do
    if flat[i] == "ats" then
      return counterProblem({"ats"}, {flat[i + 1]}, 1), flat
    end
  end
  return nil, flat
end

-- Sets a field in a flat HGETALL list, as HSET would in the hash.
local function setListedField(flat, name, value)
  for i = 1, #flat - 1, 2 do
    if flat[i] == name then
      flat[i + 1] = value
      return
    end
  end
  flat[#flat + 1] = name
  flat[#flat + 1] = value
end

-- Records a damaged job that the caller has already taken out of its list or set (prev names it): a job whose
-- hash is gone cannot be run or failed, so it only gets a "removed" event with the reason; any other damage puts
-- the id in failed, with the reason as failedReason (in the hash when there is one) and a "failed" event. Its
-- lock is dropped: no worker may finish it.
local function setAsideDamaged(jobKey, jobId, failedKey, eventsKey, maxLen, prev, problem, now)
  redis.call("DEL", jobKey .. ":lock")
  if problem == "missing" then
    redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "removed", "jobId", jobId, "prev", prev,
      "reason", "job hash missing")
    return
  end
  local reason = "bull4j: damaged job: " .. problem
  redis.call("ZADD", failedKey, now, jobId)
  if redis.call("TYPE", jobKey)["ok"] == "hash" then
    redis.call("HSET", jobKey, "failedReason", reason, "finishedOn", now)
  end
  redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "failed", "jobId", jobId,
    "failedReason", reason, "prev", prev)
end
