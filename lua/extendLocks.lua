-- extendLocks: renews every lock a worker holds in one call (the batched form of extendLock).
-- KEYS[1] stalled
-- ARGV[1] key base
-- ARGV[2] lock duration (ms)
-- ARGV[3..] pairs: job id, token
-- Returns the ids whose lock the token no longer owns.

local base = ARGV[1]
local failed = {}
for i = 3, #ARGV, 2 do
  local jobId, token = ARGV[i], ARGV[i + 1]
  local lockKey = base .. jobId .. ":lock"
  if redis.call("GET", lockKey) == token then
    redis.call("SET", lockKey, token, "PX", ARGV[2])
    redis.call("SREM", KEYS[1], jobId)
  else
    failed[#failed + 1] = jobId
  end
end
return failed
