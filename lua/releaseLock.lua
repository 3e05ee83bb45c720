-- releaseLock: deletes a job's lock, only for its owner's token.
-- KEYS[1] the job's lock key
-- ARGV[1] token
-- Returns 1 when released, 0 otherwise.

if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
