-- extendLock: renews one job's lock, only for its owner's token, and clears it from the stalled candidates.
-- KEYS[1] the job's lock key
-- KEYS[2] stalled
-- ARGV[1] token
-- ARGV[2] lock duration (ms)
-- ARGV[3] job id
-- Returns 1 when renewed, 0 when the token no longer owns the lock.

if redis.call("GET", KEYS[1]) == ARGV[1] then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  redis.call("SREM", KEYS[2], ARGV[3])
  return 1
end
return 0
