-- getRateLimitTtl: the ms left in the rate-limit window once maxJobs (else the queue's global max) are taken;
-- with neither, the limiter's PTTL as is (-2 no window, -1 no expiry), as BullMQ answers.
-- KEYS[1] limiter
-- KEYS[2] meta
-- ARGV[1] maxJobs, or "0" for the queue's global max
--@include rateLimit

local max = tonumber(ARGV[1])
if max == 0 then
  max = tonumber(redis.call("HGET", KEYS[2], "max"))
  if not max then
    return redis.call("PTTL", KEYS[1])
  end
end
return rateLimitTtl(KEYS[1], max)
