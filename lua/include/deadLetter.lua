-- Dead letters (bull4j only): a job's final failure also adds a copy of it to a dead-letter queue, in the same
-- script, so that both are written or neither. The copy is a plain job of that queue (same name and data, a new id
-- from its counter, in its wait list, with "added" and "waiting" events) plus a "deadLetter" field: JSON
-- {queue, jobId, failedReason, attemptsMade, stacktrace, failedOn, opts}. Its keys are built from the dead-letter
-- queue's key base, which shares the source queue's prefix (on Redis Cluster, its hash tag and slot). Needs
-- queueState and readyJob.

local function addDeadLetter(dlqBase, sourceQueue, jobKey, jobId, failedReason, attemptsMade, stacktrace, now)
  local f = redis.call("HMGET", jobKey, "name", "data", "opts", "stacktrace")
  local stack = stacktrace ~= "" and stacktrace or f[4] or "[]"
  local record = cjson.encode({queue = sourceQueue, jobId = jobId, failedReason = failedReason,
    attemptsMade = attemptsMade, failedOn = now, opts = f[3] or "{}"})
  -- the stack traces are a JSON array already: spliced in as is, not re-encoded as a string
  record = string.sub(record, 1, -2) .. ',"stacktrace":' .. stack .. "}"
  local id = tostring(redis.call("INCR", dlqBase .. "id"))
  local copyKey = dlqBase .. id
  redis.call("HSET", copyKey, "name", f[1] or "", "data", f[2] or "{}", "opts", '{"attempts":0}',
    "timestamp", now, "delay", 0, "priority", 0, "deadLetter", record)
  local maxLen = maxEvents(dlqBase .. "meta")
  redis.call("XADD", dlqBase .. "events", "MAXLEN", "~", maxLen, "*", "event", "added", "jobId", id,
    "name", f[1] or "")
  pushReady(dlqBase .. "wait", dlqBase .. "prioritized", dlqBase .. "pc", id, 0, false)
  redis.call("XADD", dlqBase .. "events", "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", id)
  if not isPausedOrMaxed(dlqBase .. "meta", dlqBase .. "active") then
    addReadyMarker(dlqBase .. "marker")
  end
  return id
end
