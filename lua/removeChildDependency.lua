-- removeChildDependency: unlinks a child from its parent (which may be in another queue): the parent no longer
-- waits for it, and is released when it was the last pending child (to the head of wait, as BullMQ does).
-- KEYS[1] meta of the child's queue
-- ARGV[1] key base of the child's queue
-- ARGV[2] child job id
-- Returns 0 when unlinked, 1 when the child was not pending for its parent (nothing changed), -1 when the child
-- does not exist, -5 when its parent does not exist (or it has none).
--@include queueState
--@include readyJob
--@include flowParent

local jobKey = ARGV[1] .. ARGV[2]
if redis.call("EXISTS", jobKey) == 0 then
  return -1
end
local f = redis.call("HMGET", jobKey, "parentKey", "parent")
local p = parentOf(f[1], f[2])
if not p or redis.call("EXISTS", p.key) == 0 then
  return -5
end
if redis.call("SISMEMBER", p.key .. ":dependencies", jobKey) == 0 then
  return 1
end
childGone(p, jobKey)
redis.call("HDEL", jobKey, "parentKey", "parent")
return 0
