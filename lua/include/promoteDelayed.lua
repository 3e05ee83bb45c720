-- Promoting delayed jobs that fell due, before a job is fetched or put back to wait. Needs queueState and
-- readyJob. The table k holds the queue's keys: wait, active, prioritized, pc, delayed, marker, events.

-- Moves delayed jobs that are due at `now` to wait or prioritized, 1000 per call.
local function promoteDueJobs(k, base, now, meta)
  local due = redis.call("ZRANGEBYSCORE", k.delayed, 0, (now + 1) * 4096 - 1, "LIMIT", 0, 1000)
  if #due == 0 then
    return
  end
  for _, jobId in ipairs(due) do
    local jobKey = base .. jobId
    redis.call("ZREM", k.delayed, jobId)
    local fields = redis.call("HMGET", jobKey, "priority", "opts")
    local priority = tonumber(fields[1]) or 0
    -- a promoted job joins the back of its lane, as in BullMQ
    pushReady(k.wait, k.prioritized, k.pc, jobId, priority, false)
    redis.call("HSET", jobKey, "delay", 0)
    redis.call("XADD", k.events, "MAXLEN", "~", meta.maxLen, "*", "event", "waiting", "jobId", jobId,
      "prev", "delayed")
  end
  if not pausedOrMaxed(meta, k.active) then
    addReadyMarker(k.marker)
  end
end
