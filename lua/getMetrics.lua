-- getMetrics: a finished-job metrics hash and a page of its per-minute data, read in one step (read only).
-- KEYS[1] metrics:<type> (hash: count, prevTS, prevCount)
-- KEYS[2] metrics:<type>:data (list, newest minute first)
-- ARGV[1] first position of the page
-- ARGV[2] last position of the page (-1: the last)
-- Returns {{count, prevTS, prevCount} (each may be nil), page, length of the data list}.

return {redis.call("HMGET", KEYS[1], "count", "prevTS", "prevCount"),
  redis.call("LRANGE", KEYS[2], ARGV[1], ARGV[2]), redis.call("LLEN", KEYS[2])}
