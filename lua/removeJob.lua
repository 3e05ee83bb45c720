-- removeJob: removes one job from whatever state holds it, with its hash and sub-keys, unless a worker holds
-- its lock. Emits "removed" with prev = the state it left, only when something was deleted. A child of a flow is
-- unlinked from its parent (in any queue); with ARGV[3] = "1" its children are removed too, unless one of its
-- pending children down the tree is locked (removeFlowJob.lua; other queues' keys are built from job keys).
-- KEYS[1] meta
-- KEYS[2] events
-- ARGV[1] key base
-- ARGV[2] job id
-- ARGV[3] "1" to remove the job's children too
-- Returns 1 removed, 0 locked or not there, -8 the pending job of a job scheduler.
--@include queueState
--@include readyJob
--@include destroyJob
--@include flowParent
--@include removeFlowJob

local base, jobId = ARGV[1], ARGV[2]
local withChildren = ARGV[3] == "1"
if flowLocked(base .. jobId, withChildren) then
  return 0
end
if isSchedulerJob(base, jobId) then
  return -8
end
return removeFlowJob(base, jobId, withChildren) and 1 or 0
