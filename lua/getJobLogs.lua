-- getJobLogs: a page of a job's log lines with the log's length, read in one step (read only).
-- KEYS[1] the job's log list (<jobId>:logs, oldest line first)
-- ARGV[1] first position (from the oldest line; from the newest when ARGV[3] is "0")
-- ARGV[2] last position, inclusive (-1: the last)
-- ARGV[3] "1" oldest first, "0" newest first
-- Returns {lines in the order asked, length of the list}.

local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
if ARGV[3] == "1" then
  return {redis.call("LRANGE", KEYS[1], first, last), redis.call("LLEN", KEYS[1])}
end
-- newest first: the same positions counted from the tail, then reversed (0, never -0, which Redis refuses)
local function fromTail(position)
  local p = -(position + 1)
  return p == 0 and 0 or p
end
local lines = redis.call("LRANGE", KEYS[1], fromTail(last), fromTail(first))
local reversed = {}
for i = #lines, 1, -1 do
  reversed[#reversed + 1] = lines[i]
end
return {reversed, redis.call("LLEN", KEYS[1])}
