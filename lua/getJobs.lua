-- getJobs: for each requested state, the ids in a range and their hashes, in one call (read only).
-- Lists (wait, paused, active) run newest first, sorted sets by descending score; asc reverses both. Ids whose
-- hash is gone (removed meanwhile, or a legacy "0:" marker) are skipped, and a bounded range is refilled from
-- the ids after it, at most 5 times, so that a page keeps its size when it can.
-- KEYS[1] key base "P:Q:" (state keys and job hashes are built from it)
-- ARGV[1] start
-- ARGV[2] end
-- ARGV[3] "1" for ascending
-- ARGV[4..] state key names: wait, paused, active, prioritized, delayed, completed, failed, waiting-children
-- Returns one array per state: {id, {field, value, ...}, id, {...}, ...}.

local base = KEYS[1]
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local asc = ARGV[3] == "1"
local MAX_REFILLS = 5

local function isList(state)
  return state == "wait" or state == "paused" or state == "active"
end

-- Ids at positions from..to of the state's order.
local function slice(key, state, from, to)
  if not isList(state) then
    if asc then
      return redis.call("ZRANGE", key, from, to)
    end
    return redis.call("ZREVRANGE", key, from, to)
  end
  if not asc then
    return redis.call("LRANGE", key, from, to)
  end
  -- ascending = from the tail: position p is index -(p+1); a window past the head would clamp to it
  if from >= 0 and to >= 0 and from >= redis.call("LLEN", key) then
    return {}
  end
  local head = to == -1 and 0 or -(to + 1)
  local tail = from == -1 and 0 or -(from + 1)
  local ids = redis.call("LRANGE", key, head, tail)
  local reversed = {}
  for i = #ids, 1, -1 do
    reversed[#reversed + 1] = ids[i]
  end
  return reversed
end

local function collect(state)
  local key = base .. state
  local out = {}
  local found = 0
  local function take(id)
    -- a key of another type is skipped like a missing job, rather than failing the whole listing
    local fields = {}
    if redis.call("TYPE", base .. id)["ok"] == "hash" then
      fields = redis.call("HGETALL", base .. id)
    end
    if #fields > 0 then
      out[#out + 1] = id
      out[#out + 1] = fields
      found = found + 1
    end
  end
  if first < 0 or last < 0 then
    for _, id in ipairs(slice(key, state, first, last)) do
      take(id)
    end
    return out
  end
  local wanted = last - first + 1
  local cursor = first
  for _ = 1, MAX_REFILLS do
    if found >= wanted then
      break
    end
    local ids = slice(key, state, cursor, cursor + (wanted - found) - 1)
    if #ids == 0 then
      break
    end
    for _, id in ipairs(ids) do
      take(id)
    end
    cursor = cursor + #ids
  end
  return out
end

local results = {}
for i = 4, #ARGV do
  results[#results + 1] = collect(ARGV[i])
end
return results
