-- A job's lock: its owner's token, SET NX so that a live lock is never overwritten, expiring after ms.
local function takeLock(lockKey, token, ms)
  return redis.call("SET", lockKey, token, "NX", "PX", ms) ~= false
end
