-- Clock: alarms, world clock, timer and stopwatch.
-- Lua keeps nothing between events: everything lives in state / locals; helpers are local.
local days_from_civil, civil_from_days = clock.days_from_civil, clock.civil_from_days

local DAY_MS = 86400000
local DAY_NAMES = lib.dates.DAY_NAMES

-- ---------------------------------------------------------------- helpers

local fmt_time = lib.dates.time

-- Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
local parse_date = lib.dates.parse
local add_days = lib.dates.add_days

-- Day of the week of today, 0 = Monday.
local function today_weekday()
  local today = lib.dates.day_number(clock.today())
  if not today then return 0 end
  return lib.dates.weekday(today) - 1
end

local plural = lib.text.plural

-- "Alarm in 9 hours and 5 minutes" for the next time an alarm rings.
local function until_text(time, days)
  time = tonumber(time)
  if not time then return "" end
  time = math.floor(time) % 1440
  local now = clock.minutes()
  local wd = today_weekday()
  local wanted = {}
  local any = false
  if type(days) == "table" then
    for _, d in pairs(days) do
      if tonumber(d) then wanted[tonumber(d)] = true; any = true end
    end
  end
  for offset = 0, 7 do
    local day = (wd + offset) % 7
    if (not any or wanted[day]) and (offset > 0 or time > now) then
      local delta = offset * 1440 + time - now
      local days_left = delta // 1440
      local hours = (delta % 1440) // 60
      local mins = delta % 60
      local parts = {}
      if days_left > 0 then table.insert(parts, plural(days_left, "day")) end
      if hours > 0 then table.insert(parts, plural(hours, "hour")) end
      if mins > 0 or #parts == 0 then table.insert(parts, plural(mins, "minute")) end
      return "Alarm in " .. table.concat(parts, " and ")
    end
  end
  return ""
end

-- The alarm with exactly that id (the id its row or sheet carries), and its position.
local function find_alarm(id)
  if id == nil then return nil end
  return lib.lists.find(state.get("alarms"), "id", id)
end

local function sorted_days(days)
  local out = {}
  if type(days) == "table" then
    for _, d in pairs(days) do
      if tonumber(d) then table.insert(out, math.floor(tonumber(d))) end
    end
  end
  table.sort(out)
  return out
end

local trim = lib.text.trim
local C = lib.collections

-- ---------------------------------------------------------------- world clock

local function find_city(name)
  return (lib.lists.find(content.get("cities"), "name", name))
end

local function offset_text(offset)
  if offset == 0 then return "Same time" end
  local a = math.abs(offset)
  local h, m = a // 60, a % 60
  local text = h > 0 and (h .. (h == 1 and " hr" or " hrs")) or ""
  if m > 0 then text = text .. (h > 0 and " " or "") .. m .. " min" end
  return text .. (offset > 0 and " ahead" or " behind")
end

function home_view(ev)
  local now = clock.minutes()
  local list = {}
  for _, name in ipairs(state.get("world_cities") or {}) do
    local city = find_city(name)
    if city then
      local offset = tonumber(city.offset) or 0
      local t = now + offset
      local day = "Today"
      if t >= 1440 then day = "Tomorrow" elseif t < 0 then day = "Yesterday" end
      table.insert(list, {
        name = city.name,
        country = city.country,
        time = t % 1440,
        day = day,
        diff = offset_text(offset),
      })
    end
  end
  -- An empty list is left unset, so the list shows its empty state.
  return { world = #list > 0 and list or nil }
end

-- ---------------------------------------------------------------- timer and stopwatch state

local function get_timer()
  local t = state.get("timer")
  if type(t) ~= "table" then t = {} end
  t.duration = tonumber(t.duration) or 300000
  t.remaining = tonumber(t.remaining) or t.duration
  t.end_at = tonumber(t.end_at) or 0
  t.run = tonumber(t.run) or 0
  t.running = t.running == true
  return t
end

-- Stores the timer with the progress its remaining time makes.
local function save_timer(t)
  t.progress = t.duration <= 0 and 0 or math.max(0, math.min(1, t.remaining / t.duration))
  state.set("timer", t)
end

-- What is left of a running timer now.
local function time_left(t)
  return math.max(0, t.end_at - clock.now())
end

local function refresh_timer()
  local t = get_timer()
  if t.running then
    t.remaining = time_left(t)
    save_timer(t)
  end
end

local function get_stopwatch()
  local s = state.get("stopwatch")
  if type(s) ~= "table" then s = {} end
  s.running = s.running == true
  s.started_at = tonumber(s.started_at) or 0
  s.base = tonumber(s.base) or 0
  s.elapsed = tonumber(s.elapsed) or 0
  s.run = tonumber(s.run) or 0
  return s
end

-- The running stopwatch's time now.
local function time_run(s)
  return s.base + (clock.now() - s.started_at)
end

local function refresh_stopwatch()
  local s = get_stopwatch()
  if s.running then
    s.elapsed = time_run(s)
    state.set("stopwatch", s)
  end
end

-- Whether a timer event (`ev.args.run`) belongs to the running timer or stopwatch `x`'s chain:
-- a stale chain's events are dropped.
local function live(ev, x)
  return x.running and (ev.args and tonumber(ev.args.run)) == x.run
end

-- ---------------------------------------------------------------- home

function home_enter(ev)
  local params = ev.params or {}
  if params.tab ~= nil and not locals.get("tab_applied") then
    locals.set("tab", tonumber(params.tab) or 0)
    locals.set("tab_applied", true)
  end
  if locals.get("tab") == nil then
    locals.set("tab", 0)
  end
  refresh_timer()
  refresh_stopwatch()
end

function tab_changed(ev)
  refresh_timer()
  refresh_stopwatch()
end

function open_settings(ev)
  nav.push("clock_settings")
end

-- ---------------------------------------------------------------- alarm list

function add_alarm(ev)
  nav.push("alarm_edit", {})
end

function open_alarm(ev)
  local a = ev.item
  if type(a) ~= "table" or a.id == nil then return end
  nav.push("alarm_edit", { id = a.id })
end

function alarm_toggled(ev)
  local a = ev.item
  if ev.value and type(a) == "table" then
    ui.toast(until_text(a.time, a.days))
  end
end

function alarm_menu(ev)
  local a = ev.item
  if type(a) ~= "table" or a.id == nil then return end
  local title = fmt_time(a.time)
  if type(a.label) == "string" and a.label ~= "" then title = title .. " · " .. a.label end
  C.menu(title, { id = a.id }, {
    { text = "Duplicate", icon = "content_copy", handler = "duplicate_alarm" },
    { text = "Delete", icon = "delete", handler = "delete_alarm_now" },
  })
end

function duplicate_alarm(ev)
  local a, i = find_alarm(ev.args and ev.args.id)
  if not a then return end
  local copy = {
    id = C.take_id("next_id"),
    time = a.time,
    label = a.label or "",
    enabled = a.enabled == true,
    days = sorted_days(a.days),
    vibrate = a.vibrate ~= false,
  }
  state.insert("alarms", copy, i + 1)
  ui.toast("Alarm duplicated")
end

function delete_alarm_now(ev)
  local a, i = find_alarm(ev.args and ev.args.id)
  if a then lib.orders.remove("alarms", i, "Alarm deleted", "restore_alarm", { alarm = a, pos = i }) end
end

function restore_alarm(ev)
  local args = ev.args or {}
  if type(args.alarm) ~= "table" then return end
  if find_alarm(args.alarm.id) then return end
  local alarms = state.get("alarms") or {}
  local pos = math.min(tonumber(args.pos) or (#alarms + 1), #alarms + 1)
  state.insert("alarms", args.alarm, pos)
end

-- ---------------------------------------------------------------- alarm editor

-- When the alarm being edited rings next, as the time picker and the day chips stand.
function edit_view(ev)
  return { ["until"] = until_text(locals.get("time"), locals.get("days")) }
end

local function days_of_week(week)
  local days = {}
  for i = 1, 7 do
    if week[i] then table.insert(days, i - 1) end
  end
  return days
end

function edit_enter(ev)
  if locals.get("loaded") then return end
  local params = ev.params or {}
  local time, label, days, vibrate = 7 * 60, "", {}, true
  if params.id ~= nil then
    local a = find_alarm(params.id)
    if C.missing(a, "This alarm no longer exists") then return end
    time, label, days, vibrate = tonumber(a.time) or time, a.label or "", sorted_days(a.days), a.vibrate ~= false
  elseif params.time ~= nil then
    -- Deep links may pass a time as minutes or "HH:MM".
    local h, m = tostring(params.time):match("^(%d+):(%d+)$")
    if h then time = (tonumber(h) * 60 + tonumber(m)) % 1440 else time = (tonumber(params.time) or time) % 1440 end
    if type(params.label) == "string" then label = params.label end
  end
  local week = { false, false, false, false, false, false, false }
  for _, d in ipairs(days) do
    if d >= 0 and d <= 6 then week[d + 1] = true end
  end
  locals.set("time", math.floor(time))
  locals.set("label", label)
  locals.set("vibrate", vibrate)
  locals.set("week", week)
  locals.set("days", days_of_week(week))
  locals.set("loaded", true)
end

local function toggle_day(i)
  local week = locals.get("week")
  if type(week) ~= "table" then week = { false, false, false, false, false, false, false } end
  for k = 1, 7 do week[k] = week[k] == true end
  week[i + 1] = not week[i + 1]
  locals.set("week", week)
  locals.set("days", days_of_week(week))
end

function toggle_mon(ev) toggle_day(0) end
function toggle_tue(ev) toggle_day(1) end
function toggle_wed(ev) toggle_day(2) end
function toggle_thu(ev) toggle_day(3) end
function toggle_fri(ev) toggle_day(4) end
function toggle_sat(ev) toggle_day(5) end
function toggle_sun(ev) toggle_day(6) end

function save_alarm(ev)
  local params = ev.params or {}
  local time = tonumber(locals.get("time"))
  if not time then
    ui.toast("Pick a time first")
    return
  end
  time = math.floor(time) % 1440
  local week = locals.get("week")
  local days = type(week) == "table" and days_of_week(week) or {}
  local alarm = {
    time = time,
    label = trim(locals.get("label")),
    enabled = true,
    days = days,
    vibrate = locals.get("vibrate") ~= false,
  }
  local existing = params.id ~= nil and find_alarm(params.id) or nil
  if existing then
    alarm.id = existing.id
  else
    alarm.id = C.take_id("next_id")
  end
  -- Keep the list sorted by time.
  local alarms = {}
  for _, a in ipairs(state.get("alarms") or {}) do
    if a.id ~= alarm.id then table.insert(alarms, a) end
  end
  table.insert(alarms, alarm)
  table.sort(alarms, function(x, y)
    if x.time ~= y.time then return (tonumber(x.time) or 0) < (tonumber(y.time) or 0) end
    return (tonumber(x.id) or 0) < (tonumber(y.id) or 0)
  end)
  state.set("alarms", alarms)
  ui.toast(until_text(alarm.time, alarm.days))
  nav.pop()
end

function cancel_edit(ev)
  nav.pop()
end

function delete_alarm(ev)
  local params = ev.params or {}
  local a = find_alarm(params.id)
  if not a then return end
  lib.orders.confirm("Delete alarm?", "The " .. fmt_time(a.time) .. " alarm will be deleted.", "Delete",
    "delete_confirmed", { id = a.id })
end

function delete_confirmed(ev)
  local a, i = find_alarm(ev.args and ev.args.id)
  if a then
    state.remove("alarms", i)
    ui.toast("Alarm deleted")
  end
  nav.pop()
end

-- ---------------------------------------------------------------- world clock handlers

function add_city(ev)
  local chosen = {}
  for _, name in ipairs(state.get("world_cities") or {}) do chosen[name] = true end
  local options = {}
  for _, c in ipairs(content.get("cities") or {}) do
    if not chosen[c.name] then
      table.insert(options, { text = c.name .. ", " .. c.country, icon = "public", handler = "add_city_pick", args = { name = c.name } })
    end
  end
  C.sheet("Add a city", options, "All cities are already added")
end

function add_city_pick(ev)
  local name = ev.args and ev.args.name
  if not name or not find_city(name) or lib.lists.contains(state.get("world_cities"), name) then return end
  state.insert("world_cities", name)
end

function city_menu(ev)
  local c = ev.item
  if type(c) ~= "table" or not c.name then return end
  ui.sheet{
    title = c.name,
    options = { { text = "Remove", icon = "delete", handler = "remove_city", args = { name = c.name } } },
  }
end

function remove_city(ev)
  C.remove_value("world_cities", ev.args and ev.args.name)
end

-- ---------------------------------------------------------------- timer

-- Runs the timer: its end, the tick chain and the alarm when it is done.
local function start_timer(t)
  t.running = true
  t.run = t.run + 1
  t.end_at = clock.now() + t.remaining
  t.end_minutes = (t.end_at % DAY_MS) // 60000
  t.done_id = timer.after(t.remaining, "timer_done", { run = t.run })
  if t.remaining > 1000 then
    timer.after(1000, "timer_tick", { run = t.run })
  end
end

local function stop_timer(t)
  if t.done_id ~= nil then timer.cancel(t.done_id) end
  t.done_id = nil
  t.run = t.run + 1 -- stops the tick chain
  t.running = false
end

function timer_preset(ev)
  local t = get_timer()
  local ms = ev.item and tonumber(ev.item.ms)
  if t.running or not ms then return end
  t.duration = ms
  t.remaining = ms
  t.progress = 1
  state.set("timer", t)
end

function timer_start(ev)
  local t = get_timer()
  if t.running then return end
  if t.remaining <= 0 then t.remaining = t.duration end
  start_timer(t)
  save_timer(t)
end

function timer_pause(ev)
  local t = get_timer()
  if not t.running then return end
  t.remaining = time_left(t)
  stop_timer(t)
  save_timer(t)
end

function timer_reset(ev)
  local t = get_timer()
  if t.running then stop_timer(t) end
  t.remaining = t.duration
  t.end_at = 0
  t.end_minutes = 0
  t.progress = 1
  state.set("timer", t)
end

function timer_add_minute(ev)
  local t = get_timer()
  if not t.running then return end
  t.remaining = time_left(t) + 60000
  t.duration = t.duration + 60000
  stop_timer(t)
  start_timer(t)
  save_timer(t)
end

function timer_tick(ev)
  local t = get_timer()
  if not live(ev, t) then return end
  t.remaining = time_left(t)
  save_timer(t)
  if t.remaining > 1000 then
    timer.after(1000, "timer_tick", { run = t.run })
  end
end

function timer_done(ev)
  local t = get_timer()
  if not live(ev, t) or clock.now() < t.end_at then return end
  t.running = false
  t.remaining = 0
  t.progress = 0
  t.done_id = nil
  t.run = t.run + 1
  state.set("timer", t)
  ui.notify{
    title = "Timer",
    text = "Time's up: " .. string.format("%d:%02d", t.duration // 60000, (t.duration // 1000) % 60) .. " timer",
    icon = "hourglass_empty",
    screen = "home",
    params = { tab = 2 },
  }
end

-- ---------------------------------------------------------------- stopwatch

local STOPWATCH_TICK_LIMIT = 3600000 -- the display stops ticking after an hour (it still updates on taps)

function stopwatch_start(ev)
  local s = get_stopwatch()
  if s.running then return end
  s.running = true
  s.started_at = clock.now()
  s.run = s.run + 1
  state.set("stopwatch", s)
  timer.after(1000, "stopwatch_tick", { run = s.run })
end

function stopwatch_stop(ev)
  local s = get_stopwatch()
  if not s.running then return end
  s.elapsed = time_run(s)
  s.base = s.elapsed
  s.running = false
  s.run = s.run + 1
  state.set("stopwatch", s)
end

function stopwatch_tick(ev)
  local s = get_stopwatch()
  if not live(ev, s) then return end
  s.elapsed = time_run(s)
  state.set("stopwatch", s)
  if s.elapsed < STOPWATCH_TICK_LIMIT then
    timer.after(1000, "stopwatch_tick", { run = s.run })
  end
end

function stopwatch_lap(ev)
  local s = get_stopwatch()
  if not s.running then return end
  local total = time_run(s)
  s.elapsed = total
  state.set("stopwatch", s)
  local laps = state.get("laps") or {}
  local last = laps[1]
  local prev = (type(last) == "table" and tonumber(last.total)) or 0
  state.insert("laps", { n = #laps + 1, split = total - prev, total = total }, 1)
end

function stopwatch_reset(ev)
  local s = get_stopwatch()
  if s.running then return end
  state.set("stopwatch", { running = false, started_at = 0, base = 0, elapsed = 0, run = s.run + 1 })
  local laps = state.get("laps") or {}
  for i = #laps, 1, -1 do
    state.remove("laps", i)
  end
end

-- ---------------------------------------------------------------- clock settings

function vacation_changed(ev)
  if ev.value then
    local today = clock.today()
    local until_date = state.get("settings.vacation_until")
    if type(until_date) ~= "string" or until_date == "" or until_date < today then
      until_date = add_days(today, 7)
      state.set("settings.vacation_until", until_date)
    end
    ui.toast("Alarms paused until " .. until_date)
  else
    ui.toast("Alarms resumed")
  end
end

function vacation_date_changed(ev)
  local today = clock.today()
  local v = ev.value
  if type(v) ~= "string" or v < today then
    state.set("settings.vacation_until", add_days(today, 1))
    ui.toast("Pick a date after today")
    return
  end
  local y, m, d = parse_date(v)
  if y then
    local wd = (days_from_civil(y, m, d) + 3) % 7
    ui.toast("Alarms resume on " .. DAY_NAMES[wd + 1])
  end
end

function toggle_auto_home(ev)
  state.set("settings.auto_home", not state.get("settings.auto_home"))
end

function change_date_time(ev)
  ui.toast("Date and time are set automatically by the network")
end
