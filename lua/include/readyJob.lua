-- Putting a job where workers take it: wait (FIFO or LIFO) or prioritized (by priority, FIFO within one). Needs
-- queueState (numText).

local function pushReady(waitKey, prioritizedKey, pcKey, jobId, priority, lifo)
  priority = tonumber(priority) or 0
  if priority > 0 then
    local seq = redis.call("INCR", pcKey) % 4294967296
    redis.call("ZADD", prioritizedKey, priority * 4294967296 + seq, jobId)
  elseif lifo then
    redis.call("RPUSH", waitKey, jobId)
  else
    redis.call("LPUSH", waitKey, jobId)
  end
end

-- Score in "delayed": due ms * 4096 plus a sequence that keeps FIFO within one millisecond. Also returns the
-- score as numText gives it when that text is at hand (the low bound, formatted for the query), else nil.
local function delayedScore(delayedKey, runAt)
  local low = runAt * 4096
  local high = low + 4095
  local lowText = numText(low)
  local last = redis.call("ZREVRANGEBYSCORE", delayedKey, numText(high), lowText, "WITHSCORES", "LIMIT", "0", "1")
  if last[2] then
    return math.min(tonumber(last[2]) + 1, high)
  end
  return low, lowText
end
