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

-- nil when each named field is absent or an integer (what HINCRBY needs); else which one is damaged.
local function badCounter(jobKey, ...)
  local names = {...}
  local values = redis.call("HMGET", jobKey, unpack(names))
  for i = 1, #names do
    local v = values[i]
    if v and not string.match(v, "^%-?%d+$") then
      return "field " .. names[i] .. " is not an integer (\"" .. string.sub(v, 1, 40) .. "\")"
    end
  end
  return nil
end

-- The job's problem, nil when it is sound: the key type first, then the counters the caller will increment.
local function jobProblem(jobKey, ...)
  local problem = jobKeyProblem(jobKey)
  if problem == nil and select("#", ...) > 0 then
    problem = badCounter(jobKey, ...)
  end
  return problem
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
