-- finishJob: the body of moveToFinished for one job. Shared by moveToFinished and moveManyToFinished, which
-- finishes several jobs in one call exactly as that many moveToFinished calls in a row would; both take the
-- arguments laid out as moveManyToFinished's ARGV (see lua/moveToFinished.lua's header): A[1..7] what the
-- finishes share, then this job's 12 from A[o + 1]. A is the script's ARGV itself, read in place: copying a job's
-- arguments into a table of their own cost Redis more per job than some of the commands. Needs the includes
-- moveToFinished lists, with flowParent, deduplicate, deadLetter, metrics and schedulerJob lazy (--@lazy:
-- lib_flowParent() etc.): only rare finishes need them, and defining them on every call cost Redis several µs per
-- call.
-- shared is nil for a single finish; a batch passes one table to all its finishes, so that the queue's meta is read
-- once, by the first finish that needs it (nothing a finish does changes the fields read: paused, concurrency, the
-- stream cap, the limiter's max and duration), and its fetches share the delayed promotion and the ready marker
-- (fetchJob's batch: shared.now is the batch's latest now); their released locks are deleted, and their ids taken
-- out of stalled, together after the batch (shared.released, see lockCheck.lua).
-- Times and counts go to redis.call as text (A[o + 3] is now's digits): a number argument costs a "%.17g"
-- formatting. The common values are compared as text ("-1" keeps everything) for the same reason.
-- Retention: deletes the given finished jobs (their parents stop waiting for them) and takes them out of setKey.
local function dropFinished(base, setKey, ids)
  for _, id in ipairs(ids) do
    lib_flowParent().unlinkTrimmed(base .. id)
    removeJobKeys(base .. id)
  end
  if #ids > 0 then
    redis.call("ZREM", setKey, unpack(ids))
  end
end

-- What a finish that asks for no next job returns (never changed by the caller).
local NO_NEXT = {0, 0, 0, 0}

local function finishJob(K, A, o, shared)
  local base, jobId, token, nowText, outcome = A[1], A[o + 1], A[o + 2], A[o + 3], A[o + 4]
  local jobKey = base .. jobId
  local completed = outcome == "completed"
  -- everything this script reads from the job is checked before its first write (one read: the check's HMGET also
  -- brings deid, which tells whether the job owns a deduplication window, and the flow parent's fields)
  local problem, jobFields = readSoundJob(jobKey, 1, "atm", "deid", "parentKey", "parent")
  if problem == "missing" then
    return {-1}
  end
  if problem then
    -- only the lock owner may set it aside, as it may finish it; a foreign or lost lock refuses as usual
    local holder = redis.call("GET", jobKey .. ":lock")
    if token ~= "0" and holder ~= token then
      return {holder and -6 or -2}
    end
    if redis.call("LREM", K[1], "-1", jobId) == 0 then
      return {-3}
    end
    redis.call("SREM", K[4], jobId)
    setAsideDamaged(jobKey, jobId, K[11], K[3], readMeta(K[5]).maxLen, "active", problem, tonumber(nowText))
    return {-20}
  end
  -- a parent completes only once its children are done (checked before the lock is released, as BullMQ does)
  if completed and redis.call("EXISTS", jobKey .. ":dependencies", jobKey .. ":unsuccessful") > 0 then
    if redis.call("SCARD", jobKey .. ":dependencies") > 0 then
      return {-4}
    end
    if redis.call("ZCARD", jobKey .. ":unsuccessful") > 0 then
      return {-9}
    end
  end
  local lock = checkAndReleaseLock(jobKey, K[4], jobId, token, shared and shared.released)
  if lock ~= 0 then
    return {lock}
  end
  if redis.call("LREM", K[1], "-1", jobId) == 0 then
    return {-3}
  end

  local fetchNext = A[o + 10] == "1"
  -- the queue's meta, with the limiter's fields when the next job is fetched; a batch reads it once
  local meta = shared and shared.meta
  if not meta then
    if shared or fetchNext then
      meta = readMetaWithLimits(K[5], A[4], A[5])
    else
      meta = readMeta(K[5])
    end
    if shared then
      shared.meta = meta
    end
  end
  local maxLen = meta.maxLen -- every XADD below caps the stream, so no separate XTRIM is needed
  local now = tonumber(nowText)
  -- atm was read (and checked to be an integer) above: its new value is written with the outcome's fields below,
  -- in one HSET, instead of a HINCRBY of its own (nothing in between reads it; a job removed at once needs none)
  local attemptsMade, attemptsText = 1, "1"
  if jobFields[2] then
    attemptsMade = tonumber(jobFields[2]) + 1
    attemptsText = string.format("%d", attemptsMade)
  end
  local value = A[o + 5]

  -- a deduplication window without TTL lasts while its job does: release it if it still names this job
  local dedupId = jobFields[3]
  if dedupId then
    local dedupKey = base .. "de:" .. dedupId
    local ttl = redis.call("PTTL", dedupKey)
    if ttl == -1 and redis.call("GET", dedupKey) == jobId then
      redis.call("DEL", dedupKey)
    end
    -- keepLastIfActive: the add kept while this job ran becomes a job now (deduplicate.lua)
    lib_deduplicate().createDedupNext(base, {wait = K[6], active = K[1], prioritized = K[7], pc = K[8],
      delayed = K[9], marker = K[10], meta = K[5], events = K[3]}, meta, dedupId, now)
  end
  -- a child of a flow: its parent learns the outcome (return value, or the failure under the child's policy)
  local keepCountText = A[o + 7]
  local keepCount = keepCountText == "-1" and -1 or tonumber(keepCountText)
  local parentKey, parentJson = jobFields[4], jobFields[5]
  local parent = false
  if completed and parentKey and keepCount ~= 0 then
    -- the common case needs only the parent's key: its JSON is decoded when the last child releases it
    lib_flowParent().childCompletedByKey(parentKey, parentJson, jobKey, value, now)
  elseif parentKey or parentJson then
    parent = lib_flowParent().parentOf(parentKey, parentJson)
    if parent and completed then
      lib_flowParent().childCompleted(parent, jobKey, value, now)
    elseif parent then
      lib_flowParent().childFailed(parent, jobKey, value, now)
    end
  end
  if not completed and A[o + 12] ~= "" then
    lib_deadLetter().addDeadLetter(A[o + 12], A[7], jobKey, jobId, value, attemptsMade, A[o + 6], now)
  end

  if keepCount == 0 then
    removeJobKeys(jobKey)
    if parent then
      lib_flowParent().childGone(parent, jobKey)
    end
  else
    redis.call("ZADD", K[2], nowText, jobId)
    local stacktrace = A[o + 6]
    if stacktrace ~= "" then
      redis.call("HSET", jobKey, "atm", attemptsText, completed and "returnvalue" or "failedReason", value,
        "finishedOn", nowText, "stacktrace", stacktrace)
    else
      redis.call("HSET", jobKey, "atm", attemptsText, completed and "returnvalue" or "failedReason", value,
        "finishedOn", nowText)
    end
    if not completed then
      redis.call("HDEL", jobKey, "defa")
    end
    -- retention: trimming old jobs is best effort, bounded per call as in BullMQ
    local keepAgeText = A[o + 8]
    if keepAgeText ~= "-1" then
      local keepAge = tonumber(keepAgeText)
      if keepAge >= 0 then
        -- newest first, as BullMQ trims (the order parents released by unlinkTrimmed go to wait in)
        dropFinished(base, K[2], redis.call("ZREVRANGEBYSCORE", K[2], string.format("%d", now - keepAge), "-inf",
          "LIMIT", "0", "1000"))
      end
    end
    if keepCount > 0 then
      dropFinished(base, K[2], redis.call("ZREVRANGE", K[2], keepCountText, string.format("%d", keepCount + 999)))
    end
  end

  if completed then
    redis.call("XADD", K[3], "MAXLEN", "~", maxLen, "*", "event", "completed", "jobId", jobId,
      "returnvalue", value, "prev", "active")
  else
    redis.call("XADD", K[3], "MAXLEN", "~", maxLen, "*", "event", "failed", "jobId", jobId,
      "failedReason", value, "prev", "active")
    if attemptsMade >= tonumber(A[o + 9]) then
      redis.call("XADD", K[3], "MAXLEN", "~", maxLen, "*", "event", "retries-exhausted", "jobId", jobId,
        "attemptsMade", attemptsText)
    end
  end

  if A[6] ~= "" then
    lib_metrics().countFinishedInMinute(base .. "metrics:" .. outcome, tonumber(A[6]), nowText)
  end

  local k = shared and shared.k
  if not k then
    k = {wait = K[6], active = K[1], prioritized = K[7], pc = K[8], delayed = K[9], marker = K[10], meta = K[5],
      events = K[3], failed = K[11]}
    if shared then
      shared.k = k
    end
  end
  local result = NO_NEXT
  -- drained as BullMQ decides it: a worker that asked for a next job and found the queue paused (or maxed), or a
  -- delayed job still to come, is told so and writes no drained; otherwise nothing left ready or active is drained
  local quiet = false
  if fetchNext then
    result = fetchJob(k, base, now, A[o + 11], A[2], A[3], meta, nowText, shared)
    quiet = result[2] ~= 0 or result[3] ~= 0 or result[4] ~= 0 or pausedOrMaxed(meta, K[1])
  end
  if not quiet and redis.call("LLEN", K[6]) == 0 and redis.call("LLEN", K[1]) == 0
      and redis.call("ZCARD", K[7]) == 0 then
    redis.call("XADD", K[3], "MAXLEN", "~", maxLen, "*", "event", "drained")
  end
  return result
end
