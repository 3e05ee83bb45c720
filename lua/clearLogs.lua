-- clearLogs: empties a job's log, or keeps only its newest lines, as BullMQ's job.clearLogs does (whether or not
-- the job still exists: its log may outlive it).
-- KEYS[1] the job's logs list
-- ARGV[1] lines to keep; 0 deletes the log
-- Returns the number of lines left.

local keep = tonumber(ARGV[1])
if keep > 0 then
  redis.call("LTRIM", KEYS[1], -keep, -1)
  return redis.call("LLEN", KEYS[1])
end
redis.call("DEL", KEYS[1])
return 0
