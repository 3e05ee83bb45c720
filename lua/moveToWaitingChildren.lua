-- moveToWaitingChildren: the step pattern of flows. An active parent whose children (or the one child named) are
-- still pending leaves active for waiting-children, for its lock owner; it is released again when they are done.
-- KEYS[1] active
-- KEYS[2] waiting-children
-- KEYS[3] stalled
-- KEYS[4] events
-- KEYS[5] meta
-- ARGV[1] key base
-- ARGV[2] job id
-- ARGV[3] lock token
-- ARGV[4] now (ms), the score in waiting-children
-- ARGV[5] a child's job key to wait for, or "" for any pending child
-- Returns 0 when moved, 1 when nothing is pending (the job stays active), -9 when a child failed it
-- (failParentOnFailure), or -1 no job, -2 no lock, -6 lock mismatch, -3 not active.
--@include queueState
--@include lockCheck

local base, jobId = ARGV[1], ARGV[2]
local jobKey = base .. jobId
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
if redis.call("ZCARD", jobKey .. ":unsuccessful") > 0 then
  return -9
end
local pending
if ARGV[5] ~= "" then
  pending = redis.call("SISMEMBER", jobKey .. ":dependencies", ARGV[5]) == 1
else
  pending = redis.call("SCARD", jobKey .. ":dependencies") > 0
end
if not pending then
  return 1
end
local left = leaveActive(jobKey, KEYS[1], KEYS[3], jobId, ARGV[3])
if left ~= 0 then
  return left
end
redis.call("ZADD", KEYS[2], ARGV[4], jobId)
redis.call("XADD", KEYS[4], "MAXLEN", "~", maxEvents(KEYS[5]), "*", "event", "waiting-children", "jobId", jobId,
  "prev", "active")
return 0
