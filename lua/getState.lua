-- getState: finds which state holds a job, checking in BullMQ's order.
-- KEYS[1] completed
-- KEYS[2] failed
-- KEYS[3] delayed
-- KEYS[4] prioritized
-- KEYS[5] active
-- KEYS[6] wait
-- KEYS[7] paused (legacy list)
-- KEYS[8] waiting-children
-- ARGV[1] job id
-- Returns the state's name, or "unknown".

local id = ARGV[1]
if redis.call("ZSCORE", KEYS[1], id) then return "completed" end
if redis.call("ZSCORE", KEYS[2], id) then return "failed" end
if redis.call("ZSCORE", KEYS[3], id) then return "delayed" end
if redis.call("ZSCORE", KEYS[4], id) then return "prioritized" end
if redis.call("LPOS", KEYS[5], id) then return "active" end
if redis.call("LPOS", KEYS[6], id) then return "waiting" end
if redis.call("LPOS", KEYS[7], id) then return "waiting" end
if redis.call("ZSCORE", KEYS[8], id) then return "waiting-children" end
return "unknown"
