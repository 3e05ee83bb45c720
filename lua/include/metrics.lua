-- Per-minute counts of finished jobs, in BullMQ 6.7.0's layout (metrics:<type> and metrics:<type>:data), for
-- moveToFinished when the worker asks for metrics. The hash holds "count" (every finish so far), "prevTS" (when the
-- last minute was closed, ms) and "prevCount" (count at that time). A finish in a later minute than prevTS closes
-- prevTS's minute: its count (finishes since, this one excluded) goes to the head of the data list, followed by a
-- zero for each minute skipped since, all capped at maxPoints; the list keeps the maxPoints newest points.
local function countFinishedInMinute(metricsKey, maxPoints, nowArg)
  local before = redis.call("HINCRBY", metricsKey, "count", 1) - 1
  local prevTS = redis.call("HGET", metricsKey, "prevTS")
  if not prevTS then
    redis.call("HSET", metricsKey, "prevTS", nowArg, "prevCount", 0)
    return
  end
  local minutes = math.floor(tonumber(nowArg) / 60000) - math.floor(tonumber(prevTS) / 60000)
  if minutes > maxPoints then
    minutes = maxPoints
  end
  if minutes < 1 then
    return
  end
  local dataKey = metricsKey .. ":data"
  local points = {before - tonumber(redis.call("HGET", metricsKey, "prevCount") or 0)}
  for i = 2, minutes do
    points[i] = 0
  end
  -- pushed in order (the closed minute first, the zeros after it), in slices that stay under Lua's unpack limit
  for first = 1, #points, 5000 do
    redis.call("LPUSH", dataKey, unpack(points, first, math.min(first + 4999, #points)))
  end
  redis.call("LTRIM", dataKey, 0, maxPoints - 1)
  redis.call("HSET", metricsKey, "prevCount", before, "prevTS", nowArg)
end
