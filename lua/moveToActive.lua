-- moveToActive: promotes due delayed jobs, then takes the next job for a worker and locks it (takeLock).
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
-- ARGV[3] lock token
-- ARGV[4] lock duration (ms)
-- ARGV[5] worker name, or ""
-- ARGV[6] the worker's limiter max, or "" (the limiter key is ARGV[1] .. "limiter", see rateLimit.lua)
-- ARGV[7] the worker's limiter duration (ms), or ""
-- Returns {fields, jobId, 0, 0, readyCount, schedulerSettled} (see fetchJob.lua), {0, 0, 0, nextDelayedMs} or
-- {0, 0, rateLimitMs, 0}.
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
return fetchJob(k, ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5],
  readMetaWithLimits(KEYS[7], ARGV[6], ARGV[7]), ARGV[2])
