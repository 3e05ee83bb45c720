-- The deadline guard, put at the top of every script by LuaScript. ScriptRunner appends the call's deadline (Redis
-- ms) as the last ARGV; it is taken off here, so the script sees its own arguments only. A script that starts after
-- its deadline writes nothing and errors: its caller has been told it failed, so it must never take effect later.
local bull4jDeadline = tonumber(table.remove(ARGV))
if bull4jDeadline and bull4jDeadline > 0 then
  local bull4jTime = redis.call("TIME")
  if tonumber(bull4jTime[1]) * 1000 + math.floor(tonumber(bull4jTime[2]) / 1000) > bull4jDeadline then
    return redis.error_reply("BULL4J_LATE the command reached Redis after its deadline and was not applied")
  end
end
