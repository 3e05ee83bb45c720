-- Rate limiting for every fetch, on the queue's "limiter" counter (the key base .. "limiter", as BullMQ names it,
-- so Node and Java workers count in one window). Which limit applies follows BullMQ 6.7.0 exactly: the max comes
-- from the queue's meta.max (setGlobalRateLimit) before the worker's limiter, the window's duration from the
-- worker's limiter before meta.duration.

-- readMeta's table, with the limit a fetch obeys from the same read: limitMax and limitDuration (nil when none);
-- workerMax/workerDuration are "" when the worker has no limiter.
local function readMetaWithLimits(metaKey, workerMax, workerDuration)
  local f = redis.call("HMGET", metaKey, "paused", "concurrency", "opts.maxLenEvents", "max", "duration")
  local meta = metaOf(metaKey, f)
  -- a value read is never nil (false when absent), and tonumber(false) is nil
  meta.limitMax = tonumber(f[4]) or tonumber(workerMax)
  meta.limitDuration = tonumber(workerDuration) or tonumber(f[5])
  return meta
end

-- The ms left in a window whose max is reached, else 0. A window that just ended (PTTL 0) is dropped.
local function rateLimitTtl(limiterKey, max)
  if not max or max > (tonumber(redis.call("GET", limiterKey)) or 0) then
    return 0
  end
  local ttl = redis.call("PTTL", limiterKey)
  if ttl == 0 then
    redis.call("DEL", limiterKey)
  end
  return math.max(ttl, 0)
end

-- Counts a job taken for processing; the first one of a window starts its expiry. A job that only comes to be
-- failed at once (a deferred failure) does not count, as in BullMQ.
local function countTowardsLimit(limiterKey, jobKey, meta)
  if not meta.limitMax or redis.call("HEXISTS", jobKey, "defa") == 1 then
    return
  end
  if redis.call("INCR", limiterKey) == 1 and meta.limitDuration then
    redis.call("PEXPIRE", limiterKey, math.floor(math.abs(meta.limitDuration)))
  end
end
