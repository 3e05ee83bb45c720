-- Job scheduler helpers: the next "every" slot, storing the definition, and enqueueing one iteration.
-- Needs queueState and readyJob.

-- The next run of an "every" scheduler, and the offset to keep: the first run is the start date (when still
-- ahead) or now (or the next slot that carries the offset); later runs are prev + every, re-aligned to the next
-- slot after now when runs were missed. The offset recorded is that run's distance from its slot.
local function everyNextMillis(prevMillis, every, now, offset, startDate)
  offset = tonumber(offset)
  local nextMillis
  if not prevMillis then
    if startDate then
      nextMillis = math.max(tonumber(startDate), now)
    elseif offset and offset > 0 then
      nextMillis = math.floor(now / every) * every + offset
      if nextMillis <= now then
        nextMillis = nextMillis + every
      end
    else
      nextMillis = now
    end
  else
    nextMillis = prevMillis + every
    if nextMillis < now then
      local slot = math.floor(now / every) * every + (offset or 0)
      nextMillis = slot <= now and slot + every or slot
    end
  end
  if not offset or offset == 0 then
    offset = nextMillis - math.floor(nextMillis / every) * every
  end
  return math.floor(nextMillis), math.floor(offset)
end

-- Rewrites the scheduler hash from scratch (keeping its iteration counter and, when none is given, its offset).
-- fields: name, tz, limit, pattern, startDate, endDate, every, offset ("" for none), in that order.
local function storeScheduler(repeatKey, schedulerId, nextMillis, f, templateData, templateOpts)
  local schedulerKey = repeatKey .. ":" .. schedulerId
  redis.call("ZADD", repeatKey, nextMillis, schedulerId)
  local values = {"name", f.name}
  for _, field in ipairs({"tz", "limit", "pattern", "startDate", "endDate", "every"}) do
    if f[field] ~= "" then
      values[#values + 1] = field
      values[#values + 1] = f[field]
    end
  end
  local offset = f.offset
  if offset == "" then
    offset = redis.call("HGET", schedulerKey, "offset") or ""
  end
  if offset ~= "" then
    values[#values + 1] = "offset"
    values[#values + 1] = offset
  end
  if templateOpts ~= "{}" then
    values[#values + 1] = "opts"
    values[#values + 1] = templateOpts
  end
  if templateData ~= "{}" then
    values[#values + 1] = "data"
    values[#values + 1] = templateData
  end
  values[#values + 1] = "ic"
  values[#values + 1] = redis.call("HGET", schedulerKey, "ic") or 1
  redis.call("DEL", schedulerKey)
  redis.call("HSET", schedulerKey, unpack(values))
end

-- Stores one iteration job (hash with rjk) and puts it in delayed, prioritized or wait, with BullMQ's events.
-- opts is a decoded table; its delay and jobId are set here.
local function addIteration(base, jobId, name, data, opts, now, delay, schedulerId, maxLen)
  opts["delay"] = delay
  opts["jobId"] = jobId
  local priority = tonumber(opts["priority"]) or 0
  local jobKey = base .. jobId
  redis.call("HSET", jobKey, "name", name, "data", data, "opts", cjson.encode(opts), "timestamp", now,
    "delay", delay, "priority", priority, "rjk", schedulerId)
  redis.call("XADD", base .. "events", "*", "event", "added", "jobId", jobId, "name", name)
  if delay > 0 then
    local runAt = now + delay
    redis.call("ZADD", base .. "delayed", delayedScore(base .. "delayed", runAt), jobId)
    redis.call("XADD", base .. "events", "MAXLEN", "~", maxLen, "*", "event", "delayed", "jobId", jobId,
      "delay", runAt)
    addDelayMarker(base .. "marker", base .. "delayed")
  else
    pushReady(base .. "wait", base .. "prioritized", base .. "pc", jobId, priority, opts["lifo"] == true)
    if not isPausedOrMaxed(base .. "meta", base .. "active") then
      addReadyMarker(base .. "marker")
    end
    redis.call("XADD", base .. "events", "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", jobId)
  end
end
