-- Flows: what a child's end does to its parent, which may live in another queue (same hash tag on Cluster).
-- A parent is named by its queue key "P:Q" (BullMQ's parent.queueKey), its id and its hash key "P:Q:id"; every key
-- below is built from those. Needs queueState and readyJob.

-- The parent fields a child carries: its key, and the decoded "parent" JSON (or false). A job stored by an older
-- producer may carry parentKey alone: the queue key and id are then read from it (P:Q:id, P and Q without ':').
local function parentOf(parentKey, parentJson)
  if not parentKey and not parentJson then
    return false
  end
  local p = {}
  if parentJson then
    local ok, decoded = pcall(cjson.decode, parentJson)
    if ok and type(decoded) == "table" and decoded["id"] and decoded["queueKey"] then
      p = decoded
    end
  end
  if not p["id"] then
    if not parentKey then
      return false
    end
    local first = string.find(parentKey, ":", 1, true)
    local second = first and string.find(parentKey, ":", first + 1, true)
    if not second then
      return false
    end
    p = {id = string.sub(parentKey, second + 1), queueKey = string.sub(parentKey, 1, second - 1)}
  end
  p.key = parentKey or (p["queueKey"] .. ":" .. p["id"])
  return p
end

-- Moves a parent that has just left waiting-children (or delayed) to where workers take it: delayed when it has a
-- delay (due at now + delay, at the start of that millisecond's scores), else prioritized or the head of wait.
local function releaseParent(queueKey, parentKey, parentId, now)
  local qbase = queueKey .. ":"
  local f = redis.call("HMGET", parentKey, "priority", "delay")
  local priority = tonumber(f[1]) or 0
  local delay = tonumber(f[2]) or 0
  local events = qbase .. "events"
  -- one read of the parent queue's meta: its stream cap, and whether it is paused or maxed
  local meta = readMeta(qbase .. "meta")
  local maxLen = meta.maxLen
  if delay > 0 then
    local runAt = tonumber(now) + delay
    redis.call("ZADD", qbase .. "delayed", runAt * 4096, parentId)
    redis.call("XADD", events, "MAXLEN", "~", maxLen, "*", "event", "delayed", "jobId", parentId, "delay", runAt)
    addDelayMarker(qbase .. "marker", qbase .. "delayed")
    return
  end
  if priority > 0 then
    pushReady(qbase .. "wait", qbase .. "prioritized", qbase .. "pc", parentId, priority, false)
  else
    redis.call("RPUSH", qbase .. "wait", parentId)
  end
  if not pausedOrMaxed(meta, qbase .. "active") then
    addReadyMarker(qbase .. "marker")
  end
  redis.call("XADD", events, "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", parentId,
    "prev", "waiting-children")
end

-- Releases the parent if it still exists and still waits for its children.
local function releaseParentIfWaiting(p, now)
  if redis.call("ZREM", p["queueKey"] .. ":waiting-children", p["id"]) == 1 then
    releaseParent(p["queueKey"], p.key, p["id"], now)
  end
end

-- Releases the parent once no child is pending.
local function releaseParentIfDone(p, now)
  if redis.call("SCARD", p.key .. ":dependencies") == 0 then
    releaseParentIfWaiting(p, now)
  end
end

-- A child completed: it is no longer pending and its return value goes to the parent's processed hash. True when
-- it was the last pending one.
local function recordCompletion(parentKey, childKey, returnValue)
  local deps = parentKey .. ":dependencies"
  if redis.call("SREM", deps, childKey) == 1 then
    redis.call("HSET", parentKey .. ":processed", childKey, returnValue)
    return redis.call("SCARD", deps) == 0
  end
  return false
end

-- A child completed: the parent is released when it was the last one.
local function childCompleted(p, childKey, returnValue, now)
  if recordCompletion(p.key, childKey, returnValue) then
    releaseParentIfWaiting(p, now)
  end
end

-- The same for a child that carries its parent's key: the parent JSON is decoded only when it is released.
local function childCompletedByKey(parentKey, parentJson, childKey, returnValue, now)
  if recordCompletion(parentKey, childKey, returnValue) then
    local p = parentOf(parentKey, parentJson)
    if p then
      releaseParentIfWaiting(p, now)
    end
  end
end

-- A child failed for good; its parent JSON's flag decides (no flag: the parent keeps waiting for a retry).
local function childFailed(p, childKey, reason, now)
  local deps = p.key .. ":dependencies"
  if p["fpof"] then
    if redis.call("SREM", deps, childKey) == 0 then
      return
    end
    redis.call("ZADD", p.key .. ":unsuccessful", now, childKey)
    if redis.call("EXISTS", p.key) == 0 then
      return
    end
    local failure = "child " .. childKey .. " failed"
    local qk, id = p["queueKey"], p["id"]
    local from = false
    if redis.call("ZREM", qk .. ":waiting-children", id) == 1 then
      from = true
    elseif redis.call("ZREM", qk .. ":delayed", id) == 1 then
      from = true
      redis.call("HSET", p.key, "delay", 0)
    end
    if from then
      -- the next worker to take it fails it with this reason, which cascades the same way to its own parent
      redis.call("HSET", p.key, "defa", failure)
      releaseParent(qk, p.key, id, now)
    elseif not redis.call("ZSCORE", qk .. ":failed", id) then
      redis.call("HSET", p.key, "defa", failure)
    end
  elseif p["cpof"] then
    if redis.call("SREM", deps, childKey) == 1 then
      redis.call("HSET", p.key .. ":failed", childKey, reason)
      if redis.call("EXISTS", p.key) == 1 then
        releaseParentIfWaiting(p, now)
      end
    end
  elseif p["idof"] or p["rdof"] then
    if redis.call("SREM", deps, childKey) == 1 then
      if redis.call("EXISTS", p.key) == 1 then
        releaseParentIfDone(p, now)
      end
      if p["idof"] then
        redis.call("HSET", p.key .. ":failed", childKey, reason)
      end
    end
  end
end

-- A child removed when it finished (removeOnComplete/removeOnFail of 0) must not hold its parent back: when it was
-- the last one, the parent goes to the head of wait, whatever its delay or priority (as BullMQ does here).
local function childGone(p, childKey)
  local deps = p.key .. ":dependencies"
  if redis.call("SREM", deps, childKey) == 0 or redis.call("SCARD", deps) > 0 then
    return
  end
  local qbase = p["queueKey"] .. ":"
  if redis.call("ZREM", qbase .. "waiting-children", p["id"]) == 0 then
    return
  end
  redis.call("RPUSH", qbase .. "wait", p["id"])
  local meta = readMeta(qbase .. "meta")
  if not pausedOrMaxed(meta, qbase .. "active") then
    addReadyMarker(qbase .. "marker")
  end
  redis.call("XADD", qbase .. "events", "MAXLEN", "~", meta.maxLen, "*", "event", "waiting",
    "jobId", p["id"], "prev", "waiting-children")
end

-- A finished job that retention (removeOnComplete / removeOnFail by count or age) deletes: when its parent still
-- counts it as pending (a child that failed without a failure option), the parent stops waiting for it and, when
-- it was the last one, goes to wait as in childGone. BullMQ's trimming does the same; a parent that is gone is
-- left alone.
local function unlinkTrimmed(jobKey)
  local f = redis.call("HMGET", jobKey, "parentKey", "parent")
  if f[1] and redis.call("EXISTS", f[1]) == 1 then
    local p = parentOf(f[1], f[2])
    if p then
      childGone(p, jobKey)
    end
  end
end
