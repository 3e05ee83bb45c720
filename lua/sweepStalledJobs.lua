-- sweepStalledJobs: between two stalled passes, requeues the jobs the last pass marked (members of the stalled set)
-- whose lock has expired since and that are still active; the next regular pass would requeue them anyway, the
-- sweep does it as soon as the lock is gone. It marks nothing and never sets stalled-check, so the protocol of
-- BullMQ workers on the same queue is unchanged. When stalled-check has expired, it does nothing and says that a
-- regular pass is due, so that the caller runs one at once instead of at its own next interval.
-- Cost: O(size of the stalled set); renewals take live jobs out of it, so it holds little more than dead workers'
-- jobs.
-- KEYS[1] stalled
-- KEYS[2] wait
-- KEYS[3] active
-- KEYS[4] stalled-check
-- KEYS[5] meta
-- KEYS[6] events
-- KEYS[7] marker
-- KEYS[8] failed (where a damaged job is set aside)
-- ARGV[1] key base
-- ARGV[2] now (ms)
-- ARGV[3] maxStalledCount
-- Returns {1} when a regular pass is due, else {0, ids moved back to wait...}.
--@include queueState
--@include jobHealth
--@include requeueStalled

if redis.call("EXISTS", KEYS[4]) == 0 then
  return {1}
end
local base = ARGV[1]
local now = tonumber(ARGV[2])
local maxStalled = tonumber(ARGV[3])
local result = {0}
local maxLen
for _, jobId in ipairs(redis.call("SMEMBERS", KEYS[1])) do
  if redis.call("EXISTS", base .. jobId .. ":lock") == 0 then
    maxLen = maxLen or maxEvents(KEYS[5])
    -- handled now, whatever the outcome: a later sweep must not count it again
    redis.call("SREM", KEYS[1], jobId)
    if requeueStalledJob(base, jobId, KEYS[2], KEYS[3], KEYS[8], KEYS[6], maxLen, maxStalled, now) == "moved" then
      result[#result + 1] = jobId
    end
  end
end
if #result > 1 and not isPausedOrMaxed(KEYS[5], KEYS[3]) then
  addReadyMarker(KEYS[7])
end
return result
