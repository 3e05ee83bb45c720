-- Removing jobs for good (remove, drain, clean, obliterate). Needs queueState.
-- Everything is built from the queue's base "P:Q:", and a parent's keys from its job key (see unlinkParent).

-- A field of a job's hash, or false; a key of another type counts as a job without the field, so that one damaged
-- job does not stop a removal of many halfway.
local function jobField(jobKey, field)
  if redis.call("TYPE", jobKey)["ok"] ~= "hash" then
    return false
  end
  return redis.call("HGET", jobKey, field)
end

-- Deletes a job's hash and sub-keys; returns how many existed.
local function deleteJobKeys(jobKey)
  return redis.call("DEL", jobKey, jobKey .. ":logs", jobKey .. ":lock", jobKey .. ":dependencies",
    jobKey .. ":processed", jobKey .. ":failed", jobKey .. ":unsuccessful")
end

-- Takes the id out of whichever state holds it; returns that state's key name as BullMQ reports it
-- ("wait" and "paused" are the list names, not "waiting"), or "unknown".
local function removeFromAnyState(base, jobId)
  for _, set in ipairs({"completed", "waiting-children", "delayed", "failed", "prioritized"}) do
    if redis.call("ZREM", base .. set, jobId) == 1 then
      return set
    end
  end
  for _, list in ipairs({"wait", "paused", "active"}) do
    if redis.call("LREM", base .. list, 1, jobId) == 1 then
      return list
    end
  end
  return "unknown"
end

-- True for the pending iteration of a live job scheduler, which only the scheduler may remove.
local function isSchedulerJob(base, jobId)
  local schedulerId = jobField(base .. jobId, "rjk")
  if not schedulerId then
    return false
  end
  local next = redis.call("ZSCORE", base .. "repeat", schedulerId)
  return next ~= false and jobId == "repeat:" .. schedulerId .. ":" .. next
end

-- A deduplication key owned by this job dies with it, so the next add with that id is accepted.
local function dropDedupKey(base, jobId)
  local dedupId = jobField(base .. jobId, "deid")
  if dedupId and redis.call("GET", base .. "de:" .. dedupId) == jobId then
    redis.call("DEL", base .. "de:" .. dedupId, base .. "dn:" .. dedupId)
  end
end

-- A parent in another queue (a flow over queues; one hash tag on a cluster): when the child leaving for good was
-- its last pending one, it goes to the head of its queue's wait, without an event, as BullMQ's drain and clean do.
local function unlinkOtherQueueParent(parentKey, jobKey)
  local first = string.find(parentKey, ":", 1, true)
  local second = first and string.find(parentKey, ":", first + 1, true)
  if not second then
    return
  end
  local deps = parentKey .. ":dependencies"
  if redis.call("SREM", deps, jobKey) == 0 or redis.call("SCARD", deps) > 0 then
    return
  end
  local pbase, parentId = string.sub(parentKey, 1, second), string.sub(parentKey, second + 1)
  if redis.call("ZREM", pbase .. "waiting-children", parentId) == 1 then
    redis.call("RPUSH", pbase .. "wait", parentId)
    if not isPausedOrMaxed(pbase .. "meta", pbase .. "active") then
      addReadyMarker(pbase .. "marker")
    end
  end
end

-- A child leaving for good is no longer pending for its parent. When it was the last one, the parent leaves
-- waiting-children: to wait (soft, as a single remove does) or deleted too (hard, as drain and clean do). A parent
-- in another queue is released to wait (unlinkOtherQueueParent).
local function unlinkParent(base, jobId, hard)
  local jobKey = base .. jobId
  local parentKey = jobField(jobKey, "parentKey")
  if not parentKey then
    return
  end
  if string.sub(parentKey, 1, #base) ~= base then
    unlinkOtherQueueParent(parentKey, jobKey)
    return
  end
  local deps = parentKey .. ":dependencies"
  if redis.call("SREM", deps, jobKey) == 0 or redis.call("SCARD", deps) > 0 then
    return
  end
  local parentId = string.sub(parentKey, #base + 1)
  if redis.call("ZREM", base .. "waiting-children", parentId) == 0 then
    return
  end
  if hard then
    -- the parent goes too, and with it its own link up: its parent may then be released, or go as well, as in
    -- BullMQ (left linked, a grandparent would wait for a job that no longer exists)
    unlinkParent(base, parentId, true)
    dropDedupKey(base, parentId)
    deleteJobKeys(parentKey)
    return
  end
  redis.call("RPUSH", base .. "wait", parentId)
  if not isPausedOrMaxed(base .. "meta", base .. "active") then
    addReadyMarker(base .. "marker")
  end
  redis.call("XADD", base .. "events", "*", "event", "waiting", "jobId", parentId, "prev", "waiting-children")
end

-- Deletes a job that its caller already took out of its state: its dedup key, its parent link, its keys.
-- Returns false when there was nothing to delete (a missing job).
local function destroyJob(base, jobId, hard)
  unlinkParent(base, jobId, hard)
  dropDedupKey(base, jobId)
  return deleteJobKeys(base .. jobId) > 0
end
