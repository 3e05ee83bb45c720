-- Deduplication, on the keys BullMQ 6.7.0 uses: "<base>de:<id>" names the job that owns the window (a TTL when
-- throttling), "<base>dn:<id>" holds the latest add that came while the owner was active (keepLastIfActive), to be
-- created when the owner finishes. Needs queueState, readyJob and removeJobKeys. The table k holds the queue's
-- keys: wait, active, prioritized, pc, delayed, marker, meta, events.

local function emitDeduplicated(k, maxLen, keptId, dedupId, droppedId)
  redis.call("XADD", k.events, "MAXLEN", "~", maxLen, "*", "event", "deduplicated", "jobId", keptId,
    "deduplicationId", dedupId, "deduplicatedJobId", droppedId)
end

-- Points the key at jobId: with keepLastIfActive it never expires (the owner's finish releases it), else for
-- the ttl when one is given.
local function setDedupKey(key, jobId, de)
  local ttl = tonumber(de["ttl"])
  if ttl and ttl > 0 and not de["keepLastIfActive"] then
    redis.call("SET", key, jobId, "PX", math.floor(ttl))
  else
    redis.call("SET", key, jobId)
  end
end

local function isInList(listKey, jobId)
  local pos = redis.pcall("LPOS", listKey, jobId)
  if type(pos) == "table" and pos.err then -- Redis before 6.0.6
    for _, id in ipairs(redis.call("LRANGE", listKey, 0, -1)) do
      if id == jobId then
        return true
      end
    end
    return false
  end
  return pos ~= false
end

-- A key without expiry whose owner no longer exists (lost in an outage) would block the id forever: it is
-- dropped and the new job opens a fresh window.
local function recoverStaleDedupKey(base, key, ownerId, dedupId, jobId, de)
  if ownerId and redis.call("PTTL", key) == -1 and redis.call("EXISTS", base .. ownerId) == 0 then
    redis.call("DEL", key, base .. "dn:" .. dedupId)
    setDedupKey(key, jobId, de)
    return true
  end
  return false
end

-- keepLastIfActive while the owner runs: the add is kept (the latest overwrites) for the owner's finish, and the
-- window stops expiring until then.
local function keepNextIfActive(base, k, maxLen, de, ownerId, dedupId, jobId, name, data, optsTable)
  if not de["keepLastIfActive"] or not ownerId or not isInList(k.active, ownerId) then
    return false
  end
  local nextKey = base .. "dn:" .. dedupId
  redis.call("DEL", nextKey)
  redis.call("HSET", nextKey, "name", name, "data", data, "opts", cjson.encode(optsTable), "jid", jobId)
  redis.call("PERSIST", base .. "de:" .. dedupId)
  emitDeduplicated(k, maxLen, ownerId, dedupId, jobId)
  return true
end

-- reschedule: the owner, still delayed, is moved to the new add's due time (its id and data stay).
local function rescheduleOwner(base, k, maxLen, ownerId, optsTable, timestamp)
  if not redis.call("ZSCORE", k.delayed, ownerId) then
    return
  end
  local delay = tonumber(optsTable["delay"]) or 0
  local runAt = timestamp + delay
  redis.call("HSET", base .. ownerId, "delay", delay)
  redis.call("ZADD", k.delayed, delayedScore(k.delayed, runAt), ownerId)
  redis.call("XADD", k.events, "MAXLEN", "~", maxLen, "*", "event", "delayed", "jobId", ownerId, "delay", runAt)
  addDelayMarker(k.marker, k.delayed)
end

-- Decides an add with deduplication options de for the new job jobId. Returns the id of the job that keeps the
-- window (nothing is to be stored), or nil when the new job is to be stored (the key then names it).
local function deduplicate(base, k, maxLen, de, jobId, name, data, optsTable, timestamp)
  local dedupId = tostring(de["id"])
  local key = base .. "de:" .. dedupId
  local ttl = tonumber(de["ttl"])
  if ttl and ttl <= 0 then
    ttl = nil
  end
  local owner
  if de["replace"] then
    owner = redis.call("GET", key)
    if not owner then
      setDedupKey(key, jobId, de)
      return nil
    end
    if redis.call("ZREM", k.delayed, owner) == 1 then
      -- the owner had not started: the new job takes its place
      removeJobKeys(base .. owner)
      redis.call("XADD", k.events, "MAXLEN", "~", maxLen, "*", "event", "removed", "jobId", owner,
        "prev", "delayed")
      emitDeduplicated(k, maxLen, jobId, dedupId, owner)
      redis.call("DEL", base .. "dn:" .. dedupId)
      if ttl and not de["extend"] and not de["keepLastIfActive"] then
        redis.call("SET", key, jobId, "KEEPTTL")
      else
        setDedupKey(key, jobId, de)
      end
      return nil
    end
    if recoverStaleDedupKey(base, key, owner, dedupId, jobId, de) then
      return nil
    end
    keepNextIfActive(base, k, maxLen, de, owner, dedupId, jobId, name, data, optsTable)
    return owner
  end
  if ttl and de["extend"] then
    owner = redis.call("GET", key)
    if not owner then
      setDedupKey(key, jobId, de)
      return nil
    end
    if recoverStaleDedupKey(base, key, owner, dedupId, jobId, de) then
      return nil
    end
    if keepNextIfActive(base, k, maxLen, de, owner, dedupId, jobId, name, data, optsTable) then
      return owner
    end
    setDedupKey(key, owner, de) -- a hit restarts the window
  else
    local taken
    if ttl and not de["keepLastIfActive"] then
      taken = redis.call("SET", key, jobId, "PX", math.floor(ttl), "NX")
    else
      taken = redis.call("SET", key, jobId, "NX")
    end
    if taken then
      return nil
    end
    owner = redis.call("GET", key)
    if recoverStaleDedupKey(base, key, owner, dedupId, jobId, de) then
      return nil
    end
    if keepNextIfActive(base, k, maxLen, de, owner, dedupId, jobId, name, data, optsTable) then
      return owner
    end
  end
  emitDeduplicated(k, maxLen, owner, dedupId, jobId)
  if de["reschedule"] then
    rescheduleOwner(base, k, maxLen, owner, optsTable, timestamp)
  end
  return owner
end

-- At an owner's final finish: the add kept for it (keepLastIfActive) becomes a job of its own, which then owns
-- the window. Fields a BullMQ producer stored for flows and schedulers (pk, pd, pdk, rjk) are carried over.
local function createDedupNext(base, k, meta, dedupId, now)
  local nextKey = base .. "dn:" .. dedupId
  local f = redis.call("HMGET", nextKey, "name", "data", "opts", "jid", "pk", "pd", "pdk", "rjk")
  if not f[1] then
    return
  end
  local counter = redis.call("INCR", base .. "id")
  local jobId = f[4] or tostring(counter)
  local jobKey = base .. jobId
  local opts = cjson.decode(f[3])
  local de = type(opts["de"]) == "table" and opts["de"] or {}
  setDedupKey(base .. "de:" .. dedupId, jobId, de)
  local delay = tonumber(opts["delay"]) or 0
  local priority = tonumber(opts["priority"]) or 0
  redis.call("HSET", jobKey, "name", f[1], "data", f[2], "opts", cjson.encode(opts), "timestamp", now,
    "delay", delay, "priority", priority, "deid", dedupId)
  if f[5] then
    redis.call("HSET", jobKey, "parentKey", f[5])
  end
  if f[6] then
    redis.call("HSET", jobKey, "parent", f[6])
  end
  if f[8] then
    redis.call("HSET", jobKey, "rjk", f[8])
  end
  redis.call("XADD", k.events, "MAXLEN", "~", meta.maxLen, "*", "event", "added", "jobId", jobId, "name", f[1])
  if delay > 0 then
    local runAt = now + delay
    redis.call("ZADD", k.delayed, delayedScore(k.delayed, runAt), jobId)
    redis.call("XADD", k.events, "MAXLEN", "~", meta.maxLen, "*", "event", "delayed", "jobId", jobId,
      "delay", runAt)
    addDelayMarker(k.marker, k.delayed)
  else
    pushReady(k.wait, k.prioritized, k.pc, jobId, priority, opts["lifo"] == true)
    redis.call("XADD", k.events, "MAXLEN", "~", meta.maxLen, "*", "event", "waiting", "jobId", jobId)
    if not pausedOrMaxed(meta, k.active) then
      addReadyMarker(k.marker)
    end
  end
  if f[7] then
    redis.call("SADD", f[7], jobKey)
  end
  redis.call("DEL", nextKey)
end
