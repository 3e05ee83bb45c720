-- removeJob: removes one job from whatever state holds it, with its hash and sub-keys, unless a worker holds
-- its lock. Emits "removed" with prev = the state it left, only when something was deleted.
-- KEYS[1] meta
-- KEYS[2] events
-- ARGV[1] key base
-- ARGV[2] job id
-- Returns 1 removed, 0 locked or not there, -8 the pending job of a job scheduler.
--@include queueState
--@include destroyJob

local base, jobId = ARGV[1], ARGV[2]
if redis.call("EXISTS", base .. jobId .. ":lock") == 1 then
  return 0
end
if isSchedulerJob(base, jobId) then
  return -8
end
local prev = removeFromAnyState(base, jobId)
if not destroyJob(base, jobId, false) then
  return 0
end
redis.call("XADD", KEYS[2], "MAXLEN", "~", maxEvents(KEYS[1]), "*", "event", "removed", "jobId", jobId,
  "prev", prev)
return 1
