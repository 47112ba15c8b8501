-- Movies (Chatly mini-app): now showing, showtimes, seat map, pay with Chatly Pay, tickets.

local FEE = 1.25
local ROWS = { "A", "B", "C", "D", "E", "F" }

local money = lib.money.format
local round2 = lib.money.round2
local dates = lib.dates
local orders = lib.orders

local function find_movie(id) return lib.lists.by_id(content.get("movies"), id) end

-- The next `n` days from today: { date = "2024-05-03", label = "Today" / "Fri 3" }.
local function next_dates(n)
  local base = dates.day_number(clock.today())
  local out = {}
  if not base then return out end
  for i = 0, n - 1 do
    local _, _, day = clock.civil_from_days(base + i)
    local label = i == 0 and "Today" or (dates.DAYS[dates.weekday(base + i)] .. " " .. day)
    table.insert(out, { date = dates.from_day_number(base + i), label = label })
  end
  return out
end

local function show_key(movie, date, time) return tostring(movie) .. "_" .. tostring(date):gsub("-", "") .. "_" .. tostring(time):gsub(":", "") end

function now_enter(ev) end
function open_tickets(ev) nav.push("tickets") end
function open_movie(ev) orders.open_row(ev, "movie") end

function movie_enter(ev)
  local m = find_movie(ev.params and ev.params.id)
  if not m then
    nav.pop()
    return
  end
  if locals.get("date") then return end
  local dates = next_dates(4)
  locals.set("date", dates[1] and dates[1].date or clock.today())
  locals.set("time", "")
end

function movie_view(ev)
  local m = find_movie(ev.params and ev.params.id)
  if not m then return {} end
  m.price_text = money(m.price)
  return { m = m, dates = next_dates(4) }
end

function pick_date(ev) orders.pick(ev, "date", "date") end

function pick_time(ev)
  if type(ev.item) ~= "string" then return end
  if locals.get("date") == clock.today() then
    local h, mi = ev.item:match("^(%d+):(%d+)$")
    if h and tonumber(h) * 60 + tonumber(mi) < clock.minutes() then
      ui.toast("This showtime has already started")
      return
    end
  end
  locals.set("time", ev.item)
end

function choose_seats(ev)
  local m = find_movie(ev.params and ev.params.id)
  local time = locals.get("time")
  if type(m) ~= "table" or not time or time == "" then
    ui.toast("Pick a showtime first")
    return
  end
  nav.push("seats", { id = m.id, title = m.title, date = locals.get("date"), time = time, price = m.price })
end

-- The seats picked (their codes) and what they come to, at the showtime's price.
local function totals()
  local params = locals.get("params") or {}
  local count, codes = 0, {}
  for _, s in ipairs(locals.get("seats") or {}) do
    if s.picked then
      count = count + 1
      table.insert(codes, s.code)
    end
  end
  local price = tonumber(params.price) or 0
  local fee = count > 0 and FEE * count or 0
  return {
    count = count,
    codes = codes,
    picked_text = count > 0 and (table.concat(codes, ", ") .. " · " .. money(price * count)) or "None",
    fee_text = money(fee),
    total_text = money(price * count + fee),
    total = round2(price * count + fee),
  }
end

function seats_view(ev)
  return totals()
end

function seats_enter(ev)
  local params = ev.params or {}
  if locals.get("seats") then return end
  locals.set("params", params)
  local key = show_key(params.id, params.date, params.time)
  local sold = {}
  for _, code in ipairs((state.get("sold") or {})[key] or {}) do sold[code] = true end
  -- Other customers' seats: a fixed pattern per showtime.
  local h = 0
  for c in key:gmatch(".") do h = (h * 31 + c:byte()) % 1000003 end
  local seats = {}
  for r, row in ipairs(ROWS) do
    for n = 1, 6 do
      local code = row .. n
      local taken = sold[code] or ((h + r * 7 + n * 13) % 5 == 0)
      table.insert(seats, { code = code, sold = taken, picked = false })
    end
  end
  locals.set("seats", seats)
end

function toggle_seat(ev)
  local i = tonumber(ev.index)
  local seats = locals.get("seats") or {}
  if not i or not seats[i] or seats[i].sold then return end
  if not seats[i].picked and totals().count >= 8 then
    ui.toast("You can book up to 8 seats")
    return
  end
  locals.set("seats." .. i .. ".picked", not seats[i].picked)
end

function pay_tickets(ev)
  local params = locals.get("params") or {}
  local sum = totals()
  local count = sum.count
  if count == 0 then return end
  host.pay{
    amount = sum.total,
    merchant = "Cinemax Plaza",
    note = count .. " × " .. tostring(params.title) .. " " .. tostring(params.time),
    handler = "tickets_paid",
    args = { seats = sum.codes },
  }
end

function tickets_paid(ev)
  local args = ev.args or {}
  if not orders.paid(args) then return end
  local params = locals.get("params") or {}
  local seats = args.seats or {}
  local key = show_key(params.id, params.date, params.time)
  local sold = state.get("sold") or {}
  sold[key] = sold[key] or {}
  for _, c in ipairs(seats) do table.insert(sold[key], c) end
  state.set("sold", sold)
  local id = tonumber(state.get("next_ticket")) or 7001
  state.set("next_ticket", id + 1)
  local p = host.profile() or {}
  state.insert("tickets", {
    id = id, code = "CX" .. id, movie = params.id, title = params.title, date = params.date, time = params.time,
    seats = table.concat(seats, ", "), hall = (tonumber(params.id) or 1) % 4 + 1,
    total_text = totals().total_text, holder = p.name or "You",
  }, 1)
  ui.toast("Enjoy the movie! Tickets saved")
  nav.replace("tickets")
end

function share_ticket(ev)
  local t = ev.item
  if type(t) ~= "table" then return end
  host.share_to_chat{ text = "🎬 " .. t.title .. " · " .. t.date .. " " .. t.time .. " · Hall " .. t.hall .. " · seats " .. t.seats }
end
