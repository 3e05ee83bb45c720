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
-- meta (from readMeta) may be given when the caller has read it: the pause check then needs no read of its own.
-- A fetch also gives what it has at hand (each optional): k, the queue's keys (fetchJob.lua); nowText, numText(now);
-- runAtText, numText(now + delay) when delay > 0. Returns the earliest delayed job's due time when it added to
-- delayed (addDelayMarker), else nil.
local function addIteration(base, jobId, name, data, opts, now, delay, schedulerId, maxLen, meta, k, nowText,
    runAtText)
  opts["delay"] = delay
  opts["jobId"] = jobId
  local priority = tonumber(opts["priority"]) or 0
  local jobKey = base .. jobId
  local eventsKey = k and k.events or base .. "events"
  redis.call("HSET", jobKey, "name", name, "data", data, "opts", cjson.encode(opts), "timestamp",
    nowText or numText(now), "delay", delay == 0 and "0" or numText(delay), "priority",
    priority == 0 and "0" or numText(priority), "rjk", schedulerId)
  -- a template with deduplication: the run names its id, as any job added with it (no window is taken: BullMQ's
  -- runs store the field only)
  local de = opts["de"]
  if type(de) == "table" and de["id"] ~= nil and de["id"] ~= cjson.null then
    redis.call("HSET", jobKey, "deid", de["id"])
  end
  redis.call("XADD", eventsKey, "*", "event", "added", "jobId", jobId, "name", name)
  if delay > 0 then
    local runAt = now + delay
    local delayedKey = k and k.delayed or base .. "delayed"
    local score, scoreText = delayedScore(delayedKey, runAt)
    redis.call("ZADD", delayedKey, scoreText or numText(score), jobId)
    redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "delayed", "jobId", jobId,
      "delay", runAtText or numText(runAt))
    return addDelayMarker(k and k.marker or base .. "marker", delayedKey)
  else
    pushReady(base .. "wait", base .. "prioritized", base .. "pc", jobId, priority, opts["lifo"] == true)
    local held
    if meta then
      held = pausedOrMaxed(meta, base .. "active")
    else
      held = isPausedOrMaxed(base .. "meta", base .. "active")
    end
    if not held then
      addReadyMarker(base .. "marker")
    end
    redis.call("XADD", eventsKey, "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", jobId)
  end
end

-- A whole number stored in a job's repeat options, or def when absent; nil for anything else (a string, a
-- boolean): the caller then leaves the job to the worker's own path.
local function repeatNumber(v, def)
  if v == nil or v == cjson.null then
    return def
  end
  if type(v) ~= "number" then
    return nil
  end
  return v >= 0 and math.floor(v) or -math.floor(-v)
end

-- For a fetch that took a run of an "every" job scheduler: adds the scheduler's next run in the same call, as the
-- worker's separate updateJobScheduler call would (same checks, same writes, same events). Returns false when it
-- did nothing because the case is one the worker handles itself (a cron scheduler, no scheduler hash with "ic", a
-- legacy key, options it does not read here); true when it is settled (a next run added, or none is due), and then
-- also, when the run went to delayed, the earliest delayed job's due time (addIteration). k is the fetch's table of
-- the queue's keys, nowText now's digits (fetchJob.lua).
local function nextEveryRunOnFetch(base, producerId, schedulerId, storedOpts, now, meta, k, nowText)
  local repeatKey = base .. "repeat"
  local schedulerKey = repeatKey .. ":" .. schedulerId
  -- reads that fail (a key of another type) leave the job to the worker, which reports the error: the fetch itself
  -- must not fail half-way
  local attrs = redis.pcall("HMGET", schedulerKey, "name", "data", "every", "startDate", "offset", "ic")
  if type(attrs) ~= "table" or attrs.err or not attrs[6] or not string.match(attrs[6], "^%-?%d+$") then
    return false
  end
  local ok, opts = pcall(cjson.decode, storedOpts or "{}")
  if not ok or type(opts) ~= "table" then
    return false
  end
  local r = opts["repeat"]
  if r == nil or r == cjson.null then
    r = {}
  elseif type(r) ~= "table" then
    return false
  end
  if r["every"] == nil or r["every"] == cjson.null then
    return false -- a cron scheduler: its next run is computed by the worker
  end
  local count = repeatNumber(r["count"], 0)
  local limit = repeatNumber(r["limit"], false)
  local endDate = repeatNumber(r["endDate"], false)
  local startDate = repeatNumber(r["startDate"], false)
  local offset = repeatNumber(r["offset"], 0)
  if count == nil or limit == nil or endDate == nil or startDate == nil or offset == nil then
    return false
  end
  count = count + 1
  if limit and count > limit then
    return true
  end
  if endDate and now > endDate then
    return true
  end
  -- the next run's options, as the worker builds them from the fetched job's
  if opts["attempts"] == nil then
    opts["attempts"] = 0
  end
  r["immediately"] = nil
  opts["timestamp"] = now
  opts["prevMillis"] = nil
  opts["repeatJobKey"] = schedulerId
  r["offset"] = offset ~= 0 and offset or nil
  r["count"] = count
  r["startDate"] = startDate or nil
  r["endDate"] = endDate or nil
  opts["repeat"] = r

  local prevMillis = redis.pcall("ZSCORE", repeatKey, schedulerId)
  if type(prevMillis) == "table" then
    return false
  end
  prevMillis = tonumber(prevMillis)
  if not prevMillis then
    return true
  end
  local every = tonumber(attrs[3]) or tonumber(r["every"])
  if not every then
    return true
  end
  local nextMillis = everyNextMillis(prevMillis, every, now, attrs[5] or r["offset"] or 0, attrs[4] or nil)
  if producerId ~= "repeat:" .. schedulerId .. ":" .. numText(prevMillis) then
    return true
  end
  local nextText = numText(nextMillis)
  local jobId = "repeat:" .. schedulerId .. ":" .. nextText
  if redis.call("EXISTS", base .. jobId) == 1 then
    redis.call("XADD", k and k.events or base .. "events", "MAXLEN", "~", meta.maxLen, "*", "event", "duplicated",
      "jobId", jobId)
    return true
  end
  -- the one write that may fail (a counter that is not a number) goes first, before anything has changed
  if type(redis.pcall("INCR", base .. "id")) == "table" then
    return false
  end
  redis.call("ZADD", repeatKey, nextText, schedulerId)
  redis.call("HINCRBY", schedulerKey, "ic", "1")
  -- when the run is delayed, it runs at nextMillis (now + (nextMillis - now)): its text is nextText
  return true, addIteration(base, jobId, attrs[1], attrs[2] or "{}", opts, now, math.max(0, nextMillis - now),
    schedulerId, meta.maxLen, meta, k, nowText, nextText)
end
