-- addJobScheduler: creates or replaces a job scheduler (the repeat:<id> hash and its entry in the repeat ZSET)
-- and its pending iteration repeat:<id>:<millis>. A pending iteration that has not started yet is replaced; an
-- "every" scheduler keeps its slot unless "every" changed.
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
-- KEYS[11] paused
-- ARGV[1] key base "prefix:queue:"
-- ARGV[2] scheduler id
-- ARGV[3] next run (ms) for a cron scheduler, "" for an every scheduler (computed here)
-- ARGV[4] now (ms)
-- ARGV[5..12] name, tz, limit, pattern, startDate, endDate, every, offset ("" for none)
-- ARGV[13] template data (JSON)
-- ARGV[14] template opts (JSON, cjson-encoded here)
-- ARGV[15] the iteration's opts (JSON); jobId and delay are set here
-- Returns {jobId, delay, fields} (fields: the pending run's hash, as HGETALL gives it, so that the caller needs no
-- second round trip to read it), -10 when a cron run's job id is taken, -11 when 32 "every" slots are all taken.
--@include queueState
--@include readyJob
--@include destroyJob
--@include schedulerJob

local base, schedulerId, now = ARGV[1], ARGV[2], tonumber(ARGV[4])
local f = {name = ARGV[5], tz = ARGV[6], limit = ARGV[7], pattern = ARGV[8], startDate = ARGV[9],
  endDate = ARGV[10], every = ARGV[11], offset = ARGV[12]}
local jobOpts = cjson.decode(ARGV[15])
local repeatKey = KEYS[1]
local schedulerKey = repeatKey .. ":" .. schedulerId
local maxLen = maxEvents(KEYS[2])
local prevMillis = tonumber(redis.call("ZSCORE", repeatKey, schedulerId))
local every = tonumber(f.every)
local nextMillis = tonumber(ARGV[3])
local newOffset = nil
local everyChanged = false

if every then
  local millis = prevMillis
  if prevMillis and tonumber(redis.call("HGET", schedulerKey, "every")) ~= every then
    millis = nil
    everyChanged = true
  end
  local startDate = f.startDate ~= "" and f.startDate or nil
  nextMillis, newOffset = everyNextMillis(millis, every, now, tonumber(f.offset) or 0, startDate)
end

-- the pending iteration is replaced when it has not started yet
local function removePending(jobId)
  local removed = redis.call("ZREM", KEYS[5], jobId) == 1 or redis.call("ZREM", KEYS[7], jobId) == 1
    or redis.call("LREM", KEYS[6], 1, jobId) == 1 or redis.call("LREM", KEYS[11], 1, jobId) == 1
  if removed then
    destroyJob(base, jobId, true)
  end
  return removed
end

local removedPrev = false
if prevMillis and redis.call("EXISTS", schedulerKey .. ":" .. prevMillis) == 1 then
  removedPrev = removePending("repeat:" .. schedulerId .. ":" .. prevMillis)
end
if removedPrev then
  if every and not everyChanged then
    nextMillis = prevMillis
  end
elseif every then
  f.offset = tostring(newOffset)
elseif f.offset == "" then
  f.offset = "0"
end

local jobId = "repeat:" .. schedulerId .. ":" .. nextMillis
if redis.call("EXISTS", base .. jobId) == 1 then
  if not every then
    if not removedPrev then
      return -10
    end
  else
    local scanned = 0
    repeat
      nextMillis = nextMillis + every
      jobId = "repeat:" .. schedulerId .. ":" .. nextMillis
      scanned = scanned + 1
    until redis.call("EXISTS", base .. jobId) == 0 or scanned >= 32
    if redis.call("EXISTS", base .. jobId) == 1 then
      return -11
    end
  end
end

local delay = math.max(0, nextMillis - now)
storeScheduler(repeatKey, schedulerId, nextMillis, f, ARGV[13], cjson.encode(cjson.decode(ARGV[14])))
redis.call("INCR", KEYS[3])
addIteration(base, jobId, f.name, ARGV[13], jobOpts, now, delay, schedulerId, maxLen)
return {jobId, delay, redis.call("HGETALL", base .. jobId)}
