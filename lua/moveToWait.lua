-- moveToWait: gives back an active job that was fetched but never started (a worker closing), for its lock
-- owner: it goes to the front of wait, its start is uncounted, and its lock is released.
-- KEYS[1] active
-- KEYS[2] wait
-- KEYS[3] marker
-- KEYS[4] meta
-- KEYS[5] events
-- KEYS[6] stalled
-- KEYS[7] failed (where a damaged job is set aside)
-- ARGV[1] key base
-- ARGV[2] job id
-- ARGV[3] lock token
-- Returns 0, or -1 no job, -2 no lock, -6 lock mismatch, -3 not active, -20 damaged hash (set aside to failed).
--@include queueState
--@include lockCheck
--@include jobHealth
--@include leaveActiveSound

local base, jobId = ARGV[1], ARGV[2]
local jobKey = base .. jobId
local left = leaveActiveSound(jobKey, KEYS[1], KEYS[6], jobId, ARGV[3], KEYS[7], KEYS[5], maxEvents(KEYS[4]),
  redisNowMs(), "ats")
if left ~= 0 then
  return left
end
redis.call("HINCRBY", jobKey, "ats", -1)
redis.call("RPUSH", KEYS[2], jobId)
redis.call("XADD", KEYS[5], "MAXLEN", "~", maxEvents(KEYS[4]), "*", "event", "waiting", "jobId", jobId,
  "prev", "active")
if not isPausedOrMaxed(KEYS[4], KEYS[1]) then
  addReadyMarker(KEYS[3])
end
return 0
