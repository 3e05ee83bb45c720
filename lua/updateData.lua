-- updateData: replaces a job's data.
-- KEYS[1] the job's hash
-- ARGV[1] data (JSON)
-- Returns 0, or -1 when the job does not exist, -21 the job key is not a hash.

-- a key of another type is refused as such, before any write
local jobKeyType = redis.call("TYPE", KEYS[1])["ok"]
if jobKeyType == "none" then
  return -1
elseif jobKeyType ~= "hash" then
  return -21
end
redis.call("HSET", KEYS[1], "data", ARGV[1])
return 0
