-- addJob: stores new jobs, each in wait, prioritized or delayed. A bulk add sends many jobs in one call.
-- KEYS[1] meta
-- KEYS[2] id (the job id counter)
-- KEYS[3] wait
-- KEYS[4] prioritized
-- KEYS[5] pc (priority counter)
-- KEYS[6] delayed
-- KEYS[7] marker
-- KEYS[8] events
-- KEYS[9] active
-- ARGV[1] key base "prefix:queue:"
-- ARGV[2..] 8 values per job:
--   custom job id or "", name, timestamp (ms), data (JSON), opts (JSON), delay (ms), priority, "1" for LIFO
--   (opts is stored as Redis's cjson writes it, as BullMQ's add stores it: same key order for the same keys given
--   in the same order, "/" escaped, numbers with 14 significant digits)
-- Returns {jobId, created, jobId, created, ...}: created is 0 when a job with that custom id already existed, or
-- when deduplication kept another job (its id is returned; see deduplicate.lua, keys built from ARGV[1]).
--@include queueState
--@include readyJob
--@include removeJobKeys
--@lazy deduplicate

local base = ARGV[1]
-- checked before the first write: a custom id whose key holds another type would be taken for a duplicate
for i = 2, #ARGV, 8 do
  if ARGV[i] ~= "" then
    local keyType = redis.call("TYPE", base .. ARGV[i])["ok"]
    if keyType ~= "none" and keyType ~= "hash" then
      return redis.error_reply("ERR jobId " .. ARGV[i] .. ": its key holds a " .. keyType
        .. ", not a job hash; nothing was added")
    end
  end
end

local meta = readMeta(KEYS[1])
local maxLen = meta.maxLen
local ready = false
local delayedAdded = false
local lastRunAt, lastScore = nil, nil
local result = {}

-- Jobs of one call often share a due time: the next score in that millisecond follows the one just given, with
-- no lookup.
local function nextDelayedScore(runAt)
  if runAt == lastRunAt then
    lastScore = math.min(lastScore + 1, runAt * 4096 + 4095)
  else
    lastScore = delayedScore(KEYS[6], runAt)
  end
  lastRunAt = runAt
  return lastScore
end

local function addOne(customId, name, timestamp, data, opts, delay, priority, lifo)
  local counter = redis.call("INCR", KEYS[2])
  local jobId = customId
  if jobId == "" then
    jobId = string.format("%d", counter)
  elseif redis.call("EXISTS", base .. jobId) == 1 then
    redis.call("XADD", KEYS[8], "MAXLEN", "~", maxLen, "*", "event", "duplicated", "jobId", jobId)
    return jobId, 0
  end
  local optsTable = cjson.decode(opts)
  -- deduplication (deduplicate.lua): another job may own the window
  local de = optsTable["de"]
  if type(de) == "table" and type(de["id"]) == "string" then
    local dedupKeys = {wait = KEYS[3], active = KEYS[9], prioritized = KEYS[4], pc = KEYS[5], delayed = KEYS[6],
      marker = KEYS[7], meta = KEYS[1], events = KEYS[8]}
    local owner = lib_deduplicate().deduplicate(base, dedupKeys, maxLen, de, jobId, name, data, optsTable,
      tonumber(timestamp))
    if owner then
      return owner, 0
    end
  end
  local jobKey = base .. jobId
  redis.call("HSET", jobKey, "name", name, "data", data, "opts", cjson.encode(optsTable),
    "timestamp", timestamp, "delay", delay, "priority", priority)
  if type(de) == "table" and type(de["id"]) == "string" then
    redis.call("HSET", jobKey, "deid", de["id"])
  end
  redis.call("XADD", KEYS[8], "*", "event", "added", "jobId", jobId, "name", name)
  local delayMs = tonumber(delay)
  if delayMs > 0 then
    local runAt = tonumber(timestamp) + delayMs
    redis.call("ZADD", KEYS[6], numText(nextDelayedScore(runAt)), jobId)
    redis.call("XADD", KEYS[8], "MAXLEN", "~", maxLen, "*", "event", "delayed", "jobId", jobId, "delay",
      numText(runAt))
    delayedAdded = true
  else
    pushReady(KEYS[3], KEYS[4], KEYS[5], jobId, priority, lifo == "1")
    redis.call("XADD", KEYS[8], "MAXLEN", "~", maxLen, "*", "event", "waiting", "jobId", jobId)
    ready = true
  end
  return jobId, 1
end

for i = 2, #ARGV, 8 do
  local jobId, created = addOne(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5],
    ARGV[i + 6], ARGV[i + 7])
  result[#result + 1] = jobId
  result[#result + 1] = created
end
if ready and not pausedOrMaxed(meta, KEYS[9]) then
  addReadyMarker(KEYS[7])
end
-- one delay marker per call, for the earliest delayed job, whatever this call added
if delayedAdded then
  addDelayMarker(KEYS[7], KEYS[6])
end
return result
