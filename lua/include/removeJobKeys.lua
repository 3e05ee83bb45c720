-- Deletes a job's hash and its sub-keys.
local function removeJobKeys(jobKey)
  redis.call("DEL", jobKey, jobKey .. ":logs", jobKey .. ":lock", jobKey .. ":dependencies", jobKey .. ":processed",
    jobKey .. ":failed", jobKey .. ":unsuccessful")
end
