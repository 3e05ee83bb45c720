-- removeJobScheduler: removes a job scheduler and, when it is still delayed, its pending iteration, emitting
-- "removed" (prev delayed) for it. As in BullMQ, an iteration already waiting or running is left to run; with
-- its scheduler gone it adds no next one.
-- KEYS[1] repeat
-- KEYS[2] delayed
-- KEYS[3] events
-- ARGV[1] key base "prefix:queue:"
-- ARGV[2] scheduler id
-- Returns 1 when the scheduler existed, 0 when not.
--@include queueState
--@include destroyJob

local base, schedulerId = ARGV[1], ARGV[2]
local millis = redis.call("ZSCORE", KEYS[1], schedulerId)
if millis then
  local jobId = "repeat:" .. schedulerId .. ":" .. millis
  if redis.call("ZREM", KEYS[2], jobId) == 1 then
    destroyJob(base, jobId, true)
    redis.call("XADD", KEYS[3], "*", "event", "removed", "jobId", jobId, "prev", "delayed")
  end
end
if redis.call("ZREM", KEYS[1], schedulerId) == 1 then
  redis.call("DEL", KEYS[1] .. ":" .. schedulerId)
  return 1
end
return 0
