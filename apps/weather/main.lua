-- Weather: forecasts are generated once per device in on_install (math.random is seeded from the
-- device seed) from each city's typical climate in content, and kept in state.data. What the
-- screens show, converted to the chosen units, is derived by weather_view.

local DAY_NAMES = lib.dates.DAYS
local DAY_LONG = lib.dates.DAY_NAMES
local ICONS = {
  ["Sunny"] = "wb_sunny", ["Clear"] = "nights_stay", ["Partly cloudy"] = "cloud_queue", ["Cloudy"] = "cloud",
  ["Rain"] = "umbrella", ["Showers"] = "grain", ["Thunderstorms"] = "thunderstorm", ["Snow"] = "ac_unit",
  ["Fog"] = "foggy", ["Windy"] = "air",
}
local WET = { Rain = true, Showers = true, Thunderstorms = true, Snow = true }

-- 1 = Monday.
local function weekday_of_today(offset_days)
  local today = lib.dates.day_number(clock.today())
  if not today then return 1 end
  return lib.dates.weekday(today + (offset_days or 0))
end

local find, contains = lib.lists.find, lib.lists.contains

local function find_city(name)
  return (find(content.get("cities"), "name", name))
end

local function pick(list)
  if type(list) ~= "table" or #list == 0 then return "Sunny" end
  return list[math.random(1, #list)]
end

local function gen_city(c)
  local days = {}
  for i = 1, 7 do
    local cond = pick(c.conditions)
    if math.random() < (c.wet or 0) and not WET[cond] then cond = (c.base or 15) < 3 and "Snow" or "Showers" end
    local hi = (c.base or 15) + math.random(-3, 3) - (WET[cond] and 2 or 0)
    local lo = hi - (c.spread or 8) + math.random(-1, 1)
    local precip = WET[cond] and math.random(45, 95) or math.random(0, 20)
    table.insert(days, {
      cond = cond, hi = hi, lo = lo, precip = precip,
      humidity = math.max(15, math.min(99, (c.humidity or 65) + math.random(-10, 10) + (WET[cond] and 10 or 0))),
      wind = math.max(2, (c.wind or 12) + math.random(-6, 8)),
      uv = WET[cond] and math.random(1, 3) or math.random(3, 8),
      sunrise = 7 * 60 + math.random(0, 40), sunset = 18 * 60 + math.random(0, 50),
    })
  end
  local today = days[1]
  return {
    name = c.name, days = days,
    pressure = math.random(1002, 1026), visibility = today.cond == "Fog" and math.random(1, 4) or math.random(10, 25),
    aqi = math.random(12, 85),
  }
end

local function generate()
  local data = {}
  for _, c in ipairs(content.get("cities") or {}) do table.insert(data, gen_city(c)) end
  state.set("data", data)
end

local function data_of(name)
  return (find(state.get("data"), "name", name))
end

local function temp(c)
  c = tonumber(c) or 0
  if (state.get("settings.units") or "c") == "f" then return math.floor(c * 9 / 5 + 32 + 0.5) .. "°" end
  return math.floor(c + 0.5) .. "°"
end

local function wind(kmh)
  kmh = tonumber(kmh) or 0
  local u = state.get("settings.wind") or "kmh"
  if u == "mph" then return math.floor(kmh * 0.621 + 0.5) .. " mph" end
  if u == "ms" then return math.floor(kmh / 3.6 + 0.5) .. " m/s" end
  return math.floor(kmh + 0.5) .. " km/h"
end

local hhmm = lib.dates.time

-- Temperature at minute-of-day t for a day with (lo, hi): lowest near 06:00, highest near 15:00.
local function temp_at(day, t)
  local h = (t / 60) % 24
  local x
  if h >= 6 and h <= 15 then x = (h - 6) / 9 else x = 1 - (((h - 15) % 24) / 15) end
  x = (1 - math.cos(x * math.pi)) / 2
  return day.lo + (day.hi - day.lo) * x
end

local function cond_at(day, h, sunrise, sunset)
  local night = h * 60 < sunrise or h * 60 >= sunset
  local c = day.cond
  if night and (c == "Sunny" or c == "Partly cloudy") then return "Clear" end
  if c == "Fog" and h >= 12 and h < 18 then return "Partly cloudy" end -- fog burns off by noon
  return c
end

local function city_local_minutes(city)
  local c = find_city(city)
  return (clock.minutes() + (c and tonumber(c.offset) or 0)) % 1440
end

-- The forecasts exist and the current city is one that has them (data only: what the screens
-- show is derived by weather_view).
local function ensure_data()
  if #(state.get("data") or {}) == 0 then generate() end
  if not data_of(state.get("current")) then
    state.set("current", (state.get("saved") or {})[1] or "San Francisco")
  end
end

-- What the home, cities and settings screens show, in the chosen units, for the current city.
local function derive()
  local saved = state.get("saved") or {}
  local name = state.get("current")
  if not data_of(name) then name = saved[1] or "San Francisco" end
  local d = data_of(name)
  local c = find_city(name) or {}
  local view = { city = name, country = c.country or "", hourly = {}, daily = {}, cities = {} }
  if d then
    local today = d.days[1]
    local now = city_local_minutes(name)
    local t = temp_at(today, now)
    local cond = cond_at(today, now // 60, today.sunrise, today.sunset)
    view.temp = temp(t)
    view.cond = cond
    view.icon = ICONS[cond] or "wb_sunny"
    -- a picture of the condition (images/<condition>.jpg, e.g. images/partly_cloudy.jpg)
    view.photo = ICONS[cond] and ("images/" .. cond:lower():gsub(" ", "_") .. ".jpg") or ""
    view.hilo = "H:" .. temp(today.hi) .. "  L:" .. temp(today.lo)
    local feels = t - (today.wind > 25 and 3 or 1) + (today.humidity > 75 and t > 24 and 3 or 0)
    view.feels = "Feels like " .. temp(feels)
    view.local_time = hhmm(now)
    view.summary = cond .. " today. " .. (WET[today.cond] and ("Chance of rain " .. today.precip .. "%.") or ("High of " .. temp(today.hi) .. ", winds " .. wind(today.wind) .. "."))
    view.humidity = today.humidity .. "%"
    view.wind = wind(today.wind)
    view.uv = today.uv .. (today.uv >= 6 and " High" or (today.uv >= 3 and " Moderate" or " Low"))
    view.pressure = d.pressure .. " hPa"
    view.visibility = d.visibility .. " km"
    view.sunrise = hhmm(today.sunrise)
    view.sunset = hhmm(today.sunset)
    view.aqi = d.aqi .. (d.aqi <= 50 and " Good" or " Moderate")
    view.precip = today.precip .. "%"
    -- Next 12 hours.
    local base_h = now // 60
    for i = 0, 11 do
      local h = (base_h + i) % 24
      local day = d.days[((base_h + i) >= 24) and 2 or 1] or today
      local hc = cond_at(day, h, day.sunrise, day.sunset)
      table.insert(view.hourly, {
        time = i == 0 and "Now" or string.format("%02d", h), icon = ICONS[hc] or "wb_sunny",
        temp = temp(temp_at(day, h * 60)), precip = WET[hc] and (day.precip .. "%") or "",
      })
    end
    for i, day in ipairs(d.days) do
      local wd = weekday_of_today(i - 1)
      table.insert(view.daily, {
        n = i, day = i == 1 and "Today" or DAY_NAMES[wd], long = i == 1 and "Today" or DAY_LONG[wd],
        icon = ICONS[day.cond] or "wb_sunny", cond = day.cond, hi = temp(day.hi), lo = temp(day.lo),
        precip = day.precip >= 30 and (day.precip .. "%") or "",
      })
    end
  end
  for _, n in ipairs(saved) do
    local sd = data_of(n)
    if sd then
      local day = sd.days[1]
      local lm = city_local_minutes(n)
      local cc = cond_at(day, lm // 60, day.sunrise, day.sunset)
      table.insert(view.cities, {
        name = n, temp = temp(temp_at(day, lm)), icon = ICONS[cc] or "wb_sunny",
        detail = cc .. " · H:" .. temp(day.hi) .. " L:" .. temp(day.lo) .. " · " .. hhmm(lm),
        current = n == name,
      })
    end
  end
  return view
end

function weather_view(ev) return derive() end

-- ---------------------------------------------------------------- lifecycle

function generate_forecasts(ev)
  generate()
  ensure_data()
end

function launch(ev) ensure_data() end
function home_enter(ev) ensure_data() end
function go_back(ev) nav.pop() end

function open_cities(ev) nav.push("cities") end
function open_settings(ev) nav.push("settings") end

function refresh_now(ev)
  ensure_data()
  ui.toast("Updated " .. hhmm(clock.minutes()))
end

function open_day(ev)
  local n = ev.item and tonumber(ev.item.n)
  if not n then return end
  nav.push("day", { n = n })
end

function share_weather(ev)
  local v = derive()
  ui.share{ text = tostring(v.city) .. ": " .. tostring(v.temp) .. " " .. tostring(v.cond) .. ", " .. tostring(v.hilo) .. ". " .. tostring(v.summary) }
end

-- ---------------------------------------------------------------- cities

function select_city(ev)
  local name = ev.item and ev.item.name
  if not data_of(name) then return end
  state.set("current", name)
  ensure_data()
  nav.pop()
end

function remove_city(ev)
  local name = ev.item and ev.item.name
  local saved = state.get("saved") or {}
  if #saved <= 1 then
    ui.toast("Keep at least one city")
    return
  end
  for i = #saved, 1, -1 do
    if saved[i] == name then
      lib.orders.remove("saved", i, name .. " removed", "undo_remove_city", { name = name, pos = i })
      ensure_data()
      return
    end
  end
end

function undo_remove_city(ev)
  local a = ev.args or {}
  if not find_city(a.name) or contains(state.get("saved"), a.name) then return end
  lib.orders.put_back("saved", a.name, a.pos)
  ensure_data()
end

function open_add_city(ev) nav.push("add_city") end

function add_city_view(ev)
  local q = tostring(locals.get("query") or ""):lower()
  local saved = {}
  for _, n in ipairs(state.get("saved") or {}) do saved[n] = true end
  local results = {}
  for _, c in ipairs(content.get("cities") or {}) do
    if (q == "" or (c.name .. " " .. c.country):lower():find(q, 1, true)) then
      table.insert(results, { name = c.name, country = c.country, added = saved[c.name] and true or false, meta = saved[c.name] and "Added" or "" })
    end
  end
  return { results = results }
end

function city_search_clear(ev) locals.set("query", "") end

-- A city already saved becomes the current one; another is saved.
function add_city(ev)
  local name = ev.item and ev.item.name
  if not find_city(name) then return end
  if contains(state.get("saved"), name) then
    state.set("current", name)
    ensure_data()
  else
    state.insert("saved", name)
    ensure_data()
    ui.toast(name .. " added")
  end
  nav.pop()
end

-- ---------------------------------------------------------------- settings

function units_changed(ev) ensure_data() end

-- ---------------------------------------------------------------- day detail

-- The day the screen shows: its number in the forecast (1 is today), within the forecast.
local function day_number(ev, d)
  local n = tonumber(ev.params and ev.params.n) or 1
  return math.max(1, math.min(d and #d.days or 7, n))
end

function day_view(ev)
  local d = data_of(state.get("current"))
  if not d then return {} end
  local n = day_number(ev, d)
  local day = d.days[n]
  local wd = weekday_of_today(n - 1)
  local parts = {}
  for _, h in ipairs({ 6, 9, 12, 15, 18, 21 }) do
    local hc = cond_at(day, h, day.sunrise, day.sunset)
    table.insert(parts, { time = string.format("%02d:00", h), icon = ICONS[hc] or "wb_sunny", temp = temp(temp_at(day, h * 60)), precip = WET[hc] and (day.precip .. "%") or "" })
  end
  local text = day.cond .. " with a high of " .. temp(day.hi) .. " and a low of " .. temp(day.lo) .. ". "
  if WET[day.cond] then text = text .. "Chance of precipitation " .. day.precip .. "%. " end
  text = text .. "Winds around " .. wind(day.wind) .. "."
  return {
    n = n,
    title = n == 1 and "Today" or (n == 2 and "Tomorrow" or DAY_LONG[wd]),
    icon = ICONS[day.cond] or "wb_sunny",
    cond = day.cond,
    hilo = "High " .. temp(day.hi) .. " · Low " .. temp(day.lo),
    precip = day.precip .. "%",
    humidity = day.humidity .. "%",
    wind = wind(day.wind),
    uv = tostring(day.uv),
    sun = hhmm(day.sunrise) .. " – " .. hhmm(day.sunset),
    hours = parts,
    text = text,
  }
end

-- The day before or after (`step`) within the week's forecast.
local function step_day(ev, step)
  local n = day_number(ev, data_of(state.get("current"))) + step
  if n >= 1 and n <= 7 then nav.replace("day", { n = n }) end
end

function prev_day(ev) step_day(ev, -1) end
function next_day(ev) step_day(ev, 1) end
