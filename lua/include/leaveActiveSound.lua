-- leaveActive (lockCheck) for a script that will increment the given counter of the job: a job whose hash is
-- damaged is set aside to failed by its lock owner (jobHealth) instead of leaving the script halfway done.
-- Returns leaveActive's codes, or -20 when the job was set aside. Needs lockCheck and jobHealth.
local function leaveActiveSound(jobKey, activeKey, stalledKey, jobId, token, failedKey, eventsKey, maxLen, now,
                                counter)
  local problem = jobProblem(jobKey, counter)
  if problem == nil or problem == "missing" or string.sub(problem, 1, 7) == "job key" then
    return leaveActive(jobKey, activeKey, stalledKey, jobId, token)
  end
  local lock = checkAndReleaseLock(jobKey, stalledKey, jobId, token)
  if lock ~= 0 then
    return lock
  end
  if redis.call("LREM", activeKey, -1, jobId) == 0 then
    return -3
  end
  setAsideDamaged(jobKey, jobId, failedKey, eventsKey, maxLen, "active", problem, now)
  return -20
end
