-- pause: pauses or resumes the queue for every worker.
-- Pausing sets meta "paused" and deletes the marker, so blocked workers sleep on. Resuming clears it, moves any
-- legacy "paused" list (older BullMQ versions parked jobs there) back into wait, and wakes workers: marker "0"
-- when a job is ready, else the delay marker for the first delayed job.
-- KEYS[1] meta
-- KEYS[2] marker
-- KEYS[3] events
-- KEYS[4] wait
-- KEYS[5] paused (legacy list)
-- KEYS[6] prioritized
-- KEYS[7] delayed
-- ARGV[1] "paused" or "resumed"
-- Returns 0.
--@include queueState

if ARGV[1] == "paused" then
  redis.call("HSET", KEYS[1], "paused", 1)
  redis.call("DEL", KEYS[2])
else
  redis.call("HDEL", KEYS[1], "paused")
  if redis.call("EXISTS", KEYS[5]) == 1 then
    if redis.call("EXISTS", KEYS[4]) == 0 then
      redis.call("RENAME", KEYS[5], KEYS[4])
    else
      -- parked jobs go to the consuming end of wait, oldest last pushed; 7000 ids per RPUSH
      repeat
        local ids = redis.call("LRANGE", KEYS[5], 0, 6999)
        redis.call("RPUSH", KEYS[4], unpack(ids))
        redis.call("LTRIM", KEYS[5], #ids, -1)
      until redis.call("EXISTS", KEYS[5]) == 0
    end
  end
  if redis.call("LLEN", KEYS[4]) + redis.call("ZCARD", KEYS[6]) > 0 then
    addReadyMarker(KEYS[2])
  else
    addDelayMarker(KEYS[2], KEYS[7])
  end
end
-- BullMQ writes these two without MAXLEN
redis.call("XADD", KEYS[3], "*", "event", ARGV[1])
return 0
