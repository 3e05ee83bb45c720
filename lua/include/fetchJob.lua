-- Taking the next job: promote due delayed jobs, then pop wait (or else the best prioritized job), lock it,
-- mark it started. Needs queueState, readyJob, takeLock, jobHealth, promoteDelayed and schedulerJob (lazy:
-- lib_schedulerJob(), see LuaScript). The table k holds the queue's keys: wait, active, prioritized, pc, delayed,
-- marker, meta, events, failed. A job whose hash is missing or damaged is set aside (jobHealth) instead of being
-- started, and the next one is taken.

-- The due time (ms) of the earliest delayed job, or 0. known: that time when the caller has it at hand (nothing
-- changed delayed since it was read), else nil.
local function nextDelayedTime(k, known)
  if known then
    return known
  end
  local first = redis.call("ZRANGE", k.delayed, "0", "0", "WITHSCORES")
  if first[2] then
    return math.floor(tonumber(first[2]) / 4096)
  end
  return 0
end

-- The next ready id, moved to active, and the state it came from (nil when none is ready): wait first, else the
-- best prioritized job.
local function popReady(k)
  local jobId = redis.call("RPOPLPUSH", k.wait, k.active)
  -- skip legacy "0:" delay markers that old versions left in wait
  while jobId and string.sub(jobId, 1, 2) == "0:" do
    redis.call("LREM", k.active, 1, jobId)
    jobId = redis.call("RPOPLPUSH", k.wait, k.active)
  end
  if jobId then
    return jobId, "waiting"
  end
  local popped = redis.call("ZPOPMIN", k.prioritized)
  if popped[1] then
    redis.call("LPUSH", k.active, popped[1])
    return popped[1], "prioritized"
  end
  return nil
end

-- After a job is taken, whether others are ready: sets the ready marker (chain wake-up: another sleeping worker may
-- take the next one) or clears it, and returns the count (a hint: prioritized jobs are counted only when wait is
-- empty).
local function settleReadyMarker(k)
  local ready = redis.call("LLEN", k.wait)
  if ready == 0 then
    ready = redis.call("ZCARD", k.prioritized)
  end
  if ready > 0 then
    addReadyMarker(k.marker)
  else
    clearReadyMarker(k.marker)
  end
  return ready
end

-- Returns {fields, jobId, 0, 0, readyCount, schedulerSettled[, nextDelayed]} (schedulerSettled: 1 when the job is
-- a job scheduler's run whose next run this call settled, see schedulerJob.lua; nextDelayed, given when nothing else
-- is ready: the due time of the earliest delayed job, or 0), or {0, 0, 0, nextDelayed} when no job can be taken, or
-- {0, 0, rateLimitMs, 0} while the rate limit holds. meta comes from readMetaWithLimits (rateLimit.lua). nowText is
-- now as the caller sent it (an integer's digits), written as processedOn. batch is nil for a lone fetch; the
-- fetches of one moveManyToFinished call share it: the first one promotes the jobs due by batch.now (the latest now
-- of the batch), and the ready marker is settled once, after the batch (settleReadyMarker, when batch.fetched is
-- set), instead of by every fetch: nothing in between reads it, and a finish's fetch reply needs no ready count (the
-- worker does not use it).
local function fetchJob(k, base, now, token, lockMs, workerName, meta, nowText, batch)
  if not batch then
    promoteDueJobs(k, base, now, meta)
  elseif not batch.promoted then
    promoteDueJobs(k, base, batch.now, meta)
    batch.promoted = true
  end
  -- rate limit (see rateLimit.lua)
  if meta.limitMax then
    local limitedMs = rateLimitTtl(base .. "limiter", meta.limitMax)
    if limitedMs > 0 then
      return {0, 0, limitedMs, 0}
    end
  end
  if not meta.open and pausedOrMaxed(meta, k.active) then
    return {0, 0, 0, 0}
  end
  local jobId, from = popReady(k)
  local jobKey = jobId and base .. jobId
  -- a damaged job is never started (a partial hash written here would loop through the stalled check forever);
  -- the check's read is the job's fields the reply carries, kept up to date below instead of read again
  local problem, fields, atsAt, onAt, pbAt, rjkAt, optsAt
  if jobId then
    problem, fields, atsAt, onAt, pbAt, rjkAt, optsAt = readJobToStart(jobKey)
  end
  local skipped = 0
  while problem do
    redis.call("LREM", k.active, "-1", jobId)
    setAsideDamaged(jobKey, jobId, k.failed, k.events, meta.maxLen, from, problem, now)
    skipped = skipped + 1
    if skipped >= 1000 then
      return {0, 0, 0, 0} -- bounded work per call: the worker fetches again
    end
    jobId, from = popReady(k)
    jobKey = jobId and base .. jobId
    problem = nil
    if jobId then
      problem, fields, atsAt, onAt, pbAt, rjkAt, optsAt = readJobToStart(jobKey)
    end
  end
  if not jobId then
    redis.call("DEL", k.pc)
    clearReadyMarker(k.marker)
    return {0, 0, 0, nextDelayedTime(k)}
  end
  if not takeLock(jobKey .. ":lock", token, lockMs) then
    -- another owner's lock is live: leave the job in active; the stalled check requeues it once that lock expires
    return {0, 0, 0, 0}
  end
  if meta.limitMax then
    countTowardsLimit(base .. "limiter", jobKey, meta) -- rate limit (see rateLimit.lua)
  end
  redis.call("XADD", k.events, "MAXLEN", "~", meta.maxLen, "*", "event", "active", "jobId", jobId,
    "prev", "waiting")
  -- the text Redis stores for a numeric argument, so that the reply and the hash say the same
  local startedOn = nowText or string.format("%.17g", now)
  -- the new ats (readJobToStart checked it is an integer), written by the HSET below instead of a HINCRBY of its
  -- own; the reply's fields are updated as the hash is
  local ats = atsAt and string.format("%d", tonumber(fields[atsAt]) + 1) or "1"
  if workerName ~= "" then
    redis.call("HSET", jobKey, "processedOn", startedOn, "pb", workerName, "ats", ats)
    setListed(fields, pbAt, "pb", workerName)
  else
    redis.call("HSET", jobKey, "processedOn", startedOn, "ats", ats)
  end
  setListed(fields, onAt, "processedOn", startedOn)
  setListed(fields, atsAt, "ats", ats)
  -- a run of an "every" job scheduler: its next run is added here, in the worker's stead (schedulerJob.lua)
  local rjk = rjkAt and fields[rjkAt]
  local schedulerSettled = 0
  -- the earliest delayed job's due time, when the next run went to delayed (nothing after changes delayed)
  local nextDelayed
  if rjk and rjk ~= "" then
    local settled
    settled, nextDelayed = lib_schedulerJob().nextEveryRunOnFetch(base, jobId, rjk, optsAt and fields[optsAt], now,
      meta, k, startedOn)
    if settled then
      schedulerSettled = 1
    end
  end
  if batch then
    batch.fetched = true
    return {fields, jobId, 0, 0, 0, schedulerSettled}
  end
  -- the count lets this worker fetch that many at once for its free slots
  local ready = settleReadyMarker(k)
  if ready == 0 then
    -- nothing else is ready: what a fetch right after this one would answer ({0, 0, 0, nextDelayed}), so that the
    -- worker can wait for the marker at once instead of asking; not with a rate limit (that fetch could answer
    -- with the limit's wait instead) nor while paused or maxed (it would answer {0, 0, 0, 0})
    if not meta.limitMax and not pausedOrMaxed(meta, k.active) then
      return {fields, jobId, 0, 0, 0, schedulerSettled, nextDelayedTime(k, nextDelayed)}
    end
  end
  return {fields, jobId, 0, 0, ready, schedulerSettled}
end
