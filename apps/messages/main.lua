-- Messages: SMS threads with the people of the shared address book.
-- Threads live in state.threads; each screen derives its rows in on_enter.

local MONTHS, DAYS, DAY_NAMES = lib.dates.MONTHS, lib.dates.DAYS, lib.dates.DAY_NAMES
local parse_date, day_number, add_days = lib.dates.parse, lib.dates.day_number, lib.dates.add_days
local weekday, fmt_time = lib.dates.weekday, lib.dates.time
local trim, digits = lib.text.trim, lib.text.digits
local people = lib.people
local confirm = lib.orders.confirm

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
  if diff < 7 then return DAYS[weekday(z)] end
  return short_date(date)
end

local function day_label(date)
  local today = day_number(clock.today())
  local z = day_number(date)
  if not today or not z then return "" end
  if today == z then return "Today" end
  if today - z == 1 then return "Yesterday" end
  return DAY_NAMES[weekday(z)] .. ", " .. short_date(date)
end

local person_by_id, person_by_number = people.by_id, people.by_number

local function threads() return lib.store.list("threads") end
local function find_thread(id) return lib.lists.by_id(threads(), id) end

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

-- The next number of the counter at `key` (next_message, next_thread).
local function take(key)
  local id = tonumber(state.get(key)) or 1
  state.set(key, id + 1)
  return id
end

local function new_thread(number, name, contact_id)
  local t = { id = take("next_thread"), name = name, number = number, contact_id = contact_id, unread = 0, muted = false, pinned = false, blocked = false, messages = {} }
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

-- Opens `screen` (thread, info) on the conversation `id` when there is one.
local function open_on(screen, id)
  if find_thread(id) then nav.push(screen, { id = id }) end
end

function open_thread(ev)
  open_on("thread", ev.item and ev.item.id)
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
  lib.collections.menu(t.name, { id = t.id }, {
    { text = unread and "Mark as read" or "Mark as unread", icon = unread and "mark_chat_read" or "mark_chat_unread", handler = "toggle_read" },
    { text = t.pinned and "Unpin" or "Pin", icon = "push_pin", handler = "pin_from_menu" },
    { text = "Delete", icon = "delete", handler = "delete_from_menu" },
  })
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
  confirm("Delete this conversation?", "Messages with " .. (t.name or "this number") .. " will be deleted from this phone.",
    "Delete", "delete_confirmed", { id = t.id })
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
  local m = { id = take("next_message"), out = out, text = text, date = clock.today(), t = clock.minutes() }
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
  lib.collections.menu("Message", { id = row.id }, {
    { text = "Copy text", icon = "content_copy", handler = "copy_message" },
    { text = "Forward", icon = "forward", handler = "forward_message" },
    { text = "Delete", icon = "delete", handler = "delete_message" },
  })
end

-- The message a menu option is about (args.id) in the conversation on screen, and its position.
local function find_message(ev)
  local t = find_thread(ev.params and ev.params.id)
  return lib.lists.by_id(t and t.messages, ev.args and ev.args.id)
end

function copy_message(ev)
  local m = find_message(ev)
  if m then
    clipboard.set(m.text or "")
    ui.toast("Message copied")
  end
end

function forward_message(ev)
  local m = find_message(ev)
  if m then nav.push("compose", { text = m.text }) end
end

function delete_message(ev)
  local t, i = find_thread(ev.params and ev.params.id)
  local m, k = find_message(ev)
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
  people.call(t.number, t.name)
end

function open_info(ev)
  open_on("info", ev.params and ev.params.id)
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
  confirm("Block " .. (t.name or t.number) .. "?", "You will no longer receive calls or texts from this number.", "Block", "block_confirmed")
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
  if t and t.contact_id then people.show(t.contact_id) end
end

function add_contact(ev)
  local t = find_thread(ev.params and ev.params.id)
  if t then people.add(t.number) end
end

-- ---------------------------------------------------------------- compose

local function looks_like_number(s)
  s = trim(s)
  return s:match("^%+?[%d%s%-%(%)%.]+$") ~= nil and #digits(s) >= 3
end

-- The people whose name, email or number holds what is typed in To.
local function matches_for(to)
  local rows = {}
  for _, p in ipairs(people.search(to, { "name", "email", "phone" })) do
    table.insert(rows, { id = p.id, name = p.name, phone = p.phone })
  end
  return people.sort_by_name(rows)
end

-- Who the new message goes to: a number and the name shown for it ("" and "" for nobody yet).
local function set_recipient(number, name)
  locals.set("number", number)
  locals.set("name", name)
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
    set_recipient(p.number, (type(p.name) == "string" and p.name ~= "" and p.name) or (person and person.name) or p.number)
  else
    set_recipient("", "")
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
    set_recipient(matches[1].phone, matches[1].name)
  elseif q == "" then
    locals.set("to_error", "Enter a name or phone number")
  else
    locals.set("to_error", #matches == 0 and "No contact named “" .. q .. "”" or "Pick one of the matching contacts")
  end
end

function pick_contact(ev)
  local p = ev.item and person_by_id(ev.item.id)
  if not p then return end
  set_recipient(p.phone, p.name)
  locals.set("to_error", "")
end

function pick_number(ev)
  local q = trim(locals.get("to"))
  if not looks_like_number(q) then
    locals.set("to_error", "Phone numbers use digits only")
    return
  end
  local person = person_by_number(q)
  set_recipient(person and person.phone or q, person and person.name or q)
  locals.set("to_error", "")
end

function clear_recipient(ev)
  set_recipient("", "")
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

-- A message found and a person of the row above both open their conversation.
function open_result(ev)
  open_on("thread", ev.item and ev.item.thread)
end

function open_person(ev)
  open_result(ev)
end

function go_back(ev)
  nav.pop()
end
