-- addFlow: stores the jobs of one or more flows (trees of parents and children, possibly over several queues) in one
-- call, so that a flow is added whole or not at all. Nodes come parents first. A node with children waits in
-- waiting-children; a node without goes to wait, prioritized or delayed. Each child is linked to its parent (fields
-- parentKey and parent, and its key in the parent's dependencies set). Keys are built from each node's queue base;
-- on Redis Cluster all queues of the call must share one hash tag (checked by the caller).
-- KEYS[1] meta of the first node's queue (it routes the call)
-- ARGV[1] now (ms), when parents whose children all exist and completed are released
-- ARGV[2..] 12 values per node:
--   queue base "P:Q:", job id, name, timestamp (ms), data (JSON), opts (JSON, re-encoded by cjson as BullMQ's are),
--   delay (ms), priority, "1" for LIFO, parent key "P:Q:id" or "", parent JSON {id, queueKey[, flag]} or "",
--   "1" when the node has children
-- A node without children may be deduplicated (deduplicate.lua; keys built from its base): another job owns the
-- window, so the node is not stored and its parent does not wait for it.
-- Returns {jobId, created, ...} per node (created 0: a job with that id existed and was linked to its new parent,
-- or deduplication kept another job, whose id is returned),
-- or {-5, n} when node n's parent does not exist, {-7, n} when node n exists with another live parent, {-21, n}
-- when node n's key holds another type than a hash; nothing is written then.
--@include queueState
--@include readyJob
--@include removeJobKeys
--@include deduplicate
--@include flowParent

local now = tonumber(ARGV[1])
local N = 12

-- every refusal is found before the first write; the type read here also tells which jobs exist already
local planned = {}
local existed = {}
for i = 2, #ARGV, N do
  local n = (i - 2) / N + 1
  local jobKey = ARGV[i] .. ARGV[i + 1]
  local parentKey = ARGV[i + 9]
  local keyType = redis.call("TYPE", jobKey)["ok"]
  if keyType ~= "none" and keyType ~= "hash" then
    return {-21, n}
  end
  if parentKey ~= "" and not planned[parentKey] and redis.call("EXISTS", parentKey) == 0 then
    return {-5, n}
  end
  if keyType == "hash" and parentKey ~= "" then
    local existing = redis.call("HGET", jobKey, "parentKey")
    if existing and existing ~= parentKey and redis.call("EXISTS", existing) == 1 then
      return {-7, n}
    end
  end
  planned[jobKey] = true
  existed[jobKey] = existed[jobKey] or keyType == "hash"
end

local metas = {}
local function queueMeta(base)
  local m = metas[base]
  if not m then
    m = readMeta(base .. "meta")
    metas[base] = m
  end
  return m
end

local result = {}
local parents = {}
local parentOrder = {}
-- parents given a pending child by this call: they cannot be done when it ends
local waiting = {}
-- a job stored by this call exists for the nodes after it; a deduplication that replaced another job may have
-- removed one, after which existence is read again
local deduplicated = false
for i = 2, #ARGV, N do
  local base, jobId, name, timestamp = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local data, opts, delay, priority = ARGV[i + 4], ARGV[i + 5], tonumber(ARGV[i + 6]), ARGV[i + 7]
  local lifo, parentKey, parentJson, hasChildren = ARGV[i + 8] == "1", ARGV[i + 9], ARGV[i + 10], ARGV[i + 11] == "1"
  local jobKey = base .. jobId
  local meta = queueMeta(base)
  local events = base .. "events"
  redis.call("INCR", base .. "id")
  local p = false
  if parentKey ~= "" then
    parentJson = cjson.encode(cjson.decode(parentJson))
    p = parentOf(parentKey, parentJson)
    if not parents[parentKey] then
      parents[parentKey] = p
      parentOrder[#parentOrder + 1] = parentKey
    end
  end
  local exists
  if deduplicated then
    exists = redis.call("EXISTS", jobKey) == 1
  else
    exists = existed[jobKey]
  end
  if exists then
    -- an existing job joins its new parent: as done (its return value) when it completed, else as pending
    if p then
      if redis.call("ZSCORE", base .. "completed", jobId) then
        redis.call("HSET", parentKey .. ":processed", jobKey, redis.call("HGET", jobKey, "returnvalue"))
      else
        redis.call("SADD", parentKey .. ":dependencies", jobKey)
        waiting[parentKey] = true
      end
      redis.call("HSET", jobKey, "parentKey", parentKey, "parent", parentJson)
    end
    redis.call("XADD", events, "MAXLEN", "~", meta.maxLen, "*", "event", "duplicated", "jobId", jobId)
    result[#result + 1] = jobId
    result[#result + 1] = 0
  else
    local optsTable = cjson.decode(opts)
    local de = optsTable["de"]
    local dedupId = not hasChildren and type(de) == "table" and type(de["id"]) == "string" and de["id"]
    local owner = false
    if dedupId then
      deduplicated = true
      owner = deduplicate(base, {wait = base .. "wait", active = base .. "active", prioritized = base .. "prioritized",
        pc = base .. "pc", delayed = base .. "delayed", marker = base .. "marker", meta = base .. "meta",
        events = events}, meta.maxLen, de, jobId, name, data, optsTable, tonumber(timestamp))
    end
    if owner then
      result[#result + 1] = owner
      result[#result + 1] = 0
    else
      -- one write of every field, in the order the fields are listed (that of BullMQ's adds)
      local fields = {"name", name, "data", data, "opts", cjson.encode(optsTable), "timestamp", timestamp,
        "delay", delay, "priority", priority}
      if p then
        fields[#fields + 1] = "parentKey"
        fields[#fields + 1] = parentKey
        fields[#fields + 1] = "parent"
        fields[#fields + 1] = parentJson
      end
      if dedupId then
        fields[#fields + 1] = "deid"
        fields[#fields + 1] = dedupId
      end
      redis.call("HSET", jobKey, unpack(fields))
      existed[jobKey] = true
      redis.call("XADD", events, "*", "event", "added", "jobId", jobId, "name", name)
      if hasChildren then
        redis.call("ZADD", base .. "waiting-children", timestamp, jobId)
        redis.call("XADD", events, "MAXLEN", "~", meta.maxLen, "*", "event", "waiting-children", "jobId", jobId)
      elseif delay > 0 then
        local runAt = tonumber(timestamp) + delay
        redis.call("ZADD", base .. "delayed", delayedScore(base .. "delayed", runAt), jobId)
        redis.call("XADD", events, "MAXLEN", "~", meta.maxLen, "*", "event", "delayed", "jobId", jobId, "delay", runAt)
        addDelayMarker(base .. "marker", base .. "delayed")
      else
        pushReady(base .. "wait", base .. "prioritized", base .. "pc", jobId, priority, lifo)
        if not pausedOrMaxed(meta, base .. "active") then
          addReadyMarker(base .. "marker")
        end
        redis.call("XADD", events, "MAXLEN", "~", meta.maxLen, "*", "event", "waiting", "jobId", jobId)
      end
      if p then
        redis.call("SADD", parentKey .. ":dependencies", jobKey)
        waiting[parentKey] = true
      end
      result[#result + 1] = jobId
      result[#result + 1] = 1
    end
  end
end

-- a parent whose children all existed and had completed has nothing to wait for (one given a pending child
-- here has, and is not read)
for _, parentKey in ipairs(parentOrder) do
  if not waiting[parentKey] and redis.call("EXISTS", parentKey) == 1 then
    releaseParentIfDone(parents[parentKey], now)
  end
end
return result
