-- Ownership check before an active job changes state: 0 when the token owns the lock (which is then released),
-- -2 when the lock is gone, -6 when another token holds it. Token "0" is a manual move that skips the check.
local function checkAndReleaseLock(jobKey, stalledKey, jobId, token)
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
  redis.call("DEL", lockKey)
  redis.call("SREM", stalledKey, jobId)
  return 0
end
