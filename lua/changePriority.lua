-- changePriority: sets a job's priority. A job waiting to run (wait or prioritized) moves to the lane of its
-- new priority; with lifo it goes to the front of that lane. Jobs in other states only get the field.
-- KEYS[1] the job's hash
-- KEYS[2] wait
-- KEYS[3] prioritized
-- KEYS[4] pc
-- KEYS[5] active
-- KEYS[6] marker
-- KEYS[7] meta
-- ARGV[1] job id
-- ARGV[2] new priority (0..2097151)
-- ARGV[3] "1" for the front of the lane (lifo)
-- Returns 0, or -1 no job, -21 the job key is not a hash.
--@include queueState
--@include readyJob

local jobKey, jobId = KEYS[1], ARGV[1]
local priority = tonumber(ARGV[2])
local lifo = ARGV[3] == "1"
-- a key of another type is refused as such, before any write
local jobKeyType = redis.call("TYPE", jobKey)["ok"]
if jobKeyType == "none" then
  return -1
elseif jobKeyType ~= "hash" then
  return -21
end
if redis.call("ZREM", KEYS[3], jobId) > 0 or redis.call("LREM", KEYS[2], -1, jobId) > 0 then
  if priority > 0 and lifo then
    -- counter 0: ahead of every job of the same priority
    redis.call("ZADD", KEYS[3], priority * 4294967296, jobId)
  else
    pushReady(KEYS[2], KEYS[3], KEYS[4], jobId, priority, lifo)
  end
  if not isPausedOrMaxed(KEYS[7], KEYS[5]) then
    addReadyMarker(KEYS[6])
  end
end
redis.call("HSET", jobKey, "priority", priority)
return 0
