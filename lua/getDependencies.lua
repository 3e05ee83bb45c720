-- getDependencies: one call of a paged read of a parent's children, from its :dependencies set (pending children)
-- or its :processed hash (completed children and their return values). Redis keeps no order in either, so pages
-- follow SSCAN/HSCAN order (COUNT 100 a scan), counting positions from 0 as the elements come; a caller that needs
-- more than one call goes on from the cursor and position returned. The children's own hashes are read with them.
-- This is the order and the pages of BullMQ 6.7.0's queue.getDependencies on the same Redis.
-- KEYS[1] the :dependencies set or the :processed hash
-- ARGV[1] the first position wanted
-- ARGV[2] the last position wanted, -1 for every one
-- ARGV[3] the scan cursor to go on from ("0" at first)
-- ARGV[4] the position of the element the cursor comes to
-- ARGV[5] how many scans this call may do
-- Returns {cursor, position, elements, total, children, isHash}: elements are keys, or key/value pairs for the
-- hash; children the fields of each element's job hash (empty when the job is gone). The key missing: nothing,
-- total 0. Another type than a set or a hash: an error.
local key = KEYS[1]
local kind = redis.call("TYPE", key)["ok"]
if kind == "none" then
  return {"0", 0, {}, 0, {}, 0}
end
if kind ~= "set" and kind ~= "hash" then
  return redis.error_reply("getDependencies: " .. key .. " is neither a set nor a hash")
end
local isHash = kind == "hash"
local total = isHash and redis.call("HLEN", key) or redis.call("SCARD", key)
local first = tonumber(ARGV[1])
local last = tonumber(ARGV[2])
if last == -1 then
  last = total
end
-- positions first .. last, so the page ends before last + 1
local stop = last + 1
local cursor = ARGV[3]
local position = tonumber(ARGV[4])
local scans = tonumber(ARGV[5])
local width = isHash and 2 or 1
local elements = {}
local children = {}
local flag = isHash and 1 or 0

local done = 0
while done < scans do
  local reply = redis.call(isHash and "HSCAN" or "SSCAN", key, cursor, "COUNT", 100)
  cursor = reply[1]
  local batch = reply[2]
  if #batch == 0 then
    break
  end
  local batchEnd = position + #batch / width
  if batchEnd < first then
    -- wholly before the page
    position = batchEnd
  elseif position > stop then
    break
  else
    for i = 1, #batch, width do
      if position >= stop then
        return {cursor, position, elements, total, children, flag}
      end
      if position >= first then
        elements[#elements + 1] = batch[i]
        if isHash then
          elements[#elements + 1] = batch[i + 1]
        end
        children[#children + 1] = redis.call("HGETALL", batch[i])
      end
      position = position + 1
    end
  end
  done = done + 1
  if cursor == "0" then
    break
  end
end
return {cursor, position, elements, total, children, flag}
