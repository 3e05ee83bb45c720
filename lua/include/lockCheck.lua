-- Ownership check before an active job changes state: 0 when the token owns the lock (which is then released),
-- -2 when the lock is gone, -6 when another token holds it. Token "0" is a manual move that skips the check.
-- released (nil for at once) collects the lock keys and job ids instead, for one DEL and one SREM after a batch of
-- finishes (releaseCollected): nothing in between reads them.
local function checkAndReleaseLock(jobKey, stalledKey, jobId, token, released)
  if token == "0" then
    return 0
  end
  local lockKey = jobKey .. ":lock"
  local holder = redis.call("GET", lockKey)
  if not holder then
    return -2
  end
  if holder ~= token then
    return -6
  end
  if released then
    released.locks[#released.locks + 1] = lockKey
    released.ids[#released.ids + 1] = jobId
    return 0
  end
  redis.call("DEL", lockKey)
  redis.call("SREM", stalledKey, jobId)
  return 0
end

-- The deferred releases of checkAndReleaseLock.
local function releaseCollected(released, stalledKey)
  if #released.locks > 0 then
    redis.call("DEL", unpack(released.locks))
    redis.call("SREM", stalledKey, unpack(released.ids))
  end
end

-- The common start of every move out of active: 0 when the job's hash exists, the token owns it (its lock is then
-- released) and it was in active (now removed from it); else -1 (no job), -2/-6 (lock) or -3 (not active).
local function leaveActive(jobKey, activeKey, stalledKey, jobId, token)
  -- a key of another type is no job either: refused before any write (the stalled check sets it aside later)
  if redis.call("TYPE", jobKey)["ok"] ~= "hash" then
    return -1
  end
  local lock = checkAndReleaseLock(jobKey, stalledKey, jobId, token)
  if lock ~= 0 then
    return lock
  end
  if redis.call("LREM", activeKey, -1, jobId) == 0 then
    return -3
  end
  return 0
end
