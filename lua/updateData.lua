-- updateData: replaces a job's data.
-- KEYS[1] the job's hash
-- ARGV[1] data (JSON)
-- Returns 0, or -1 when the job does not exist.

if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
redis.call("HSET", KEYS[1], "data", ARGV[1])
return 0
