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

-- The problem of a counter field the caller will increment (HINCRBY needs an integer or nothing), or nil; value is
-- false when the field is absent.
local function integerProblem(name, value)
  if value and not string.match(value, "^%-?%d+$") then
    return "field " .. name .. " is not an integer (\"" .. string.sub(value, 1, 40) .. "\")"
  end
  return nil
end

-- Reads the named fields of a job and checks it before the script's first write, in one command while the job is
-- sound: every job hash has "timestamp" (bull4j's and BullMQ's adds write it), so a value for it shows the key is a
-- hash, and pcall turns a key of another type into an error instead of aborting. Only when timestamp is absent or
-- the read fails does TYPE tell a missing key from a hash without timestamp or another type. The first `counters`
-- names are the counters the caller will increment. Returns the problem (nil when sound, as jobProblem) and the
-- values as HMGET gave them: values[1] is timestamp, values[i + 1] the i-th name's (false when absent).
local function readSoundJob(jobKey, counters, ...)
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
  for i = 1, counters do
    if values[i + 1] then
      local problem = integerProblem((select(i, ...)), values[i + 1])
      if problem then
        return problem, values
      end
    end
  end
  return nil, values
end

-- The job's problem, nil when it is sound: the key type first, then the named counters the caller will increment.
local function jobProblem(jobKey, ...)
  return (readSoundJob(jobKey, select("#", ...), ...))
end

-- The fields of a job about to be started, as a flat HGETALL list, read and checked before the first write in one
-- command (a hash is never empty in Redis, so an empty answer or an error is looked at with TYPE). The counter ats
-- is checked as jobProblem does. Returns the problem (nil when sound), the list, and where in it (the value's index,
-- nil when absent) the fields are that the start reads or rewrites: ats, processedOn, pb, rjk and opts. One pass
-- finds them all: a scan of the list per field cost Redis more than any command of the start.
local function readJobToStart(jobKey)
  local flat = redis.pcall("HGETALL", jobKey)
  if flat.err or #flat == 0 then
    local problem = jobKeyProblem(jobKey)
    if problem then
      return problem, {}
    end
    flat = redis.call("HGETALL", jobKey)
  end
  local ats, on, pb, rjk, opts
  for i = 1, #flat - 1, 2 do
    local f = flat[i]
    if f == "ats" then
      ats = i + 1
    elseif f == "processedOn" then
      on = i + 1
    elseif f == "pb" then
      pb = i + 1
    elseif f == "rjk" then
      rjk = i + 1
    elseif f == "opts" then
      opts = i + 1
    end
  end
  if ats then
    local problem = integerProblem("ats", flat[ats])
    if problem then
      return problem, flat
    end
  end
  return nil, flat, ats, on, pb, rjk, opts
end

-- Sets a field of a flat HGETALL list, as HSET sets it in the hash: at its value's index, or appended when absent.
local function setListed(flat, at, name, value)
  if at then
    flat[at] = value
  else
    flat[#flat + 1] = name
    flat[#flat + 1] = value
  end
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
