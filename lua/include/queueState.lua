-- Shared helpers: pause/maxed checks, wake-up markers, the events stream length.

-- True while the queue is paused, or while a global concurrency is set and reached.
local function isPausedOrMaxed(metaKey, activeKey)
  local meta = redis.call("HMGET", metaKey, "paused", "concurrency")
  if meta[1] then
    return true
  end
  if meta[2] then
    return redis.call("LLEN", activeKey) >= tonumber(meta[2])
  end
  return false
end

-- The meta table of the fields an HMGET of paused, concurrency and opts.maxLenEvents gave (in that order): the stream
-- cap is written lazily with BullMQ's default when no producer set it. maxLen is kept as the stored text when that is
-- a plain integer: every XADD passes it on, and a number argument costs redis.call a "%.17g" formatting each time.
-- open: neither paused nor under a global concurrency, so that a hot path can skip pausedOrMaxed.
local function metaOf(metaKey, f)
  local maxLen = f[3]
  if not (maxLen and string.find(maxLen, "^%d+$")) then
    maxLen = tonumber(maxLen)
    if not maxLen then
      redis.call("HSET", metaKey, "opts.maxLenEvents", "10000")
      maxLen = "10000"
    end
  end
  local concurrency = tonumber(f[2])
  return {paused = f[1] ~= false, concurrency = concurrency, maxLen = maxLen, open = not f[1] and not concurrency}
end

-- The meta fields the hot paths need, in one read: paused, global concurrency and the stream cap (metaOf).
local function readMeta(metaKey)
  return metaOf(metaKey, redis.call("HMGET", metaKey, "paused", "concurrency", "opts.maxLenEvents"))
end

-- isPausedOrMaxed for meta already read with readMeta.
local function pausedOrMaxed(meta, activeKey)
  if meta.paused then
    return true
  end
  if meta.concurrency then
    return redis.call("LLEN", activeKey) >= meta.concurrency
  end
  return false
end

-- A number as the text redis.call would send for it: an integer through "%d", which gives the digits "%.17g" gives
-- below 1e17 without the floating-point printing that costs Redis about 0.3 us per argument; anything else as is.
local function numText(n)
  if n == math.floor(n) and n > -1e17 and n < 1e17 then
    return string.format("%d", n)
  end
  return n
end

-- Member "0" (score 0) tells a blocked worker that a job is ready.
local function addReadyMarker(markerKey)
  redis.call("ZADD", markerKey, "0", "0")
end

-- Once the last ready job is taken, a "0" left in the marker would only wake a worker for an empty fetch.
local function clearReadyMarker(markerKey)
  redis.call("ZREM", markerKey, "0")
end

-- Member "1" carries the due time (ms) of the earliest delayed job. Returns that time (nil when delayed is empty),
-- which stays the earliest until delayed changes.
local function addDelayMarker(markerKey, delayedKey)
  local first = redis.call("ZRANGE", delayedKey, "0", "0", "WITHSCORES")
  if first[2] then
    local due = math.floor(tonumber(first[2]) / 4096)
    redis.call("ZADD", markerKey, numText(due), "1")
    return due
  end
end

-- The stream's approximate cap, written lazily with BullMQ's default when no producer set it.
local function maxEvents(metaKey)
  local n = redis.call("HGET", metaKey, "opts.maxLenEvents")
  if not n then
    redis.call("HSET", metaKey, "opts.maxLenEvents", 10000)
    return 10000
  end
  return tonumber(n)
end
