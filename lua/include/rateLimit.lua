-- Rate limiting for every fetch, on the queue's "limiter" counter (the key base .. "limiter", as BullMQ names it,
-- so Node and Java workers count in one window). Which limit applies follows BullMQ 6.7.0 exactly: the max comes
-- from the queue's meta.max (setGlobalRateLimit) before the worker's limiter, the window's duration from the
-- worker's limiter before meta.duration.

-- Adds limitMax and limitDuration to a meta table from readMeta; workerMax/workerDuration are "" when the worker
-- has no limiter.
local function readLimits(meta, metaKey, workerMax, workerDuration)
  -- read already when readMeta was given "max", "duration" (a read value is never nil: false when absent)
  local f = meta.more[1] ~= nil and meta.more or redis.call("HMGET", metaKey, "max", "duration")
  meta.limitMax = tonumber(f[1]) or tonumber(workerMax)
  meta.limitDuration = tonumber(workerDuration) or tonumber(f[2])
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
