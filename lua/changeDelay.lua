-- changeDelay: a delayed job is rescheduled to run a given delay after now.
-- KEYS[1] the job's hash
-- KEYS[2] delayed
-- KEYS[3] marker
-- KEYS[4] meta
-- KEYS[5] events
-- ARGV[1] job id
-- ARGV[2] new delay (ms), stored in the job's "delay" field
-- ARGV[3] now (ms)
-- Returns 0, or -1 no job, -3 not delayed, -21 the job key is not a hash.
--@include queueState
--@include readyJob

local jobKey, jobId = KEYS[1], ARGV[1]
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
local runAt = tonumber(ARGV[3]) + tonumber(ARGV[2])
redis.call("ZADD", KEYS[2], delayedScore(KEYS[2], runAt), jobId)
redis.call("HSET", jobKey, "delay", ARGV[2])
redis.call("XADD", KEYS[5], "MAXLEN", "~", maxEvents(KEYS[4]), "*", "event", "delayed", "jobId", jobId,
  "delay", runAt)
-- the marker carries the earliest due time, which this job may have changed
addDelayMarker(KEYS[3], KEYS[2])
return 0
