-- takeLock: locks a job for a token, only if no lock is live (SET NX PX).
-- KEYS[1] the job's lock key
-- ARGV[1] token
-- ARGV[2] lock duration (ms)
-- Returns 1 when taken, 0 when another lock is live.
--@include takeLock

if takeLock(KEYS[1], ARGV[1], ARGV[2]) then
  return 1
end
return 0
