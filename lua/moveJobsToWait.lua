-- moveJobsToWait: moves a batch of finished jobs (retryJobs) or delayed jobs (promoteJobs) back to wait. As in
-- BullMQ 6.7, every job goes to wait, a job with a priority too (it keeps its priority field), and a promoted job
-- keeps its delay field. A retried job loses finishedOn, processedOn and its result or failed reason (its attempt
-- counters stay), and a child among them is pending again for its parent. Each emits "waiting" with prev = the
-- state it left. Workers are woken unless the queue is paused or maxed.
-- KEYS[1] the source set: completed, failed or delayed
-- KEYS[2] wait
-- KEYS[3] meta
-- KEYS[4] active
-- KEYS[5] marker
-- KEYS[6] events
-- ARGV[1] key base
-- ARGV[2] at most this many jobs
-- ARGV[3] highest score to take ("+inf" for delayed; finishedOn ms for finished jobs)
-- ARGV[4] the source state's name: completed, failed or delayed
-- Returns {moved, 1 if more may remain else 0}.
--@include queueState
--@include childOwedAgain

local base, state = ARGV[1], ARGV[4]
local count = tonumber(ARGV[2])
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], 0, ARGV[3], "LIMIT", 0, count)
if #ids == 0 then
  return {0, 0}
end
local maxLen = maxEvents(KEYS[3])
for i = 1, #ids, 5000 do
  redis.call("ZREM", KEYS[1], unpack(ids, i, math.min(i + 4999, #ids)))
end
for _, id in ipairs(ids) do
  local jobKey = base .. id
  if state == "failed" then
    redis.call("HDEL", jobKey, "finishedOn", "processedOn", "failedReason")
    childOwedAgain(jobKey, state)
  elseif state == "completed" then
    redis.call("HDEL", jobKey, "finishedOn", "processedOn", "returnvalue")
    childOwedAgain(jobKey, state)
  end
  redis.call("LPUSH", KEYS[2], id)
  redis.call("XADD", KEYS[6], "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", id, "prev", state)
end
if not isPausedOrMaxed(KEYS[3], KEYS[4]) then
  addReadyMarker(KEYS[5])
end
return {#ids, #ids >= count and 1 or 0}
