-- moveLimitedToWait: a processor hit the rate limit (RateLimitException): its active job goes back to the end
-- of wait that workers take next, or to the front of its priority, for its lock owner. No attempt is spent; the
-- start stays counted, as in BullMQ.
-- KEYS[1] active
-- KEYS[2] wait
-- KEYS[3] prioritized
-- KEYS[4] marker
-- KEYS[5] meta
-- KEYS[6] events
-- KEYS[7] stalled
-- KEYS[8] limiter
-- ARGV[1] key base
-- ARGV[2] job id
-- ARGV[3] lock token
-- Returns the limiter's remaining ms (0 when it has none), or -1 no job, -2 no lock, -6 lock mismatch,
-- -3 not active.
--@include queueState
--@include lockCheck

local base, jobId = ARGV[1], ARGV[2]
local jobKey = base .. jobId
local left = leaveActive(jobKey, KEYS[1], KEYS[7], jobId, ARGV[3])
if left ~= 0 then
  return left
end
local priority = tonumber(redis.call("HGET", jobKey, "priority")) or 0
if priority > 0 then
  -- counter 0: ahead of every job of its priority
  redis.call("ZADD", KEYS[3], priority * 4294967296, jobId)
else
  redis.call("RPUSH", KEYS[2], jobId)
end
if not isPausedOrMaxed(KEYS[5], KEYS[1]) then
  addReadyMarker(KEYS[4])
end
redis.call("XADD", KEYS[6], "MAXLEN", "~", maxEvents(KEYS[5]), "*", "event", "waiting", "jobId", jobId,
  "prev", "active")
return math.max(redis.call("PTTL", KEYS[8]), 0)
