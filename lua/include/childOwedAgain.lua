-- A finished child run again (a retry of a completed or failed job) is pending again for its parent: it leaves the
-- parent's record of its result or failure and goes back among its dependencies (the parent may be in another
-- queue; flows across queues need one hash tag on a cluster).
local function childOwedAgain(jobKey, state)
  local parentKey = redis.call("HGET", jobKey, "parentKey")
  if not parentKey or redis.call("EXISTS", parentKey) == 0 then
    return
  end
  local owed
  if state == "failed" then
    owed = redis.call("ZREM", parentKey .. ":unsuccessful", jobKey) == 1
      or redis.call("HDEL", parentKey .. ":failed", jobKey) == 1
  else
    owed = redis.call("HDEL", parentKey .. ":processed", jobKey) == 1
  end
  if owed then
    redis.call("SADD", parentKey .. ":dependencies", jobKey)
  end
end
