-- retryJob: a failed attempt retried at once: first the delayed jobs that fell due meanwhile go to wait (they were
-- due before this retry, as BullMQ orders them), then the active job goes back to wait (or prioritized).
-- KEYS[1] active
-- KEYS[2] wait
-- KEYS[3] prioritized
-- KEYS[4] pc
-- KEYS[5] marker
-- KEYS[6] meta
-- KEYS[7] events
-- KEYS[8] stalled
-- KEYS[9] delayed
-- KEYS[10] failed (where a damaged job is set aside)
-- ARGV[1] key base
-- ARGV[2] job id
-- ARGV[3] lock token
-- ARGV[4] failed reason
-- ARGV[5] stacktrace (JSON array), or ""
-- ARGV[6] now (ms)
-- Returns 0, or -1 no job, -2 no lock, -6 lock mismatch, -3 not active, -20 damaged hash (set aside to failed).
--@include queueState
--@include readyJob
--@include lockCheck
--@include jobHealth
--@include leaveActiveSound
--@include promoteDelayed

local base, jobId = ARGV[1], ARGV[2]
local meta = readMeta(KEYS[6])
promoteDueJobs({wait = KEYS[2], active = KEYS[1], prioritized = KEYS[3], pc = KEYS[4], delayed = KEYS[9],
  marker = KEYS[5], events = KEYS[7], failed = KEYS[10]}, base, tonumber(ARGV[6]), meta)
local jobKey = base .. jobId
local left = leaveActiveSound(jobKey, KEYS[1], KEYS[8], jobId, ARGV[3], KEYS[10], KEYS[7], meta.maxLen,
  tonumber(ARGV[6]), "atm")
if left ~= 0 then
  return left
end
redis.call("HINCRBY", jobKey, "atm", 1)
redis.call("HSET", jobKey, "failedReason", ARGV[4])
if ARGV[5] ~= "" then
  redis.call("HSET", jobKey, "stacktrace", ARGV[5])
end
local fields = redis.call("HMGET", jobKey, "priority", "opts")
local lifo = fields[2] and string.find(fields[2], '"lifo":true', 1, true) ~= nil
pushReady(KEYS[2], KEYS[3], KEYS[4], jobId, fields[1], lifo)
redis.call("XADD", KEYS[7], "MAXLEN", "~", meta.maxLen, "*", "event", "waiting", "jobId", jobId,
  "prev", "active")
if not isPausedOrMaxed(KEYS[6], KEYS[1]) then
  addReadyMarker(KEYS[5])
end
return 0
