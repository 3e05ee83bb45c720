-- Promoting delayed jobs that fell due, before a job is fetched or put back to wait. Needs queueState, readyJob
-- and jobHealth. The table k holds the queue's keys: wait, active, prioritized, pc, delayed, marker, events,
-- failed. A due job whose hash is missing or damaged is set aside (jobHealth), never promoted.

-- Moves delayed jobs that are due at `now` to wait or prioritized, 1000 per call.
local function promoteDueJobs(k, base, now, meta)
  -- the bounds as text: a number argument costs redis.call a "%.17g" formatting
  local due = redis.call("ZRANGEBYSCORE", k.delayed, "0", string.format("%d", (now + 1) * 4096 - 1), "LIMIT", "0",
    "1000")
  if #due == 0 then
    return
  end
  -- all of them out of delayed in one command, as BullMQ does
  redis.call("ZREM", k.delayed, unpack(due))
  for _, jobId in ipairs(due) do
    local jobKey = base .. jobId
    -- one read checks the key (readSoundJob: TYPE only when the hash has no timestamp) and brings the priority
    local problem, values = readSoundJob(jobKey, 0, "priority")
    if problem then
      setAsideDamaged(jobKey, jobId, k.failed, k.events, meta.maxLen, "delayed", problem, now)
    else
      local priority = tonumber(values[2]) or 0
      -- a promoted job joins the back of its lane, as in BullMQ
      pushReady(k.wait, k.prioritized, k.pc, jobId, priority, false)
      redis.call("HSET", jobKey, "delay", "0")
      redis.call("XADD", k.events, "MAXLEN", "~", meta.maxLen, "*", "event", "waiting", "jobId", jobId,
        "prev", "delayed")
    end
  end
  if not pausedOrMaxed(meta, k.active) then
    addReadyMarker(k.marker)
  end
end
