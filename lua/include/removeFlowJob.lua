-- Removing a job of a flow, as BullMQ's remove does: the job is unlinked from its parent (in any queue, released
-- when it was the last pending child), and with its children (processed, failed, pending, in any queue), removed
-- depth first. Needs queueState, readyJob, destroyJob and flowParent.

-- "P:Q:id" as its queue base "P:Q:" and id (P and Q hold no ':'); nil when the key is not of that form.
local function splitJobKey(jobKey)
  local first = string.find(jobKey, ":", 1, true)
  local second = first and string.find(jobKey, ":", first + 1, true)
  if not second then
    return nil
  end
  return string.sub(jobKey, 1, second), string.sub(jobKey, second + 1)
end

-- True when the job, or (withChildren) one of its pending children down the tree, is locked by a worker.
local function flowLocked(jobKey, withChildren)
  if redis.call("EXISTS", jobKey .. ":lock") == 1 then
    return true
  end
  if withChildren then
    for _, child in ipairs(redis.call("SMEMBERS", jobKey .. ":dependencies")) do
      if flowLocked(child, true) then
        return true
      end
    end
  end
  return false
end

-- The keys of a parent's children, whatever became of them.
local function childKeys(jobKey)
  local keys = {}
  local processed = redis.call("HKEYS", jobKey .. ":processed")
  local ignored = redis.call("HKEYS", jobKey .. ":failed")
  local failed = redis.call("ZRANGE", jobKey .. ":unsuccessful", 0, -1)
  local pending = redis.call("SMEMBERS", jobKey .. ":dependencies")
  for _, list in ipairs({processed, ignored, failed, pending}) do
    for _, k in ipairs(list) do
      keys[#keys + 1] = k
    end
  end
  return keys
end

-- Removes the job (and its children when asked); emits "removed" (prev = the state it left) in its queue.
local function removeFlowJob(base, jobId, withChildren)
  local jobKey = base .. jobId
  local f = redis.call("HMGET", jobKey, "parentKey", "parent")
  local p = parentOf(f[1], f[2])
  if p and redis.call("EXISTS", p.key) == 1 then
    childGone(p, jobKey)
  end
  if withChildren then
    for _, child in ipairs(childKeys(jobKey)) do
      local childBase, childId = splitJobKey(child)
      if childBase then
        removeFlowJob(childBase, childId, true)
      end
    end
  end
  local prev = removeFromAnyState(base, jobId)
  dropDedupKey(base, jobId)
  if deleteJobKeys(jobKey) > 0 then
    redis.call("XADD", base .. "events", "MAXLEN", "~", maxEvents(base .. "meta"), "*", "event", "removed",
      "jobId", jobId, "prev", prev)
    return true
  end
  return false
end

-- A pending child and its pending children, removed unless locked or failed (BullMQ's removeUnprocessedChildren:
-- processed children stay). The parent it leaves is released when it was the last pending child.
local function removePendingTree(base, jobId)
  local jobKey = base .. jobId
  if redis.call("EXISTS", jobKey .. ":lock") == 1 or redis.call("ZSCORE", base .. "failed", jobId) then
    return
  end
  local f = redis.call("HMGET", jobKey, "parentKey", "parent")
  local p = parentOf(f[1], f[2])
  if p then
    childGone(p, jobKey)
  end
  for _, child in ipairs(redis.call("SMEMBERS", jobKey .. ":dependencies")) do
    local childBase, childId = splitJobKey(child)
    if childBase then
      removePendingTree(childBase, childId)
    end
  end
  local prev = removeFromAnyState(base, jobId)
  dropDedupKey(base, jobId)
  if deleteJobKeys(jobKey) > 0 then
    redis.call("XADD", base .. "events", "MAXLEN", "~", maxEvents(base .. "meta"), "*", "event", "removed",
      "jobId", jobId, "prev", prev)
  end
end
