-- moveManyToFinished: finishes several active jobs of one queue in one call, each exactly as its own moveToFinished
-- call would, one after the other in the order given (lua/include/finishJob.lua): its own lock check, outcome,
-- retention, events, and its own fetch of a next job when it asks for one. One job's refusal or error is its own:
-- the jobs after it are finished all the same. Some writes are done once for the batch, as the state after the call
-- is the same: the fetches promote the delayed jobs due by the batch's latest now once, the ready marker is settled
-- after the last finish instead of after every fetch, and the released locks go in one DEL (their ids in one SREM
-- from stalled).
-- KEYS[1] active
-- KEYS[2] completed
-- KEYS[3] events
-- KEYS[4] stalled
-- KEYS[5] meta
-- KEYS[6] wait
-- KEYS[7] prioritized
-- KEYS[8] pc
-- KEYS[9] delayed
-- KEYS[10] marker
-- KEYS[11] failed
-- ARGV[1] key base
-- ARGV[2] lock duration (ms), for the next jobs
-- ARGV[3] worker name, or ""
-- ARGV[4] the worker's limiter max, or ""
-- ARGV[5] the worker's limiter duration (ms), or ""
-- ARGV[6] the worker's metrics max data points, or ""
-- ARGV[7] this queue's name, for dead letters
-- then 12 arguments per job, as moveToFinished's ARGV[8..19]: job id, lock token, now (ms),
-- "completed" or "failed", return value or failed reason, stacktrace or "", keep count, keep age (ms), attempts
-- allowed, "1" to take a next job, the next job's token, the dead-letter queue key base or ""
-- Returns one reply per job, in order: what moveToFinished returns for it, or {-99, message} when its finish
-- raised an error (what it wrote before the error stays written, as with a moveToFinished that errs).
--@include queueState
--@include readyJob
--@include takeLock
--@include lockCheck
--@include removeJobKeys
--@include jobHealth
--@include promoteDelayed
--@include rateLimit
--@lazy schedulerJob
--@include fetchJob
--@lazy deduplicate
--@lazy metrics
--@lazy deadLetter
--@lazy flowParent
--@include finishJob

local COMMON, STRIDE = 7, 12
local count = (#ARGV - COMMON) / STRIDE
-- what the finishes share (finishJob): the queue's meta, read once; the latest now of the batch, by which the
-- first fetch promotes due delayed jobs; the locks released, deleted after the last finish; and, once a fetch took
-- a job, the ready marker settled after the last one
local shared = {now = 0, released = {locks = {}, ids = {}}}
for i = 0, count - 1 do
  shared.now = math.max(shared.now, tonumber(ARGV[COMMON + i * STRIDE + 3]))
end
-- one K table per outcome, shared by every finish (finishJob does not change it); each reads its arguments in ARGV
local completedK = {KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10],
  KEYS[11]}
local failedK = {KEYS[1], KEYS[11], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10],
  KEYS[11]}
local replies = {}
for i = 0, count - 1 do
  local at = COMMON + i * STRIDE
  local ok, reply = pcall(finishJob, ARGV[at + 4] == "completed" and completedK or failedK, ARGV, at, shared)
  if ok then
    replies[#replies + 1] = reply
  else
    replies[#replies + 1] = {-99, type(reply) == "table" and tostring(reply.err) or tostring(reply)}
  end
end
releaseCollected(shared.released, KEYS[4])
if shared.fetched then
  settleReadyMarker(shared.k)
end
return replies
