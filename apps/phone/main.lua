-- Phone: favorites, call log, contacts, keypad and the in-call screen.
-- The call log lives in state.calls (newest first); the ongoing call in state.call.
local civil_from_days = clock.civil_from_days

local MONTHS, DAY_NAMES = lib.dates.MONTHS, lib.dates.DAY_NAMES
local KIND_LABEL = { missed = "Missed call", outgoing = "Outgoing call", incoming = "Incoming call" }
local KIND_ICON = { missed = "call_missed", outgoing = "call_made", incoming = "call_received" }

local trim, digits = lib.text.trim, lib.text.digits
local day_number, add_days, fmt_time = lib.dates.day_number, lib.dates.add_days, lib.dates.time
local people = lib.people
local person_by_id = people.by_id
local confirm = lib.orders.confirm

local function day_label(date)
  local today = day_number(clock.today())
  local z = day_number(date)
  if not today or not z then return "" end
  if z == today then return "Today" end
  if today - z == 1 then return "Yesterday" end
  local y, m, d = civil_from_days(z)
  if today - z < 7 then return DAY_NAMES[((z + 3) % 7) + 1] end
  return MONTHS[m] .. " " .. d
end

local function length_text(secs)
  secs = math.floor(tonumber(secs) or 0)
  if secs <= 0 then return "" end
  if secs < 60 then return secs .. " sec" end
  local m, s = secs // 60, secs % 60
  if m >= 60 then return (m // 60) .. " hr " .. (m % 60) .. " min" end
  return m .. " min " .. s .. " sec"
end

-- Who has this number; the keypad looks from the third digit on.
local function person_by_number(number)
  return people.by_number(number, 3)
end

local function calls() return lib.store.list("calls") end

local function log_call(number, name, kind, secs)
  local id = lib.collections.take_id("next_call")
  local person = person_by_number(number)
  state.insert("calls", {
    id = id, number = number, name = (person and person.name) or name or number, contact_id = person and person.id or nil,
    kind = kind, date = clock.today(), t = clock.minutes(), secs = math.floor(secs or 0),
  }, 1)
end

-- ---------------------------------------------------------------- install

function seed_calls(ev)
  local today = clock.today()
  local list = {}
  for i, c in ipairs(content.get("call_log") or {}) do
    local p = c.person and person_by_id(c.person) or nil
    local number = p and p.phone or c.number or ""
    table.insert(list, {
      id = i, number = number, name = p and p.name or number, contact_id = p and p.id or nil,
      kind = c.kind or "incoming", date = add_days(today, -(tonumber(c.days_ago) or 0)), t = tonumber(c.t) or 0, secs = tonumber(c.secs) or 0,
    })
  end
  table.sort(list, function(a, b)
    local ka, kb = (day_number(a.date) or 0) * 1440 + a.t, (day_number(b.date) or 0) * 1440 + b.t
    if ka ~= kb then return ka > kb end
    return a.id < b.id
  end)
  state.set("calls", list)
  state.set("next_call", #list + 1)
end

-- ---------------------------------------------------------------- home

-- Favourites, and the people called most often who are not favourites.
local function favorites_and_frequent()
  local favs = {}
  for _, p in ipairs(people.all()) do
    if p.favorite then table.insert(favs, { id = p.id, name = p.name, first = p.first, phone = p.phone }) end
  end
  -- Frequent: the people called most often.
  local count, order = {}, {}
  for _, c in ipairs(calls()) do
    if c.contact_id then
      if not count[c.contact_id] then table.insert(order, c.contact_id) end
      count[c.contact_id] = (count[c.contact_id] or 0) + 1
    end
  end
  table.sort(order, function(a, b)
    if count[a] ~= count[b] then return count[a] > count[b] end
    return a < b
  end)
  local freq = {}
  for _, id in ipairs(order) do
    local p = person_by_id(id)
    if p and not p.favorite and #freq < 5 then table.insert(freq, { id = p.id, name = p.name, phone = p.phone, number = p.phone }) end
  end
  return favs, freq
end

local function recent_rows(filter)
  local rows = {}
  local last_day = nil
  for _, c in ipairs(calls()) do
    if filter == "all" or c.kind == filter then
      local label = KIND_LABEL[c.kind] or "Call"
      local summary = label
      if (tonumber(c.secs) or 0) > 0 then summary = summary .. " · " .. length_text(c.secs) end
      local day = day_label(c.date)
      local row = { id = c.id, name = c.name or c.number, number = c.number, summary = summary, when = fmt_time(c.t), day = "" }
      if day ~= last_day then row.day = day; last_day = day end
      table.insert(rows, row)
    end
  end
  return rows
end

local function contact_rows(query)
  local rows = {}
  for _, p in ipairs(people.search(query, { "name", "phone" })) do
    table.insert(rows, { id = p.id, name = p.name, phone = p.phone, number = p.phone })
  end
  people.sort_by_name(rows)
  local last = nil
  for _, r in ipairs(rows) do
    local l = r.name:sub(1, 1):upper()
    r.header = (l ~= last) and l or ""
    last = l
  end
  return rows
end

function home_view(ev)
  local favs, freq = favorites_and_frequent()
  return { favorites = favs, frequent = freq, recents = recent_rows(locals.get("filter") or "all"), contacts = contact_rows(locals.get("query")) }
end

function home_enter(ev)
  local p = ev.params or {}
  if locals.get("tab") == nil then
    locals.set("tab", tonumber(p.tab) or 1)
    locals.set("filter", "all")
    locals.set("query", "")
  end
end

function set_filter(ev)
  local v = ev.item and ev.item.value
  if type(v) ~= "string" then return end
  locals.set("filter", v)
end

function open_contacts_tab(ev)
  locals.set("tab", 2)
end

function home_menu(ev)
  ui.sheet{
    title = "Phone",
    options = {
      { text = "Clear call history", icon = "delete_sweep", handler = "clear_history" },
      { text = "Call voicemail", icon = "voicemail", handler = "call_voicemail" },
    },
  }
end

function clear_history(ev)
  confirm("Clear call history?", "All calls will be removed from Recents.", "Clear", "clear_history_confirmed")
end

clear_history_confirmed = lib.collections.clearer("calls", "Call history cleared")

function call_voicemail(ev)
  nav.push("in_call", { number = "*86", name = "Voicemail" })
end

local function start_call(number, name)
  number = trim(number)
  if number == "" then return end
  nav.push("in_call", { number = number, name = name })
end

-- A handler of a favorite's or a call's row: `act(row)` when the tapped row is there.
local function on_row(act)
  return function(ev)
    if type(ev.item) == "table" then act(ev.item) end
  end
end

call_favorite = on_row(function(it) start_call(it.phone, it.name) end)

-- The sheet of a favorite or a call: call `number` (`call` says how), text it, then `more`.
local function number_sheet(it, number, call, more)
  local options = {
    { text = call, icon = "call", handler = "menu_call", args = { number = number, name = it.name } },
    { text = "Send message", icon = "chat", handler = "menu_message", args = { number = number, name = it.name } },
  }
  for _, o in ipairs(more) do table.insert(options, o) end
  ui.sheet{ title = it.name, options = options }
end

favorite_menu = on_row(function(it)
  number_sheet(it, it.phone, "Call", {
    { text = "Call details", icon = "info", handler = "menu_details", args = { number = it.phone } },
  })
end)

call_item = on_row(function(it) start_call(it.number or it.phone, it.name) end)

open_details = on_row(function(it)
  local number = it.number or it.phone
  if trim(number) ~= "" then nav.push("call_details", { number = number }) end
end)

call_menu = on_row(function(it)
  number_sheet(it, it.number, "Call back", {
    { text = "Copy number", icon = "content_copy", handler = "menu_copy", args = { number = it.number } },
    { text = "Delete", icon = "delete", handler = "menu_delete_call", args = { id = it.id } },
  })
end)

function menu_call(ev)
  local a = ev.args or {}
  start_call(a.number, a.name)
end

-- A new text to `number` in Messages (nothing for an empty number).
local function message(number, name)
  if trim(number) ~= "" then people.message(number, name) end
end

local function copy(number)
  if trim(number) ~= "" then
    clipboard.set(number)
    ui.toast("Number copied")
  end
end

function menu_message(ev)
  local a = ev.args or {}
  message(a.number, a.name)
end

function menu_details(ev)
  local a = ev.args or {}
  if trim(a.number) ~= "" then nav.push("call_details", { number = a.number }) end
end

function menu_copy(ev)
  copy((ev.args or {}).number)
end

function menu_delete_call(ev)
  local c, i = lib.lists.by_id(calls(), ev.args and ev.args.id)
  if not c then return end
  state.remove("calls", i)
  ui.snackbar{ text = "Call deleted", action = "Undo", handler = "undo_delete_call", args = { call = c, pos = i } }
end

function undo_delete_call(ev)
  local a = ev.args or {}
  if type(a.call) ~= "table" then return end
  local pos = math.min(tonumber(a.pos) or 1, #calls() + 1)
  state.insert("calls", a.call, pos)
end

function open_keypad(ev)
  nav.push("keypad")
end

-- ---------------------------------------------------------------- keypad

function keypad_view(ev)
  local p = person_by_number(locals.get("digits"))
  return { match = p and p.name or "" }
end

function keypad_enter(ev)
  if locals.get("digits") == nil then
    local n = ev.params and ev.params.number
    locals.set("digits", type(n) == "string" and n or "")
  end
end

function press_key(ev)
  local d = ev.item and ev.item.d
  if type(d) ~= "string" then return end
  local cur = locals.get("digits") or ""
  if #cur >= 20 then return end
  locals.set("digits", cur .. d)
end

function long_press_key(ev)
  local d = ev.item and ev.item.d
  local cur = locals.get("digits") or ""
  if d == "0" and #cur < 20 then
    locals.set("digits", cur .. "+")
  elseif d == "1" and cur == "" then
    nav.replace("in_call", { number = "*86", name = "Voicemail" })
    return
  else
    press_key(ev)
    return
  end
end

function backspace(ev)
  local cur = locals.get("digits") or ""
  locals.set("digits", cur:sub(1, -2))
end

function clear_digits(ev)
  locals.set("digits", "")
end

function paste_number(ev)
  local text = clipboard.get()
  local cleaned = type(text) == "string" and text:gsub("[^%d%+%*#]", "") or ""
  if cleaned == "" then
    ui.toast("No number on the clipboard")
    return
  end
  locals.set("digits", cleaned:sub(1, 20))
end

function dial(ev)
  local number = trim(locals.get("digits"))
  if number == "" then
    -- Like a real dialer: the call button recalls the last dialed number.
    for _, c in ipairs(calls()) do
      if c.kind == "outgoing" then
        locals.set("digits", c.number)
        return
      end
    end
    ui.toast("Enter a number")
    return
  end
  local p = person_by_number(number)
  nav.replace("in_call", { number = p and p.phone or number, name = p and p.name or number })
end

local function add_to_contacts(number)
  number = trim(number)
  if number ~= "" then people.add(number) end
end

function add_number(ev)
  add_to_contacts(locals.get("digits"))
end

function add_details_number(ev)
  add_to_contacts(ev.params and ev.params.number)
end

-- ---------------------------------------------------------------- in call

local function get_call()
  local c = state.get("call")
  if type(c) ~= "table" then c = {} end
  c.run = tonumber(c.run) or 0
  return c
end

function call_enter(ev)
  if locals.get("started") then return end
  local p = ev.params or {}
  local number = trim(p.number)
  if number == "" then
    nav.pop()
    return
  end
  local person = person_by_number(number)
  local c = get_call()
  c.active = true
  c.number = number
  c.name = (person and person.name) or (trim(p.name) ~= "" and p.name) or number
  c.status = "Calling…"
  c.started = clock.now()
  c.connected_at = 0
  c.elapsed = 0
  c.muted = false
  c.speaker = false
  c.hold = false
  c.run = c.run + 1
  state.set("call", c)
  locals.set("started", true)
  timer.after(3000, "call_connected", { run = c.run })
end

-- The ongoing call when a timer of its own run fires (a timer of an ended call finds nil).
local function timed_call(ev)
  local c = get_call()
  if not c.active or tonumber(ev.args and ev.args.run) ~= c.run then return nil end
  return c
end

function call_connected(ev)
  local c = timed_call(ev)
  if not c then return end
  c.status = c.hold and "On hold" or "Connected"
  c.connected_at = clock.now()
  c.elapsed = 0
  state.set("call", c)
  timer.after(1000, "call_tick", { run = c.run })
end

function call_tick(ev)
  local c = timed_call(ev)
  if not c then return end
  c.elapsed = clock.now() - (tonumber(c.connected_at) or clock.now())
  state.set("call", c)
  if c.elapsed < 4 * 3600000 then timer.after(1000, "call_tick", { run = c.run }) end
end

-- Turns a switch of the ongoing call (muted, speaker) on or off.
local function toggle_call(field)
  local c = get_call()
  if c.active then state.set("call." .. field, not c[field]) end
end

function toggle_mute(ev) toggle_call("muted") end
function toggle_speaker(ev) toggle_call("speaker") end

function toggle_hold(ev)
  local c = get_call()
  if not c.active then return end
  c.hold = not c.hold
  if (tonumber(c.connected_at) or 0) > 0 then c.status = c.hold and "On hold" or "Connected" end
  state.set("call", c)
end

function call_keypad(ev)
  ui.toast("Keypad tones are sent during the call")
end

function add_call(ev)
  ui.toast("Conference calls are not supported by your carrier")
end

function record_call(ev)
  confirm("Record this call?", "Both parties will hear that the call is being recorded.", "Record", "record_confirmed")
end

function record_confirmed(ev)
  ui.toast("Recording started")
end

function end_call(ev)
  local c = get_call()
  if not c.active then
    nav.pop()
    return
  end
  local secs = 0
  if (tonumber(c.connected_at) or 0) > 0 then secs = (clock.now() - c.connected_at) / 1000 end
  log_call(c.number, c.name, "outgoing", secs)
  c.active = false
  c.status = "Call ended"
  c.run = c.run + 1
  state.set("call", c)
  ui.toast("Call ended" .. (secs >= 1 and (" · " .. length_text(secs)) or ""))
  nav.pop()
end

-- ---------------------------------------------------------------- call details

-- The calls with one number and who it is.
local function details_of(number)
  local d = digits(number)
  local person = person_by_number(number)
  local hist = {}
  for _, c in ipairs(calls()) do
    if digits(c.number) == d then
      table.insert(hist, {
        id = c.id, icon = KIND_ICON[c.kind] or "call", label = KIND_LABEL[c.kind] or "Call",
        when = day_label(c.date) .. ", " .. fmt_time(c.t), length = length_text(c.secs),
      })
    end
  end
  return {
    history = hist,
    name = person and person.name or number,
    subtitle = person and ("Mobile " .. number) or number,
    number = number,
    contact_id = person and person.id or false,
  }
end

function details_view(ev)
  local number = ev.params and ev.params.number
  if trim(number) == "" then return {} end
  return details_of(number)
end

function details_enter(ev)
  local number = ev.params and ev.params.number
  if trim(number) == "" then
    nav.pop()
  end
end

function call_details_number(ev)
  local number = ev.params and ev.params.number
  start_call(number, details_of(number).name)
end

function message_number(ev)
  local number = ev.params and ev.params.number
  if trim(number) ~= "" then message(number, details_of(number).name) end
end

function open_contact(ev)
  local id = details_of(ev.params and ev.params.number).contact_id
  if id then people.show(id) end
end

function copy_number(ev)
  copy(ev.params and ev.params.number)
end

function delete_history(ev)
  confirm("Delete call history?", "Calls with " .. (details_of(ev.params and ev.params.number).name or "this number") .. " will be removed.",
    "Delete", "delete_history_confirmed")
end

function delete_history_confirmed(ev)
  local d = digits(ev.params and ev.params.number)
  local list = calls()
  for i = #list, 1, -1 do
    if digits(list[i].number) == d then state.remove("calls", i) end
  end
  ui.toast("Call history deleted")
  nav.pop()
end
