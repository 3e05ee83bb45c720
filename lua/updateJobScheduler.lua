-- updateJobScheduler: adds a scheduler's next iteration when its current one has been fetched. Only the current
-- iteration (repeat:<id>:<score in the repeat ZSET>) may do so, once: a retry, a re-run after a stall or a
-- second worker finds the score moved on and adds nothing. Nothing happens once the scheduler is removed.
-- KEYS[1] repeat
-- KEYS[2] meta
-- KEYS[3] id (the job id counter)
-- KEYS[4] events
-- KEYS[5] delayed
-- KEYS[6] wait
-- KEYS[7] prioritized
-- KEYS[8] pc
-- KEYS[9] marker
-- KEYS[10] active
-- ARGV[1] key base "prefix:queue:"
-- ARGV[2] scheduler id
-- ARGV[3] next run (ms) for a cron scheduler, "" for an every scheduler (computed here)
-- ARGV[4] now (ms)
-- ARGV[5] the fetched job's id (the producer)
-- ARGV[6] the next iteration's opts (JSON); jobId and delay are set here
-- Returns the new job's id, or nil when nothing was added.
--@include queueState
--@include readyJob
--@include schedulerJob

local base, schedulerId, now, producerId = ARGV[1], ARGV[2], tonumber(ARGV[4]), ARGV[5]
local repeatKey = KEYS[1]
local prevMillis = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
if not prevMillis then
  return nil
end
local schedulerKey = repeatKey .. ":" .. schedulerId
local attrs = redis.call("HMGET", schedulerKey, "name", "data", "every", "startDate", "offset")
local jobOpts = cjson.decode(ARGV[6])
local repeatOpts = type(jobOpts["repeat"]) == "table" and jobOpts["repeat"] or {}
local every = tonumber(attrs[3]) or tonumber(repeatOpts["every"])
local nextMillis = tonumber(ARGV[3])
if every then
  local offset = attrs[5] or repeatOpts["offset"] or 0
  nextMillis = everyNextMillis(prevMillis, every, now, offset, attrs[4] or nil)
end
if not nextMillis or producerId ~= "repeat:" .. schedulerId .. ":" .. prevMillis then
  return nil
end
local jobId = "repeat:" .. schedulerId .. ":" .. nextMillis
local maxLen = maxEvents(KEYS[2])
if redis.call("EXISTS", base .. jobId) == 1 then
  redis.call("XADD", KEYS[4], "MAXLEN", "~", maxLen, "*", "event", "duplicated", "jobId", jobId)
  return nil
end
redis.call("ZADD", repeatKey, nextMillis, schedulerId)
redis.call("HINCRBY", schedulerKey, "ic", 1)
redis.call("INCR", KEYS[3])
addIteration(base, jobId, attrs[1], attrs[2] or "{}", jobOpts, now, math.max(0, nextMillis - now), schedulerId,
  maxLen)
return jobId
