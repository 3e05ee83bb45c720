-- moveStalledJobsToWait: requeues active jobs whose lock expired since the previous check. Throttled across all
-- workers by the stalled-check key. A job past maxStalledCount is marked (defa) so the next worker fails it.
-- Scheduler jobs are read through "<base>repeat" and "<base>repeat:<id>", built from ARGV[1] like job keys.
-- KEYS[1] stalled
-- KEYS[2] wait
-- KEYS[3] active
-- KEYS[4] stalled-check
-- KEYS[5] meta
-- KEYS[6] events
-- KEYS[7] marker
-- KEYS[8] failed (where a damaged job is set aside)
-- ARGV[1] key base
-- ARGV[2] now (ms)
-- ARGV[3] maxStalledCount
-- ARGV[4] stalled interval (ms)
-- Returns the ids moved back to wait. A job whose hash is missing or damaged is taken out of active and set aside
-- (jobHealth) instead: one damaged job never stops the pass.
--@include queueState
--@include jobHealth
--@include requeueStalled

if redis.call("EXISTS", KEYS[4]) == 1 then
  return {}
end
local candidates = redis.call("SMEMBERS", KEYS[1])
redis.call("SET", KEYS[4], ARGV[2], "PX", ARGV[4])
local maxLen = maxEvents(KEYS[5])
redis.call("XTRIM", KEYS[6], "MAXLEN", "~", maxLen)

local base = ARGV[1]
local maxStalled = tonumber(ARGV[3])
local moved = {}
local now = tonumber(ARGV[2])
for _, jobId in ipairs(candidates) do
  if redis.call("EXISTS", base .. jobId .. ":lock") == 0
      and requeueStalledJob(base, jobId, KEYS[2], KEYS[3], KEYS[8], KEYS[6], maxLen, maxStalled, now) == "moved" then
    moved[#moved + 1] = jobId
  end
end
if #moved > 0 and not isPausedOrMaxed(KEYS[5], KEYS[3]) then
  addReadyMarker(KEYS[7])
end

-- the next pass looks at the jobs active now
redis.call("DEL", KEYS[1])
local active = redis.call("LRANGE", KEYS[3], 0, -1)
for i = 1, #active, 7000 do
  redis.call("SADD", KEYS[1], unpack(active, i, math.min(i + 6999, #active)))
end
return moved
