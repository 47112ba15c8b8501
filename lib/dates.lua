-- Dates as the apps store them ("YYYY-MM-DD", proleptic Gregorian) and times of day as
-- minutes since midnight. Day numbers count days since 1970-01-01 (`clock.days_from_civil`).
local M = {}

M.MONTHS = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" }
M.MONTH_NAMES = { "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December" }
M.DAYS = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" }
M.DAY_NAMES = { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday" }

-- Year, month and day of "YYYY-MM-DD"; nil for anything else.
function M.parse(text)
  if type(text) ~= "string" then return nil end
  local y, m, d = text:match("^(%d%d%d%d)-(%d%d)-(%d%d)$")
  if not y then return nil end
  return tonumber(y), tonumber(m), tonumber(d)
end

-- "YYYY-MM-DD" of a year, month and day.
function M.format(y, m, d)
  return string.format("%04d-%02d-%02d", y, m, d)
end

-- The day number of "YYYY-MM-DD"; nil for anything else.
function M.day_number(text)
  local y, m, d = M.parse(text)
  if not y then return nil end
  return clock.days_from_civil(y, m, d)
end

-- "YYYY-MM-DD" of a day number.
function M.from_day_number(z)
  return M.format(clock.civil_from_days(z))
end

-- The date `n` days after `text` (before, for a negative `n`); `text` itself when it is no date.
function M.add_days(text, n)
  local z = M.day_number(text)
  if not z then return text end
  return M.from_day_number(z + n)
end

-- Days from `a` to `b` (negative when `b` is earlier); 0 when either is no date.
function M.days_between(a, b)
  local za, zb = M.day_number(a), M.day_number(b)
  if not za or not zb then return 0 end
  return zb - za
end

-- 1 (Monday) to 7 (Sunday) of a day number.
function M.weekday(z)
  return (z + 3) % 7 + 1
end

-- A time of day as the phone shows it (12- or 24-hour, as the system is set).
function M.time(minutes)
  return clock.format_time(math.floor(tonumber(minutes) or 0))
end

-- A time of day as "HH:MM" on the 24-hour clock, whatever the system setting.
function M.hhmm(minutes)
  minutes = math.floor(tonumber(minutes) or 0) % 1440
  return string.format("%02d:%02d", minutes // 60, minutes % 60)
end

return M
