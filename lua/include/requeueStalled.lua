-- The one way a stalled job goes back to wait, shared by the regular stalled pass and the sweep between passes.
-- Needs jobHealth (jobProblem, setAsideDamaged) included before it.

-- A job whose scheduler still exists is never failed for stalling (its scheduler hash is repeat:<id>, or in
-- older layouts only an entry in the repeat ZSET), as BullMQ does.
local function isLiveSchedulerJob(base, jobKey)
  local schedulerId = redis.call("HGET", jobKey, "rjk")
  if not schedulerId then
    return false
  end
  return redis.call("EXISTS", base .. "repeat:" .. schedulerId) == 1
    or redis.call("ZSCORE", base .. "repeat", schedulerId) ~= false
end

-- Requeues one candidate of the stalled set whose lock is gone (the caller checked). Returns "moved" when it went
-- back to the front of wait, "gone" when it had left active meanwhile, "damaged" when it was set aside.
local function requeueStalledJob(base, jobId, waitKey, activeKey, failedKey, eventsKey, maxLen, maxStalled, now)
  local jobKey = base .. jobId
  -- checked before the LREM, so that a damaged job is set aside, not dropped by an error halfway
  local problem = jobProblem(jobKey, "stc")
  if redis.call("LREM", activeKey, 1, jobId) == 0 then
    return "gone"
  end
  if problem then
    setAsideDamaged(jobKey, jobId, failedKey, eventsKey, maxLen, "active", problem, now)
    return "damaged"
  end
  local count = redis.call("HINCRBY", jobKey, "stc", 1)
  if count > maxStalled and not isLiveSchedulerJob(base, jobKey) then
    redis.call("HSET", jobKey, "defa", "job stalled more than allowable limit")
  end
  -- the front of the queue: a stalled job runs next
  redis.call("RPUSH", waitKey, jobId)
  redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", jobId, "prev", "active")
  redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "stalled", "jobId", jobId)
  return "moved"
end
