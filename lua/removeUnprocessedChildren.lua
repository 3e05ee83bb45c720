-- removeUnprocessedChildren: removes a parent's children that have not been processed (pending ones, and their own
-- pending children, in any queue), except those a worker holds; processed and failed children stay.
-- KEYS[1] meta of the parent's queue
-- ARGV[1] key base of the parent's queue
-- ARGV[2] parent job id
-- Returns 0.
--@include queueState
--@include readyJob
--@include destroyJob
--@include flowParent
--@include removeFlowJob

local jobKey = ARGV[1] .. ARGV[2]
for _, child in ipairs(redis.call("SMEMBERS", jobKey .. ":dependencies")) do
  local childBase, childId = splitJobKey(child)
  if childBase then
    removePendingTree(childBase, childId)
  end
end
return 0
