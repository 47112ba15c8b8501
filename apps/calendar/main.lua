-- Calendar: a month grid, a day agenda, event details, editing and invitations.
-- Events live in state.events; screens derive their rows in on_enter.
local days_from_civil, civil_from_days = clock.days_from_civil, clock.civil_from_days

local MONTH_NAMES, MONTHS, DAYS = lib.dates.MONTH_NAMES, lib.dates.MONTHS, lib.dates.DAYS
local STATUS_TEXT = { accepted = "Going", declined = "Not going", maybe = "Maybe", pending = "Not answered" }

local trim = lib.text.trim
local parse_date, fmt_date, day_number = lib.dates.parse, lib.dates.format, lib.dates.day_number
local add_days, fmt_time = lib.dates.add_days, lib.dates.time
local people = lib.people
local person_by_id = people.by_id

local function short_day(date)
  local z = day_number(date)
  if not z then return "" end
  local y, m, d = civil_from_days(z)
  return DAYS[((z + 3) % 7) + 1] .. ", " .. MONTHS[m] .. " " .. d
end

local function range_text(e)
  return fmt_time(e.start) .. " – " .. fmt_time(e["end"])
end

local function events() return lib.store.list("events") end
local function find_event(id) return lib.lists.by_id(events(), id) end

-- Opens `screen` on the event `id` when there is one (details, or the editor).
local function open_on(screen, id)
  if find_event(id) then nav.push(screen, { id = id }) end
end

-- An id for a new event (copies and added events).
local function take_id()
  local id = tonumber(state.get("next_id")) or 100
  state.set("next_id", id + 1)
  return id
end

local function events_on(date)
  local list = {}
  for _, e in ipairs(events()) do
    if type(e) == "table" and e.date == date and e.status ~= "declined" then table.insert(list, e) end
  end
  table.sort(list, function(a, b)
    if (tonumber(a.start) or 0) ~= (tonumber(b.start) or 0) then return (tonumber(a.start) or 0) < (tonumber(b.start) or 0) end
    return (tonumber(a.id) or 0) < (tonumber(b.id) or 0)
  end)
  return list
end

local function badge_of(e)
  if not e.organizer then return "" end
  local p = person_by_id(e.organizer)
  local status = STATUS_TEXT[e.status or "pending"] or ""
  return "Invitation from " .. (p and p.first or "someone") .. " · " .. status
end

local function event_row(e)
  return { id = e.id, title = trim(e.title) ~= "" and e.title or "(No title)", time = range_text(e), start_text = fmt_time(e.start), location = e.location or "", badge = badge_of(e) }
end

-- ---------------------------------------------------------------- install

function seed_events(ev)
  local today = clock.today()
  local list = {}
  for i, s in ipairs(content.get("events") or {}) do
    table.insert(list, {
      id = i, title = s.title or "", date = add_days(today, tonumber(s.day) or 0),
      start = tonumber(s.start) or 540, ["end"] = tonumber(s["end"]) or 600,
      location = s.location or "", notes = s.notes or "", invitees = s.invitees or {},
      organizer = s.organizer, status = s.organizer and (s.status or "pending") or nil,
    })
  end
  state.set("events", list)
  state.set("next_id", #list + 1)
end

-- ---------------------------------------------------------------- month

function month_view(ev)
  local today = clock.today()
  local selected = locals.get("selected")
  if not parse_date(selected) then selected = today end
  local y = tonumber(locals.get("year"))
  local m = tonumber(locals.get("month"))
  if not y or not m then y, m = parse_date(selected) end
  local busy = {}
  for _, e in ipairs(events()) do
    if type(e) == "table" and e.date and e.status ~= "declined" then busy[e.date] = true end
  end
  local first = days_from_civil(y, m, 1)
  local wd = (first + 3) % 7
  local ny, nm = y, m + 1
  if nm > 12 then ny, nm = y + 1, 1 end
  local days_in = days_from_civil(ny, nm, 1) - first
  local weeks = (wd + days_in + 6) // 7
  local cells = {}
  for k = 0, weeks * 7 - 1 do
    local z = first - wd + k
    local cy, cm, cd = civil_from_days(z)
    local date = fmt_date(cy, cm, cd)
    table.insert(cells, {
      date = date, n = cd, inside = cm == m, today = date == today, selected = date == selected, busy = busy[date] == true,
      label = DAYS[((z + 3) % 7) + 1] .. " " .. MONTH_NAMES[cm] .. " " .. cd .. (busy[date] and ", has events" or "") .. (date == today and ", today" or ""),
    })
  end
  local rows = {}
  for _, e in ipairs(events_on(selected)) do table.insert(rows, event_row(e)) end
  local pending = 0
  for _, e in ipairs(events()) do
    if e.organizer and (e.status == "pending" or e.status == nil) then pending = pending + 1 end
  end
  return {
    cells = cells,
    month_name = MONTH_NAMES[m] .. " " .. y,
    day_events = rows,
    pending = pending,
    pending_text = pending > 0 and (pending .. " pending") or "",
  }
end

-- The month shown and the day selected start at today.
function month_enter(ev)
  local selected = locals.get("selected")
  if not parse_date(selected) then
    selected = clock.today()
    locals.set("selected", selected)
  end
  if not tonumber(locals.get("year")) or not tonumber(locals.get("month")) then
    local y, m = parse_date(selected)
    locals.set("year", y)
    locals.set("month", m)
  end
end

local function shift_month(n)
  local y = tonumber(locals.get("year")) or 2025
  local m = (tonumber(locals.get("month")) or 1) + n
  while m > 12 do m = m - 12; y = y + 1 end
  while m < 1 do m = m + 12; y = y - 1 end
  locals.set("year", y)
  locals.set("month", m)
  -- Keep the selection inside the shown month.
  local today = clock.today()
  local ty, tm = parse_date(today)
  if ty == y and tm == m then locals.set("selected", today) else locals.set("selected", fmt_date(y, m, 1)) end
end

function prev_month(ev) shift_month(-1) end
function next_month(ev) shift_month(1) end

function go_today(ev)
  local y, m = parse_date(clock.today())
  locals.set("year", y)
  locals.set("month", m)
  locals.set("selected", clock.today())
end

function select_day(ev)
  local date = ev.item and ev.item.date
  if not parse_date(date) then return end
  if locals.get("selected") == date then
    nav.push("day", { date = date })
    return
  end
  locals.set("selected", date)
  local y, m = parse_date(date)
  locals.set("year", y)
  locals.set("month", m)
end

function add_on_day(ev)
  local date = ev.item and ev.item.date
  if parse_date(date) then nav.push("edit", { date = date }) end
end

function open_day(ev)
  nav.push("day", { date = locals.get("selected") or clock.today() })
end

function add_event(ev)
  nav.push("edit", { date = locals.get("selected") or clock.today() })
end

function open_event(ev)
  open_on("event", ev.item and ev.item.id)
end

function open_invitations(ev)
  nav.push("invitations")
end

-- ---------------------------------------------------------------- day

function day_view(ev)
  local date = locals.get("date")
  local rows = {}
  local busy = 0
  for _, e in ipairs(events_on(date)) do
    table.insert(rows, event_row(e))
    busy = busy + math.max(0, (tonumber(e["end"]) or 0) - (tonumber(e.start) or 0))
  end
  local summary = "No events"
  if #rows > 0 then
    summary = #rows .. (#rows == 1 and " event" or " events") .. " · " .. (busy // 60) .. " h " .. (busy % 60) .. " min busy"
  end
  return { events = rows, summary = summary }
end

function day_enter(ev)
  if locals.get("date") == nil then
    local d = ev.params and ev.params.date
    locals.set("date", parse_date(d) and d or clock.today())
  end
end

local function shift_day(n)
  locals.set("date", add_days(locals.get("date") or clock.today(), n))
end

function prev_day(ev) shift_day(-1) end
function next_day(ev) shift_day(1) end

function add_event_day(ev)
  nav.push("edit", { date = locals.get("date") or clock.today() })
end

function event_menu(ev)
  lib.collections.row_menu(ev, find_event, "title", {
    { text = "Edit", icon = "edit", handler = "menu_edit" },
    { text = "Duplicate", icon = "content_copy", handler = "menu_duplicate" },
    { text = "Delete", icon = "delete", handler = "menu_delete" },
  })
end

function menu_edit(ev)
  open_on("edit", ev.args and ev.args.id)
end

function menu_duplicate(ev)
  local e = find_event(ev.args and ev.args.id)
  if not e then return end
  local copy = people.copy(e)
  copy.id = take_id()
  copy.organizer = nil
  copy.status = nil
  copy.title = (e.title or "") .. " (copy)"
  state.insert("events", copy)
  ui.toast("Event duplicated")
end

-- Asks before the event `id` is deleted (from a row's menu or the details screen).
local function confirm_delete(id)
  local e = find_event(id)
  if not e then return end
  lib.orders.confirm("Delete event?", "“" .. (e.title or "") .. "” on " .. short_day(e.date) .. " will be deleted.",
    "Delete", "delete_confirmed", { id = e.id })
end

function menu_delete(ev)
  confirm_delete(ev.args and ev.args.id)
end

function delete_confirmed(ev)
  local e, i = find_event(ev.args and ev.args.id)
  if not e then return end
  state.remove("events", i)
  ui.snackbar{ text = "Event deleted", action = "Undo", handler = "undo_delete", args = { event = e } }
  if ev.params and tonumber(ev.params.id) == tonumber(e.id) then
    nav.pop()
  end
end

function undo_delete(ev)
  local e = ev.args and ev.args.event
  if type(e) ~= "table" or find_event(e.id) then return end
  state.insert("events", e)
end

-- ---------------------------------------------------------------- event details

function event_view(ev)
  local copy, e = people.viewed(find_event, ev)
  if not copy then return {} end
  copy.organizer = e.organizer or false
  copy.status = e.status or ""
  local org = e.organizer and person_by_id(e.organizer) or nil
  local guests = {}
  if org then table.insert(guests, { id = org.id, name = org.name, email = org.email, role = "Organizer" }) end
  for _, pid in ipairs(e.invitees or {}) do
    local p = person_by_id(pid)
    if p and (not org or p.id ~= org.id) then table.insert(guests, { id = p.id, name = p.name, email = p.email, role = p.email }) end
  end
  local n = #guests
  return {
    e = copy,
    time = range_text(e),
    organizer = org and org.name or "",
    status_text = STATUS_TEXT[e.status or "pending"] or "",
    guests = guests,
    guest_text = n == 0 and "Guests" or ((n + 1) .. " guests (including you)"),
  }
end

function event_enter(ev)
  if not find_event(ev.params and ev.params.id) then
    nav.pop()
  end
end

function edit_event(ev)
  open_on("edit", ev.params and ev.params.id)
end

function delete_event(ev)
  confirm_delete(ev.params and ev.params.id)
end

function share_event(ev)
  local e = find_event(ev.params and ev.params.id)
  if not e then return end
  local text = (e.title or "") .. "\n" .. short_day(e.date) .. ", " .. range_text(e)
  if trim(e.location) ~= "" then text = text .. "\n" .. e.location end
  ui.share{ text = text }
end

function copy_location(ev)
  local e = find_event(ev.params and ev.params.id)
  if e and trim(e.location) ~= "" then
    clipboard.set(e.location)
    ui.toast("Location copied")
  end
end

function email_guest(ev)
  local it = ev.item
  if type(it) == "table" and trim(it.email) ~= "" then
    local e = find_event(ev.params and ev.params.id)
    people.email(it.email, e and e.title or "")
  end
end

local function respond(id, status)
  local e, i = find_event(id)
  if not e or not e.organizer then return nil end
  state.set("events." .. i .. ".status", status)
  local p = person_by_id(e.organizer)
  local who = p and p.first or "the organizer"
  if status == "accepted" then ui.toast("Accepted. " .. who .. " will be notified")
  elseif status == "declined" then ui.toast("Declined. " .. who .. " will be notified")
  else ui.toast("Replied maybe") end
  return e
end

function rsvp_accept(ev) respond(ev.params and ev.params.id, "accepted") end
function rsvp_decline(ev) respond(ev.params and ev.params.id, "declined") end
function rsvp_maybe(ev) respond(ev.params and ev.params.id, "maybe") end

-- ---------------------------------------------------------------- invitations

function invitations_view(ev)
  local pending, responded = {}, {}
  local list = {}
  for _, e in ipairs(events()) do
    if type(e) == "table" and e.organizer then table.insert(list, e) end
  end
  table.sort(list, function(a, b)
    local ka, kb = (day_number(a.date) or 0) * 1440 + (tonumber(a.start) or 0), (day_number(b.date) or 0) * 1440 + (tonumber(b.start) or 0)
    return ka < kb
  end)
  for _, e in ipairs(list) do
    local p = person_by_id(e.organizer)
    local row = { id = e.id, title = e.title, when = short_day(e.date) .. ", " .. range_text(e), organizer = p and p.name or "Someone", status_text = STATUS_TEXT[e.status or "pending"] or "" }
    if e.status == "pending" or e.status == nil then table.insert(pending, row) else table.insert(responded, row) end
  end
  return { pending = pending, responded = responded }
end

function accept_item(ev) respond(ev.item and ev.item.id, "accepted") end
function decline_item(ev) respond(ev.item and ev.item.id, "declined") end
function maybe_item(ev) respond(ev.item and ev.item.id, "maybe") end

-- ---------------------------------------------------------------- edit

function edit_view(ev)
  local ids = locals.get("invitees") or {}
  local guests = {}
  for _, pid in ipairs(ids) do
    local p = person_by_id(pid)
    if p then table.insert(guests, { id = p.id, name = p.name, email = p.email }) end
  end
  return { guests = guests, guest_text = #guests == 0 and "No guests" or (#guests == 1 and "1 guest" or (#guests .. " guests")) }
end

function edit_enter(ev)
  if locals.get("loaded") then return end
  local p = ev.params or {}
  local e = p.id and find_event(p.id) or nil
  if e then
    locals.set("title", e.title or "")
    locals.set("date", e.date)
    locals.set("start", tonumber(e.start) or 540)
    locals.set("end", tonumber(e["end"]) or 600)
    locals.set("location", e.location or "")
    locals.set("notes", e.notes or "")
    local ids = {}
    for _, id in ipairs(e.invitees or {}) do table.insert(ids, id) end
    locals.set("invitees", ids)
  else
    locals.set("title", "")
    locals.set("date", parse_date(p.date) and p.date or clock.today())
    -- The next full hour, one hour long.
    local start = math.min(((clock.minutes() // 60) + 1) * 60, 22 * 60)
    locals.set("start", start)
    locals.set("end", start + 60)
    locals.set("location", "")
    locals.set("notes", "")
    locals.set("invitees", {})
  end
  locals.set("pick", "")
  locals.set("pick_date", false)
  locals.set("err_title", "")
  locals.set("err_time", "")
  locals.set("loaded", true)
end

local function check_times()
  local s, e = tonumber(locals.get("start")) or 0, tonumber(locals.get("end")) or 0
  if e <= s then
    locals.set("err_time", "End time must be after the start time")
    return false
  end
  locals.set("err_time", "")
  return true
end

function title_changed(ev)
  locals.set("err_title", "")
end

function toggle_date(ev)
  locals.set("pick_date", not locals.get("pick_date"))
  locals.set("pick", "")
end

function date_changed(ev)
  locals.set("pick_date", false)
end

-- Opens the time picker for "start" or "end", or closes it when it is open; the date picker closes.
local function toggle_pick(which)
  locals.set("pick", locals.get("pick") == which and "" or which)
  locals.set("pick_date", false)
end

function pick_start(ev) toggle_pick("start") end
function pick_end(ev) toggle_pick("end") end

function time_changed(ev)
  check_times()
end

function add_people(ev)
  local chosen = {}
  for _, id in ipairs(locals.get("invitees") or {}) do chosen[tonumber(id)] = true end
  local options = {}
  for _, p in ipairs(people.all()) do
    if not chosen[p.id] then
      table.insert(options, { text = p.name, icon = "person", handler = "guest_picked", args = { id = p.id } })
    end
  end
  table.sort(options, function(a, b) return a.text < b.text end)
  if #options == 0 then
    ui.toast("Everyone is already invited")
    return
  end
  ui.sheet{ title = "Invite people", options = options }
end

function guest_picked(ev)
  local id = tonumber(ev.args and ev.args.id)
  if not id or not person_by_id(id) then return end
  local ids = locals.get("invitees") or {}
  for _, x in ipairs(ids) do
    if tonumber(x) == id then return end
  end
  table.insert(ids, id)
  locals.set("invitees", ids)
end

function remove_guest(ev)
  local id = tonumber(ev.item and ev.item.id)
  local ids = locals.get("invitees") or {}
  for k = #ids, 1, -1 do
    if tonumber(ids[k]) == id then table.remove(ids, k) end
  end
  locals.set("invitees", ids)
end

function save_event(ev)
  local title = trim(locals.get("title"))
  local ok = true
  if title == "" then
    locals.set("err_title", "Add a title")
    ok = false
  end
  if not check_times() then ok = false end
  local date = locals.get("date")
  if not parse_date(date) then
    ui.toast("Pick a date")
    ok = false
  end
  if not ok then return end
  local fields = {
    title = title, date = date, start = math.floor(tonumber(locals.get("start")) or 0), ["end"] = math.floor(tonumber(locals.get("end")) or 0),
    location = trim(locals.get("location")), notes = trim(locals.get("notes")), invitees = locals.get("invitees") or {},
  }
  local id = ev.params and ev.params.id
  local old, i = find_event(id)
  if old then
    fields.id = old.id
    fields.organizer = old.organizer
    fields.status = old.status
    state.set("events." .. i, fields)
    ui.toast("Event saved")
    nav.pop()
  else
    fields.id = take_id()
    state.insert("events", fields)
    ui.toast("Event added on " .. short_day(date))
    nav.replace("event", { id = fields.id })
  end
end

function cancel_edit(ev)
  nav.pop()
end
