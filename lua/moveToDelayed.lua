-- moveToDelayed: an active job waits until a given time, for a backoff retry or on the processor's request.
-- KEYS[1] active
-- KEYS[2] delayed
-- KEYS[3] marker
-- KEYS[4] meta
-- KEYS[5] events
-- KEYS[6] stalled
-- KEYS[7] failed (where a damaged job is set aside)
-- ARGV[1] key base
-- ARGV[2] job id
-- ARGV[3] lock token
-- ARGV[4] due time (ms)
-- ARGV[5] delay (ms), stored in the job's "delay" field
-- ARGV[6] "1" to count a failed attempt (a backoff retry), "0" for a processor's own move
-- ARGV[7] failed reason, or "" to leave as is
-- ARGV[8] stacktrace (JSON array), or ""
-- Returns 0, or -1 no job, -2 no lock, -6 lock mismatch, -3 not active, -20 damaged hash (set aside to failed).
--@include queueState
--@include readyJob
--@include lockCheck
--@include jobHealth
--@include leaveActiveSound

local base, jobId = ARGV[1], ARGV[2]
local jobKey = base .. jobId
local left = leaveActiveSound(jobKey, KEYS[1], KEYS[6], jobId, ARGV[3], KEYS[7], KEYS[5], maxEvents(KEYS[4]),
  redisNowMs(), ARGV[6] == "1" and "atm" or "ats")
if left ~= 0 then
  return left
end
local runAt = tonumber(ARGV[4])
if ARGV[6] == "1" then
  redis.call("HINCRBY", jobKey, "atm", 1)
end
redis.call("HSET", jobKey, "delay", ARGV[5])
if ARGV[7] ~= "" then
  redis.call("HSET", jobKey, "failedReason", ARGV[7])
end
if ARGV[8] ~= "" then
  redis.call("HSET", jobKey, "stacktrace", ARGV[8])
end
redis.call("ZADD", KEYS[2], delayedScore(KEYS[2], runAt), jobId)
redis.call("XADD", KEYS[5], "MAXLEN", "~", maxEvents(KEYS[4]), "*", "event", "delayed", "jobId", jobId,
  "delay", runAt)
addDelayMarker(KEYS[3], KEYS[2])
return 0
