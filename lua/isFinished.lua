-- isFinished: whether a job has completed or failed, with its hash, read in one step.
-- KEYS[1] the job's hash
-- KEYS[2] completed
-- KEYS[3] failed
-- ARGV[1] job id
-- Returns {1, fields} completed, {2, fields} failed, {0} not finished, {-1} no job.

if redis.call("EXISTS", KEYS[1]) == 0 then
  return {-1}
end
if redis.call("ZSCORE", KEYS[2], ARGV[1]) then
  return {1, redis.call("HGETALL", KEYS[1])}
end
if redis.call("ZSCORE", KEYS[3], ARGV[1]) then
  return {2, redis.call("HGETALL", KEYS[1])}
end
return {0}
