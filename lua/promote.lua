-- promote: a delayed job becomes ready now: it joins the back of wait, or of its priority in prioritized.
-- KEYS[1] the job's hash
-- KEYS[2] delayed
-- KEYS[3] wait
-- KEYS[4] prioritized
-- KEYS[5] pc
-- KEYS[6] active
-- KEYS[7] marker
-- KEYS[8] meta
-- KEYS[9] events
-- ARGV[1] job id
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
-- a promoted job runs FIFO whatever its lifo option, as in BullMQ
pushReady(KEYS[3], KEYS[4], KEYS[5], jobId, redis.call("HGET", jobKey, "priority"), false)
redis.call("HSET", jobKey, "delay", 0)
if not isPausedOrMaxed(KEYS[8], KEYS[6]) then
  addReadyMarker(KEYS[7])
end
redis.call("XADD", KEYS[9], "MAXLEN", "~", maxEvents(KEYS[8]), "*", "event", "waiting", "jobId", jobId,
  "prev", "delayed")
return 0
