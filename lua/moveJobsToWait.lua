-- moveJobsToWait: moves a batch of finished jobs (retryJobs) or delayed jobs (promoteJobs) back to wait, or to
-- prioritized for a job with a priority. A retried job loses finishedOn, processedOn and its result or failed
-- reason, as in BullMQ 6.7 (its attempt counters stay); a promoted one gets delay 0. Each emits "waiting" with
-- prev = the state it left. Workers are woken unless the queue is paused or maxed.
-- KEYS[1] the source set: completed, failed or delayed
-- KEYS[2] wait
-- KEYS[3] prioritized
-- KEYS[4] pc
-- KEYS[5] meta
-- KEYS[6] active
-- KEYS[7] marker
-- KEYS[8] events
-- ARGV[1] key base
-- ARGV[2] at most this many jobs
-- ARGV[3] highest score to take ("+inf" for delayed; finishedOn ms for finished jobs)
-- ARGV[4] the source state's name: completed, failed or delayed
-- Returns {moved, 1 if more may remain else 0}.
--@include queueState
--@include readyJob

local base, state = ARGV[1], ARGV[4]
local count = tonumber(ARGV[2])
local ids = redis.call("ZRANGEBYSCORE", KEYS[1], 0, ARGV[3], "LIMIT", 0, count)
if #ids == 0 then
  return {0, 0}
end
local maxLen = maxEvents(KEYS[5])
for i = 1, #ids, 5000 do
  redis.call("ZREM", KEYS[1], unpack(ids, i, math.min(i + 4999, #ids)))
end
for _, id in ipairs(ids) do
  local jobKey = base .. id
  if state == "failed" then
    redis.call("HDEL", jobKey, "finishedOn", "processedOn", "failedReason")
  elseif state == "completed" then
    redis.call("HDEL", jobKey, "finishedOn", "processedOn", "returnvalue")
  else
    redis.call("HSET", jobKey, "delay", 0)
  end
  pushReady(KEYS[2], KEYS[3], KEYS[4], id, redis.call("HGET", jobKey, "priority"), false)
  redis.call("XADD", KEYS[8], "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", id, "prev", state)
end
if not isPausedOrMaxed(KEYS[5], KEYS[6]) then
  addReadyMarker(KEYS[7])
end
return {#ids, #ids >= count and 1 or 0}
