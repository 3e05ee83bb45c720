-- addLog: appends a line to a job's log, keeping only the newest lines when a limit is given.
-- KEYS[1] the job's hash
-- KEYS[2] the job's logs list
-- ARGV[1] the line
-- ARGV[2] lines to keep; "" or a count <= 0 keeps all (BullMQ sends "" for a keepLogs of 0)
-- Returns the number of lines, or -1 when the job does not exist.

if redis.call("EXISTS", KEYS[1]) == 0 then
  return -1
end
local count = redis.call("RPUSH", KEYS[2], ARGV[1])
local keep = tonumber(ARGV[2])
if keep and keep > 0 then
  redis.call("LTRIM", KEYS[2], -keep, -1)
  return math.min(count, keep)
end
return count
