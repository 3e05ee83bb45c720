-- moveToFinished: completes or fails an active job for its lock owner, trims finished jobs, and may take the
-- next job in the same call. A job's deduplication key ("<base>de:<deid>", built from ARGV[1] like job keys)
-- is released when it has no TTL and still names the job.
-- KEYS[1] active
-- KEYS[2] completed or failed (the target set)
-- KEYS[3] events
-- KEYS[4] stalled
-- KEYS[5] meta
-- KEYS[6] wait
-- KEYS[7] prioritized
-- KEYS[8] pc
-- KEYS[9] delayed
-- KEYS[10] marker
-- KEYS[11] failed (where a damaged job is set aside, whatever the target)
-- ARGV[1] key base
-- ARGV[2] job id
-- ARGV[3] lock token
-- ARGV[4] now (ms), the finishedOn time
-- ARGV[5] "completed" or "failed"
-- ARGV[6] return value (JSON) or failed reason (plain text)
-- ARGV[7] stacktrace (JSON array), or "" to leave as is
-- ARGV[8] keep count (-1 keeps all, 0 removes the job at once)
-- ARGV[9] keep age (ms, -1 = any age; 0 removes every finished job, this one too, as in BullMQ)
-- ARGV[10] attempts allowed (for retries-exhausted)
-- ARGV[11] "1" to take the next job
-- ARGV[12] token for the next job
-- ARGV[13] lock duration (ms)
-- ARGV[14] worker name, or ""
-- ARGV[15] the worker's limiter max, or "" (the limiter key is ARGV[1] .. "limiter", see rateLimit.lua)
-- ARGV[16] the worker's limiter duration (ms), or ""
-- ARGV[17] the worker's metrics max data points, or "" for no metrics (the keys are ARGV[1] .. "metrics:<type>")
-- ARGV[18] a failure's dead-letter queue key base, or "" (see deadLetter.lua; bull4j only)
-- ARGV[19] this queue's name, for the dead letter
-- A child of a flow also updates its parent (flowParent.lua, keys built from the parent's queue key); so does a
-- trimmed job that its parent still waits for (unlinkTrimmed).
-- Returns {code} on refusal (-1 no job, -2 no lock, -6 lock mismatch, -3 not active, -4 completing a parent with
-- pending children, -9 completing a parent a child failed (failParentOnFailure), -20 the job's hash is damaged
-- and it was moved to failed with a reason naming the damage), else a fetch result
-- {fields, jobId, 0, 0, readyCount} or {0, 0, 0, nextDelayedMs}.
--@include queueState
--@include readyJob
--@include takeLock
--@include lockCheck
--@include removeJobKeys
--@include jobHealth
--@include promoteDelayed
--@include rateLimit
--@include fetchJob
--@include deduplicate
--@include metrics
--@include deadLetter
--@include flowParent

local base, jobId, token = ARGV[1], ARGV[2], ARGV[3]
local now = tonumber(ARGV[4])
local jobKey = base .. jobId
-- everything this script reads from the job is checked before its first write
-- (one read: the check's HMGET also brings deid, which tells whether the job owns a deduplication window)
local problem, jobFields = readSoundJob(jobKey, 1, "atm", "deid", "parentKey", "parent")
if problem == "missing" then
  return {-1}
end
if problem then
  -- only the lock owner may set it aside, as it may finish it; a foreign or lost lock refuses as usual
  local holder = redis.call("GET", jobKey .. ":lock")
  if token ~= "0" and holder ~= token then
    return {holder and -6 or -2}
  end
  if redis.call("LREM", KEYS[1], -1, jobId) == 0 then
    return {-3}
  end
  redis.call("SREM", KEYS[4], jobId)
  setAsideDamaged(jobKey, jobId, KEYS[11], KEYS[3], readMeta(KEYS[5]).maxLen, "active", problem, now)
  return {-20}
end
-- a parent completes only once its children are done (checked before the lock is released, as BullMQ does)
if ARGV[5] == "completed"
    and redis.call("EXISTS", jobKey .. ":dependencies", jobKey .. ":unsuccessful") > 0 then
  if redis.call("SCARD", jobKey .. ":dependencies") > 0 then
    return {-4}
  end
  if redis.call("ZCARD", jobKey .. ":unsuccessful") > 0 then
    return {-9}
  end
end
local lock = checkAndReleaseLock(jobKey, KEYS[4], jobId, token)
if lock ~= 0 then
  return {lock}
end
if redis.call("LREM", KEYS[1], -1, jobId) == 0 then
  return {-3}
end

-- when the next job is fetched, the limiter's fields come with this read (readLimits below)
local meta = ARGV[11] == "1" and readMeta(KEYS[5], "max", "duration") or readMeta(KEYS[5])
local maxLen = meta.maxLen -- every XADD below caps the stream, so no separate XTRIM is needed
local attemptsMade = redis.call("HINCRBY", jobKey, "atm", 1)
local completed = ARGV[5] == "completed"

-- a deduplication window without TTL lasts while its job does: release it if it still names this job
local dedupId = jobFields[2]
if dedupId then
  local dedupKey = base .. "de:" .. dedupId
  local ttl = redis.call("PTTL", dedupKey)
  if ttl == -1 and redis.call("GET", dedupKey) == jobId then
    redis.call("DEL", dedupKey)
  end
  -- keepLastIfActive: the add kept while this job ran becomes a job now (deduplicate.lua)
  createDedupNext(base, {wait = KEYS[6], active = KEYS[1], prioritized = KEYS[7], pc = KEYS[8], delayed = KEYS[9],
    marker = KEYS[10], meta = KEYS[5], events = KEYS[3]}, meta, dedupId, now)
end
-- a child of a flow: its parent learns the outcome (return value, or the failure under the child's policy)
local parent = parentOf(jobFields[3], jobFields[4])
if parent then
  if completed then
    childCompleted(parent, jobKey, ARGV[6], now)
  else
    childFailed(parent, jobKey, ARGV[6], now)
  end
end
local keepCount = tonumber(ARGV[8])
local keepAge = tonumber(ARGV[9])
if not completed and (ARGV[18] or "") ~= "" then
  addDeadLetter(ARGV[18], ARGV[19], jobKey, jobId, ARGV[6], attemptsMade, ARGV[7], now)
end

if keepCount == 0 then
  removeJobKeys(jobKey)
  if parent then
    childGone(parent, jobKey)
  end
else
  redis.call("ZADD", KEYS[2], now, jobId)
  if completed then
    redis.call("HSET", jobKey, "returnvalue", ARGV[6], "finishedOn", now)
  else
    redis.call("HSET", jobKey, "failedReason", ARGV[6], "finishedOn", now)
    redis.call("HDEL", jobKey, "defa")
  end
  if ARGV[7] ~= "" then
    redis.call("HSET", jobKey, "stacktrace", ARGV[7])
  end
  -- retention: trimming old jobs is best effort, bounded per call as in BullMQ
  if keepAge >= 0 then
    -- newest first, as BullMQ trims (the order parents released by unlinkTrimmed go to wait in)
    local old = redis.call("ZREVRANGEBYSCORE", KEYS[2], now - keepAge, "-inf", "LIMIT", 0, 1000)
    for _, id in ipairs(old) do
      unlinkTrimmed(base .. id)
      removeJobKeys(base .. id)
    end
    if #old > 0 then
      redis.call("ZREM", KEYS[2], unpack(old))
    end
  end
  if keepCount > 0 then
    local extra = redis.call("ZREVRANGE", KEYS[2], keepCount, keepCount + 999)
    for _, id in ipairs(extra) do
      unlinkTrimmed(base .. id)
      removeJobKeys(base .. id)
    end
    if #extra > 0 then
      redis.call("ZREM", KEYS[2], unpack(extra))
    end
  end
end

if completed then
  redis.call("XADD", KEYS[3], "MAXLEN", "~", maxLen, "*", "event", "completed", "jobId", jobId,
    "returnvalue", ARGV[6], "prev", "active")
else
  redis.call("XADD", KEYS[3], "MAXLEN", "~", maxLen, "*", "event", "failed", "jobId", jobId,
    "failedReason", ARGV[6], "prev", "active")
  if attemptsMade >= tonumber(ARGV[10]) then
    redis.call("XADD", KEYS[3], "MAXLEN", "~", maxLen, "*", "event", "retries-exhausted", "jobId", jobId,
      "attemptsMade", attemptsMade)
  end
end

if ARGV[17] ~= "" then
  countFinishedInMinute(base .. "metrics:" .. ARGV[5], tonumber(ARGV[17]), ARGV[4])
end

local k = {wait = KEYS[6], active = KEYS[1], prioritized = KEYS[7], pc = KEYS[8], delayed = KEYS[9],
  marker = KEYS[10], meta = KEYS[5], events = KEYS[3], failed = KEYS[11]}
local result = {0, 0, 0, 0}
-- drained as BullMQ decides it: a worker that asked for a next job and found the queue paused (or maxed), or a
-- delayed job still to come, is told so and writes no drained; otherwise nothing left ready or active is drained
local quiet = false
if ARGV[11] == "1" then
  result = fetchJob(k, base, now, ARGV[12], ARGV[13], ARGV[14], readLimits(meta, KEYS[5], ARGV[15], ARGV[16]))
  quiet = result[2] ~= 0 or result[3] ~= 0 or result[4] ~= 0 or pausedOrMaxed(meta, KEYS[1])
end
if not quiet and redis.call("LLEN", KEYS[6]) == 0 and redis.call("LLEN", KEYS[1]) == 0
    and redis.call("ZCARD", KEYS[7]) == 0 then
  redis.call("XADD", KEYS[3], "MAXLEN", "~", maxLen, "*", "event", "drained")
end
return result
