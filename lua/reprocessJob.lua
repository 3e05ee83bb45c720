-- reprocessJob: puts a completed or failed job back in line to run again (Job.retry). Its finish fields are
-- cleared; its attempt counters too when asked. A retried flow child is owed to its parent again.
-- KEYS[1] the job's hash
-- KEYS[2] completed or failed (the set the job must be in)
-- KEYS[3] wait
-- KEYS[4] prioritized
-- KEYS[5] pc
-- KEYS[6] active
-- KEYS[7] marker
-- KEYS[8] meta
-- KEYS[9] events
-- ARGV[1] job id
-- ARGV[2] "completed" or "failed", the state the job is in
-- ARGV[3] "1" when the job is LIFO
-- ARGV[4] "1" to reset attemptsMade
-- ARGV[5] "1" to reset attemptsStarted
-- Returns 0, or -1 no job, -3 not in that state, -21 the job key is not a hash.
--@include queueState
--@include readyJob
--@include childOwedAgain

local jobKey, jobId, state = KEYS[1], ARGV[1], ARGV[2]
-- a key of another type is refused as such, before any write
local jobKeyType = redis.call("TYPE", jobKey)["ok"]
if jobKeyType == "none" then
  return -1
elseif jobKeyType ~= "hash" then
  return -21
end
if redis.call("ZREM", KEYS[2], jobId) == 0 then
  return -3
end

-- the outcome field of the state it leaves: the return value or the failure message
local outcome = "returnvalue"
if state == "failed" then
  outcome = "failedReason"
end
redis.call("HDEL", jobKey, "finishedOn", "processedOn", outcome)
if ARGV[4] == "1" then
  redis.call("HDEL", jobKey, "atm", "attemptsMade")
end
if ARGV[5] == "1" then
  redis.call("HDEL", jobKey, "ats")
end

pushReady(KEYS[3], KEYS[4], KEYS[5], jobId, redis.call("HGET", jobKey, "priority"), ARGV[3] == "1")
if not isPausedOrMaxed(KEYS[8], KEYS[6]) then
  addReadyMarker(KEYS[7])
end

childOwedAgain(jobKey, state)

redis.call("XADD", KEYS[9], "MAXLEN", "~", maxEvents(KEYS[8]), "*", "event", "waiting", "jobId", jobId,
  "prev", state)
return 0
