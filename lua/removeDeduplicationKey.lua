-- removeDeduplicationKey: ends a job's deduplication window, only if the job still owns it (a newer owner's
-- window is left alone).
-- KEYS[1] the deduplication key "<base>de:<id>"
-- ARGV[1] job id
-- Returns 1 when the key was deleted, else 0.
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
