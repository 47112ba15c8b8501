-- Messages: SMS threads with the people of the shared address book.
-- Threads live in state.threads; each screen derives its rows in on_enter.

local MONTHS = lib.dates.MONTHS

local trim = lib.text.trim
local digits = lib.text.digits
local parse_date = lib.dates.parse
local day_number = lib.dates.day_number
local add_days = lib.dates.add_days
local fmt_time = lib.dates.time

local function short_date(text)
  local y, m, d = parse_date(text)
  if not y then return "" end
  return MONTHS[m] .. " " .. d
end

-- "09:12" today, "Yesterday", "Mon"... within a week, "Oct 3" before.
local function when(date, t)
  local today = day_number(clock.today())
  local z = day_number(date)
  if not today or not z then return "" end
  local diff = today - z
  if diff <= 0 then return fmt_time(t) end
  if diff == 1 then return "Yesterday" end
  if diff < 7 then
    local names = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" }
    return names[((z + 3) % 7) + 1]
  end
  return short_date(date)
end

local function day_label(date)
  local today = day_number(clock.today())
  local z = day_number(date)
  if not today or not z then return "" end
  if today == z then return "Today" end
  if today - z == 1 then return "Yesterday" end
  local names = { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday" }
  return names[((z + 3) % 7) + 1] .. ", " .. short_date(date)
end

local function people()
  local list = content.get("people")
  if type(list) ~= "table" then return {} end
  return list
end

local function person_by_id(id)
  for _, p in ipairs(people()) do
    if p.id == id then return p end
  end
  return nil
end

local function person_by_number(number)
  local d = digits(number)
  if d == "" then return nil end
  for _, p in ipairs(people()) do
    local pd = p.digits or digits(p.phone)
    if pd == d or (#d >= 7 and pd:sub(-#d) == d) then return p end
  end
  return nil
end

local function threads()
  local list = state.get("threads")
  if type(list) ~= "table" then return {} end
  return list
end

local function find_thread(id)
  id = tonumber(id)
  if not id then return nil end
  for i, t in ipairs(threads()) do
    if type(t) == "table" and tonumber(t.id) == id then return t, i end
  end
  return nil
end

local function find_thread_by_number(number)
  local d = digits(number)
  if d == "" then return nil end
  for i, t in ipairs(threads()) do
    if type(t) == "table" and digits(t.number) == d then return t, i end
  end
  return nil
end

local function last_message(t)
  local msgs = type(t) == "table" and t.messages or nil
  if type(msgs) ~= "table" or #msgs == 0 then return nil end
  return msgs[#msgs]
end

local function sort_key(t)
  local m = last_message(t)
  if not m then return 0 end
  return (day_number(m.date) or 0) * 1440 + (tonumber(m.t) or 0) + (tonumber(m.seq) or 0) / 100000
end

local function new_msg_id()
  local id = tonumber(state.get("next_message")) or 1
  state.set("next_message", id + 1)
  return id
end

local function new_thread(number, name, contact_id)
  local id = tonumber(state.get("next_thread")) or 1
  state.set("next_thread", id + 1)
  local t = { id = id, name = name, number = number, contact_id = contact_id, unread = 0, muted = false, pinned = false, blocked = false, messages = {} }
  state.insert("threads", t, 1)
  return t
end

-- ---------------------------------------------------------------- install

function seed_threads(ev)
  local today = clock.today()
  local list = {}
  local tid, mid = 1, 1
  for _, c in ipairs(content.get("conversations") or {}) do
    local p = c.person and person_by_id(c.person) or nil
    local number = p and p.phone or c.number or ""
    local date = add_days(today, -(tonumber(c.days_ago) or 0))
    local t = {
      id = tid, name = p and p.name or number, number = number, contact_id = p and p.id or nil,
      unread = tonumber(c.unread) or 0, muted = false, pinned = false, blocked = false, messages = {},
    }
    for _, m in ipairs(c.messages or {}) do
      table.insert(t.messages, { id = mid, out = m.out == true, text = m.text or "", date = date, t = tonumber(m.t) or 0, seq = mid })
      mid = mid + 1
    end
    table.insert(list, t)
    tid = tid + 1
  end
  state.set("threads", list)
  state.set("next_thread", tid)
  state.set("next_message", mid)
end

-- ---------------------------------------------------------------- inbox

function inbox_view(ev)
  local list = {}
  for _, t in ipairs(threads()) do
    if type(t) == "table" then table.insert(list, t) end
  end
  table.sort(list, function(a, b)
    if (a.pinned == true) ~= (b.pinned == true) then return a.pinned == true end
    return sort_key(a) > sort_key(b)
  end)
  local rows = {}
  for _, t in ipairs(list) do
    local m = last_message(t)
    local snippet = m and ((m.out and "You: " or "") .. (m.text or "")) or "No messages"
    table.insert(rows, {
      id = t.id, name = t.name or t.number or "Unknown", snippet = snippet,
      when = m and when(m.date, m.t) or "", unread = (tonumber(t.unread) or 0) > 0, pinned = t.pinned == true,
    })
  end
  return { threads = rows }
end

function open_thread(ev)
  local id = ev.item and ev.item.id
  if find_thread(id) then nav.push("thread", { id = id }) end
end

function start_chat(ev)
  nav.push("compose", {})
end

function open_search(ev)
  nav.push("search")
end

function inbox_menu(ev)
  ui.sheet{
    title = "Messages",
    options = {
      { text = "Mark all as read", icon = "mark_chat_read", handler = "mark_all_read" },
      { text = "Start chat", icon = "chat", handler = "start_chat" },
    },
  }
end

function mark_all_read(ev)
  for i, t in ipairs(threads()) do
    if type(t) == "table" and (tonumber(t.unread) or 0) > 0 then state.set("threads." .. i .. ".unread", 0) end
  end
  ui.toast("All conversations marked as read")
end

function thread_menu(ev)
  local t = find_thread(ev.item and ev.item.id)
  if not t then return end
  local unread = (tonumber(t.unread) or 0) > 0
  ui.sheet{
    title = t.name,
    options = {
      { text = unread and "Mark as read" or "Mark as unread", icon = unread and "mark_chat_read" or "mark_chat_unread", handler = "toggle_read", args = { id = t.id } },
      { text = t.pinned and "Unpin" or "Pin", icon = "push_pin", handler = "pin_from_menu", args = { id = t.id } },
      { text = "Delete", icon = "delete", handler = "delete_from_menu", args = { id = t.id } },
    },
  }
end

function toggle_read(ev)
  local t, i = find_thread(ev.args and ev.args.id)
  if not t then return end
  state.set("threads." .. i .. ".unread", (tonumber(t.unread) or 0) > 0 and 0 or 1)
end

function pin_from_menu(ev)
  local t, i = find_thread(ev.args and ev.args.id)
  if not t then return end
  state.set("threads." .. i .. ".pinned", not t.pinned)
end

local function confirm_delete(t)
  ui.dialog{
    title = "Delete this conversation?",
    text = "Messages with " .. (t.name or "this number") .. " will be deleted from this phone.",
    buttons = {
      { text = "Cancel" },
      { text = "Delete", handler = "delete_confirmed", args = { id = t.id } },
    },
  }
end

function delete_from_menu(ev)
  local t = find_thread(ev.args and ev.args.id)
  if t then confirm_delete(t) end
end

function delete_confirmed(ev)
  local t, i = find_thread(ev.args and ev.args.id)
  if not t then return end
  state.remove("threads", i)
  ui.toast("Conversation deleted")
  if ev.params and ev.params.id ~= nil then
    -- Deleted from the details screen: leave the thread too.
    nav.pop()
    nav.pop()
  end
end

-- ---------------------------------------------------------------- thread

function thread_view(ev)
  local t = find_thread(ev.params and ev.params.id)
  if not t then return {} end
  local rows = {}
  local last_day = nil
  local msgs = t.messages or {}
  for k, m in ipairs(msgs) do
    local row = { id = m.id, text = m.text or "", out = m.out == true, day = "", meta = "" }
    if m.date ~= last_day then row.day = day_label(m.date); last_day = m.date end
    local nxt = msgs[k + 1]
    if not nxt or nxt.out ~= m.out or nxt.date ~= m.date or (tonumber(nxt.t) or 0) - (tonumber(m.t) or 0) > 5 then
      row.meta = fmt_time(m.t)
      if m.out and k == #msgs then row.meta = row.meta .. (m.failed and " · Not sent" or " · Delivered") end
    end
    table.insert(rows, row)
  end
  return { msgs = rows, name = t.name or t.number or "", blocked = t.blocked == true }
end

function thread_enter(ev)
  local t, i = find_thread(ev.params and ev.params.id)
  if not t then
    ui.toast("Conversation not found")
    nav.pop()
    return
  end
  if (tonumber(t.unread) or 0) > 0 then state.set("threads." .. i .. ".unread", 0) end
  if locals.get("draft") == nil then locals.set("draft", "") end
end

local function append_message(t, i, text, out)
  local m = { id = new_msg_id(), out = out, text = text, date = clock.today(), t = clock.minutes() }
  m.seq = m.id
  state.insert("threads." .. i .. ".messages", m)
  return m
end

local function schedule_reply(t)
  if not t.contact_id or t.blocked then return end
  local delay = 20000 + math.random(0, 40) * 1000
  timer.after(delay, "auto_reply", { id = t.id })
end

function send_message(ev)
  local id = ev.params and ev.params.id
  local text = trim(locals.get("draft"))
  if text == "" then return end
  local t, i = find_thread(id)
  if not t then return end
  append_message(t, i, text, true)
  locals.set("draft", "")
  schedule_reply(t)
end

function auto_reply(ev)
  local id = ev.args and ev.args.id
  local t, i = find_thread(id)
  if not t or t.blocked then return end
  local replies = content.get("replies") or { "Ok" }
  local text = replies[math.random(1, #replies)] or "Ok"
  append_message(t, i, text, false)
  state.set("threads." .. i .. ".unread", (tonumber(t.unread) or 0) + 1)
  if not t.muted then
    ui.notify{ title = t.name or t.number, text = text, icon = "sms", screen = "thread", params = { id = t.id } }
  end
end

function attach(ev)
  ui.sheet{
    title = "Attach",
    options = {
      { text = "Paste from clipboard", icon = "content_paste", handler = "paste_clipboard" },
      { text = "Share my location", icon = "place", handler = "insert_location" },
    },
  }
end

function paste_clipboard(ev)
  local text = clipboard.get()
  if type(text) ~= "string" or text == "" then
    ui.toast("Clipboard is empty")
    return
  end
  local draft = locals.get("draft") or ""
  locals.set("draft", draft .. text)
end

function insert_location(ev)
  local draft = locals.get("draft") or ""
  locals.set("draft", trim(draft .. " My location: 37.7749, -122.4194"))
end

function message_menu(ev)
  local row = ev.item
  if type(row) ~= "table" then return end
  ui.sheet{
    title = "Message",
    options = {
      { text = "Copy text", icon = "content_copy", handler = "copy_message", args = { id = row.id } },
      { text = "Forward", icon = "forward", handler = "forward_message", args = { id = row.id } },
      { text = "Delete", icon = "delete", handler = "delete_message", args = { id = row.id } },
    },
  }
end

local function find_message(t, mid)
  mid = tonumber(mid)
  for k, m in ipairs((t and t.messages) or {}) do
    if tonumber(m.id) == mid then return m, k end
  end
  return nil
end

function copy_message(ev)
  local t = find_thread(ev.params and ev.params.id)
  local m = find_message(t, ev.args and ev.args.id)
  if m then
    clipboard.set(m.text or "")
    ui.toast("Message copied")
  end
end

function forward_message(ev)
  local t = find_thread(ev.params and ev.params.id)
  local m = find_message(t, ev.args and ev.args.id)
  if m then nav.push("compose", { text = m.text }) end
end

function delete_message(ev)
  local id = ev.params and ev.params.id
  local t, i = find_thread(id)
  local m, k = find_message(t, ev.args and ev.args.id)
  if not m then return end
  state.remove("threads." .. i .. ".messages", k)
  ui.snackbar{ text = "Message deleted", action = "Undo", handler = "undo_delete_message", args = { thread = t.id, pos = k, message = m } }
end

function undo_delete_message(ev)
  local a = ev.args or {}
  local t, i = find_thread(a.thread)
  if not t or type(a.message) ~= "table" then return end
  local pos = math.min(tonumber(a.pos) or 1, #(t.messages or {}) + 1)
  state.insert("threads." .. i .. ".messages", a.message, pos)
end

function call_thread(ev)
  local t = find_thread(ev.params and ev.params.id)
  if not t then return end
  nav.open_app("com.phoneworld.phone", "in_call", { number = t.number, name = t.name })
end

function open_info(ev)
  local id = ev.params and ev.params.id
  if find_thread(id) then nav.push("info", { id = id }) end
end

-- ---------------------------------------------------------------- details

function info_view(ev)
  local t = find_thread(ev.params and ev.params.id)
  if not t then return {} end
  return {
    name = t.name or t.number or "",
    number = t.number or "",
    contact_id = t.contact_id or false,
    muted = t.muted == true,
    pinned = t.pinned == true,
    blocked = t.blocked == true,
  }
end

function info_enter(ev)
  if not find_thread(ev.params and ev.params.id) then nav.pop() end
end

local function toggle_field(ev, field, on_text, off_text)
  local id = ev.params and ev.params.id
  local t, i = find_thread(id)
  if not t then return end
  local v = not (t[field] == true)
  state.set("threads." .. i .. "." .. field, v)
  ui.toast(v and on_text or off_text)
end

function toggle_mute(ev) toggle_field(ev, "muted", "Notifications muted", "Notifications on") end
function toggle_pin(ev) toggle_field(ev, "pinned", "Pinned", "Unpinned") end

function toggle_block(ev)
  local t = find_thread(ev.params and ev.params.id)
  if not t then return end
  if t.blocked then
    toggle_field(ev, "blocked", "Blocked", "Unblocked")
    return
  end
  ui.dialog{
    title = "Block " .. (t.name or t.number) .. "?",
    text = "You will no longer receive calls or texts from this number.",
    buttons = { { text = "Cancel" }, { text = "Block", handler = "block_confirmed" } },
  }
end

function block_confirmed(ev)
  toggle_field(ev, "blocked", "Blocked", "Unblocked")
end

function delete_thread(ev)
  local t = find_thread(ev.params and ev.params.id)
  if t then confirm_delete(t) end
end

function open_contact(ev)
  local t = find_thread(ev.params and ev.params.id)
  if t and t.contact_id then nav.open_app("com.phoneworld.contacts", "detail", { id = t.contact_id }) end
end

function add_contact(ev)
  local t = find_thread(ev.params and ev.params.id)
  if t then nav.open_app("com.phoneworld.contacts", "edit", { phone = t.number }) end
end

-- ---------------------------------------------------------------- compose

local function looks_like_number(s)
  s = trim(s)
  return s:match("^%+?[%d%s%-%(%)%.]+$") ~= nil and #digits(s) >= 3
end

-- The people whose name, email or number holds what is typed in To.
local function matches_for(to)
  local q = trim(to):lower()
  local qd = digits(q)
  local rows = {}
  for _, p in ipairs(people()) do
    local hit = q == ""
      or (p.name or ""):lower():find(q, 1, true) ~= nil
      or (p.email or ""):lower():find(q, 1, true) ~= nil
      or (#qd >= 2 and (p.digits or digits(p.phone)):find(qd, 1, true) ~= nil)
    if hit then table.insert(rows, { id = p.id, name = p.name, phone = p.phone }) end
  end
  table.sort(rows, function(a, b) return a.name < b.name end)
  return rows
end

function compose_view(ev)
  local to = locals.get("to")
  return { matches = matches_for(to), to_is_number = looks_like_number(trim(to):lower()) }
end

function compose_enter(ev)
  if locals.get("loaded") then return end
  local p = ev.params or {}
  locals.set("to", "")
  locals.set("to_error", "")
  locals.set("text", type(p.text) == "string" and p.text or "")
  if type(p.number) == "string" and p.number ~= "" then
    local person = person_by_number(p.number)
    locals.set("number", p.number)
    locals.set("name", (type(p.name) == "string" and p.name ~= "" and p.name) or (person and person.name) or p.number)
  else
    locals.set("number", "")
    locals.set("name", "")
  end
  locals.set("loaded", true)
end

function to_changed(ev)
  locals.set("to_error", "")
end

function to_submit(ev)
  local q = trim(locals.get("to"))
  local matches = matches_for(q)
  if looks_like_number(q) then
    pick_number(ev)
  elseif #matches == 1 then
    locals.set("number", matches[1].phone)
    locals.set("name", matches[1].name)
  elseif q == "" then
    locals.set("to_error", "Enter a name or phone number")
  else
    locals.set("to_error", #matches == 0 and "No contact named “" .. q .. "”" or "Pick one of the matching contacts")
  end
end

function pick_contact(ev)
  local p = ev.item and person_by_id(ev.item.id)
  if not p then return end
  locals.set("number", p.phone)
  locals.set("name", p.name)
  locals.set("to_error", "")
end

function pick_number(ev)
  local q = trim(locals.get("to"))
  if not looks_like_number(q) then
    locals.set("to_error", "Phone numbers use digits only")
    return
  end
  local person = person_by_number(q)
  locals.set("number", person and person.phone or q)
  locals.set("name", person and person.name or q)
  locals.set("to_error", "")
end

function clear_recipient(ev)
  locals.set("number", "")
  locals.set("name", "")
end

function compose_send(ev)
  local number = trim(locals.get("number"))
  local text = trim(locals.get("text"))
  if number == "" then
    locals.set("to_error", "Pick a recipient first")
    return
  end
  if text == "" then
    ui.toast("Type a message first")
    return
  end
  local t, i = find_thread_by_number(number)
  if not t then
    local person = person_by_number(number)
    new_thread(number, person and person.name or locals.get("name") or number, person and person.id or nil)
    t, i = find_thread_by_number(number)
  end
  if not t then return end
  append_message(t, i, text, true)
  schedule_reply(t)
  nav.replace("thread", { id = t.id })
end

function receive_share(ev)
  local a = ev.args or {}
  local text = a.text
  if type(text) ~= "string" then
    text = type(a.item) == "table" and (a.item.text or a.item.title or a.item.name) or ""
    if type(text) ~= "string" then text = "" end
  end
  nav.push("compose", { text = text })
end

-- ---------------------------------------------------------------- search

function search_view(ev)
  local q = trim(locals.get("query")):lower()
  local rows = {}
  if q ~= "" then
    for _, t in ipairs(threads()) do
      for k = #(t.messages or {}), 1, -1 do
        local m = t.messages[k]
        if (m.text or ""):lower():find(q, 1, true) or (t.name or ""):lower():find(q, 1, true) then
          table.insert(rows, { thread = t.id, name = t.name or t.number, text = (m.out and "You: " or "") .. (m.text or ""), when = when(m.date, m.t), key = (day_number(m.date) or 0) * 1440 + (tonumber(m.t) or 0) })
        end
      end
    end
    table.sort(rows, function(a, b) return a.key > b.key end)
  end
  local ppl = {}
  for _, t in ipairs(threads()) do
    if t.contact_id and #ppl < 8 then
      local p = person_by_id(t.contact_id)
      table.insert(ppl, { thread = t.id, name = t.name, first = p and p.first or t.name })
    end
  end
  return { results = rows, count_text = #rows == 1 and "1 message" or (#rows .. " messages"), people = ppl }
end

function search_enter(ev)
  if locals.get("query") == nil then locals.set("query", "") end
end

function clear_search(ev)
  locals.set("query", "")
end

function open_result(ev)
  local id = ev.item and ev.item.thread
  if find_thread(id) then nav.push("thread", { id = id }) end
end

function open_person(ev)
  local id = ev.item and ev.item.thread
  if find_thread(id) then nav.push("thread", { id = id }) end
end

function go_back(ev)
  nav.pop()
end
