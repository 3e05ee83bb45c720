-- updateProgress: stores a job's progress and announces it.
-- KEYS[1] the job's hash
-- KEYS[2] events
-- KEYS[3] meta
-- ARGV[1] job id
-- ARGV[2] progress (JSON)
-- Returns 0, or -1 when the job does not exist, -21 the job key is not a hash.
--@include queueState

-- a key of another type is refused as such, before any write
local jobKeyType = redis.call("TYPE", KEYS[1])["ok"]
if jobKeyType == "none" then
  return -1
elseif jobKeyType ~= "hash" then
  return -21
end
redis.call("HSET", KEYS[1], "progress", ARGV[2])
redis.call("XADD", KEYS[2], "MAXLEN", "~", maxEvents(KEYS[3]), "*", "event", "progress", "jobId", ARGV[1],
  "data", ARGV[2])
return 0
