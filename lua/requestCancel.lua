-- requestCancel: asks the worker that holds a job's lock, in any process, to cancel the job (bull4j only). The
-- request names the lock's token, so it applies to the running attempt only, never to a later one.
-- KEYS[1] the job's lock key
-- KEYS[2] the job's cancel key
-- ARGV[1] reason
-- ARGV[2] how long the request is kept (ms)
-- Returns 1 when a lock was held and the request written, 0 when no worker holds the job.

local token = redis.call("GET", KEYS[1])
if not token then
  return 0
end
redis.call("SET", KEYS[2], cjson.encode({token, ARGV[1]}), "PX", ARGV[2])
return 1
