-- Bike (Chatly mini-app): stations, unlock, a ride timed on the virtual clock, pay at the end.

local UNLOCK, PER_MIN, EBIKE_EXTRA = 1.00, 0.15, 0.10

local money = lib.money.format
local round2 = lib.money.round2
local orders = lib.orders

local function stations() return content.get("stations") or {} end
local function find_station(id) return lib.lists.by_id(stations(), id) end

local function taken()
  local set = {}
  for _, b in ipairs(state.get("taken") or {}) do set[b] = true end
  local r = state.get("ride") or {}
  if r.active and r.bike then set[r.bike] = true end
  return set
end

local function available(s)
  local t = taken()
  local out = {}
  for _, code in ipairs(s.bikes or {}) do
    if not t[code] then table.insert(out, { code = code, electric = code:sub(1, 1) == "E" }) end
  end
  return out
end

local function fare(ms, bike)
  local minutes = math.max(1, math.ceil((tonumber(ms) or 0) / 60000))
  local rate = PER_MIN + ((type(bike) == "string" and bike:sub(1, 1) == "E") and EBIKE_EXTRA or 0)
  return round2(UNLOCK + minutes * rate), minutes
end

-- The payment sheet for a ride's fare (`ride_paid` learns how it went).
local function pay_ride(ride)
  host.pay{ amount = ride.fare, merchant = "CityBike", note = ride.minutes .. " min ride on " .. ride.bike, handler = "ride_paid", args = { id = ride.id } }
end

function stations_view(ev)
  local p = host.profile() or {}
  local name = tostring(p.name or "rider")
  local rows = {}
  for _, s in ipairs(stations()) do
    local n = #available(s)
    table.insert(rows, { id = s.id, name = s.name, area = s.area, distance = s.distance, count = n, free = (s.docks or 0) - #(s.bikes or {}) })
  end
  return { first_name = name:match("^(%S+)") or name, rows = rows }
end

function open_history(ev) nav.push("history") end
function open_ride(ev) nav.push("ride") end

function open_station(ev) orders.open_row(ev, "station") end

function station_enter(ev)
  local s = find_station(ev.params and ev.params.id)
  if not s then nav.pop() end
end

function station_view(ev)
  local s = find_station(ev.params and ev.params.id)
  if not s then return {} end
  local bikes = available(s)
  return { s = s, bikes = bikes, count = #bikes }
end

function pick_bike(ev) orders.pick(ev, "bike", "code") end

function unlock(ev)
  local s = find_station(ev.params and ev.params.id)
  local bike = locals.get("bike")
  if type(s) ~= "table" or type(bike) ~= "string" or bike == "" then return end
  if (state.get("ride") or {}).active then
    ui.toast("You already have a ride in progress")
    return
  end
  if (tonumber(state.get("unpaid")) or 0) > 0 then
    ui.toast("Please pay your last ride first")
    nav.push("ride")
    return
  end
  local run = (tonumber(state.get("ride.run")) or 0) + 1
  state.set("ride", { active = true, bike = bike, station = s.name, started_ms = clock.now(), elapsed = 0, fare_text = money(UNLOCK), run = run })
  timer.after(1000, "ride_tick", { run = run })
  ui.toast("Bike " .. bike .. " unlocked – enjoy your ride!")
  nav.replace("ride")
end

local function update_ride()
  local r = state.get("ride") or {}
  if not r.active then return r end
  local elapsed = clock.now() - (tonumber(r.started_ms) or clock.now())
  state.set("ride.elapsed", elapsed)
  state.set("ride.fare_text", money((fare(elapsed, r.bike))))
  r.elapsed = elapsed
  return r
end

function ride_tick(ev)
  local r = state.get("ride") or {}
  if not r.active or tonumber(ev.args and ev.args.run) ~= tonumber(r.run) then return end
  update_ride()
  -- Tick every second for the first hour, then every minute.
  local next_ms = (tonumber(state.get("ride.elapsed")) or 0) < 3600000 and 1000 or 60000
  timer.after(next_ms, "ride_tick", { run = r.run })
end

function ride_enter(ev)
  update_ride()
  if locals.get("end") == nil then locals.set("end", "same") end
end

function end_ride(ev)
  local r = update_ride()
  if not r.active then return end
  local amount, minutes = fare(r.elapsed, r.bike)
  local to = locals.get("end")
  if to == nil or to == "same" then to = r.station end
  local id = tonumber(state.get("next_ride")) or 1
  state.set("next_ride", id + 1)
  local ride = { id = id, bike = r.bike, from = r.station, to = to, minutes = minutes, fare = amount, fare_text = money(amount), date = clock.today(), paid = false }
  state.insert("rides", ride, 1)
  state.set("ride.active", false)
  state.set("ride.run", (tonumber(r.run) or 0) + 1)
  state.set("unpaid", id)
  pay_ride(ride)
end

function pay_unpaid(ev)
  local ride = lib.lists.by_id(state.get("rides"), state.get("unpaid"))
  if ride and not ride.paid then
    pay_ride(ride)
    return
  end
  state.set("unpaid", 0)
end

function ride_paid(ev)
  local args = ev.args or {}
  if not args.paid then
    ui.toast("Ride not paid yet (" .. tostring(args.reason or "cancelled") .. ")")
    return
  end
  local _, i = lib.lists.by_id(state.get("rides"), args.id)
  if i then state.set("rides." .. i .. ".paid", true) end
  state.set("unpaid", 0)
  ui.toast("Thanks for riding!")
  nav.replace("history")
end
