-- moveManyToActive: takes up to one job per lock token for a worker with that many free slots, in one call. Each
-- take is the one a moveToActive call would make at this now (fetchJob: its own lock, active event, processedOn,
-- and a job scheduler's next run); what moveToActive calls sent together would each repeat is done once: the meta
-- and limiter reads, the promotion of due delayed jobs, and the ready marker, settled after the last take.
-- Stops at the first take that finds nothing (or the rate limit, a pause, a maxed global concurrency).
-- KEYS[1] wait
-- KEYS[2] active
-- KEYS[3] prioritized
-- KEYS[4] pc
-- KEYS[5] delayed
-- KEYS[6] marker
-- KEYS[7] meta
-- KEYS[8] events
-- KEYS[9] failed (where a damaged job is set aside)
-- ARGV[1] key base
-- ARGV[2] now (ms)
-- ARGV[3] lock duration (ms)
-- ARGV[4] worker name, or ""
-- ARGV[5] the worker's limiter max, or ""
-- ARGV[6] the worker's limiter duration (ms), or ""
-- ARGV[7..] one lock token per job wanted
-- Returns one fetchJob reply per take, in order: {fields, jobId, 0, 0, 0, schedulerSettled} for a job taken; the
-- last may be {0, 0, 0, nextDelayedMs}, {0, 0, rateLimitMs, 0} or {0, 0, 0, 0} when it took none.
--@include queueState
--@include readyJob
--@include takeLock
--@include jobHealth
--@include promoteDelayed
--@include rateLimit
--@lazy schedulerJob
--@include fetchJob

local k = {wait = KEYS[1], active = KEYS[2], prioritized = KEYS[3], pc = KEYS[4], delayed = KEYS[5],
  marker = KEYS[6], meta = KEYS[7], events = KEYS[8], failed = KEYS[9]}
local now = tonumber(ARGV[2])
local meta = readMetaWithLimits(KEYS[7], ARGV[5], ARGV[6])
local batch = {now = now}
local replies = {}
for i = 7, #ARGV do
  local reply = fetchJob(k, ARGV[1], now, ARGV[i], ARGV[3], ARGV[4], meta, ARGV[2], batch)
  replies[#replies + 1] = reply
  if reply[1] == 0 then
    break
  end
end
if batch.fetched then
  settleReadyMarker(k)
end
return replies
