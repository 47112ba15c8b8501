-- Email: a mailbox with folders. Mail lives in state.emails; every screen derives its rows.
local civil_from_days = clock.civil_from_days

local MONTHS = lib.dates.MONTHS
local FOLDER_NAMES = { inbox = "Inbox", starred = "Starred", sent = "Sent", drafts = "Drafts", archive = "Archive", trash = "Trash" }
local EMPTY = {
  inbox = { "inbox", "You're all caught up", "New mail shows up here." },
  starred = { "star_border", "No starred mail", "Tap the star on a message to find it here." },
  sent = { "send", "Nothing sent yet", "" },
  drafts = { "drafts", "No drafts", "" },
  archive = { "archive", "Archive is empty", "Archived mail leaves the inbox but stays searchable." },
  trash = { "delete_outline", "Trash is empty", "" },
}

local trim = lib.text.trim
local day_number, add_days, fmt_time = lib.dates.day_number, lib.dates.add_days, lib.dates.time
local confirm = lib.orders.confirm

local function when(date, t)
  local today = day_number(clock.today())
  local z = day_number(date)
  if not today or not z then return "" end
  if z >= today then return fmt_time(t) end
  local y, m, d = civil_from_days(z)
  return MONTHS[m] .. " " .. d
end

local function long_when(date, t)
  local z = day_number(date)
  if not z then return "" end
  local y, m, d = civil_from_days(z)
  return MONTHS[m] .. " " .. d .. ", " .. fmt_time(t)
end

local function snippet_of(body)
  local s = trim((type(body) == "string" and body or ""):gsub("%s+", " "))
  if #s > 90 then s = s:sub(1, 90) end
  return s
end

local function me()
  return content.get("mail.me") or { name = "Me", email = "me@phoneworld.com" }
end

local people = lib.people

local function name_for_email(addr)
  local p = people.by_email(addr)
  return p and p.name
end

local function emails() return lib.store.list("emails") end
local function find_email(id) return lib.lists.by_id(emails(), id) end

local function stamp(e)
  return (day_number(e.date) or 0) * 1440 + (tonumber(e.t) or 0)
end

local function who(e)
  if e.folder == "sent" or e.folder == "drafts" then
    local to = trim(e.to)
    if e.folder == "drafts" then return "Draft" .. (to ~= "" and (" to " .. (name_for_email(to) or to)) or "") end
    return "To: " .. (name_for_email(to) or to)
  end
  return e.from_name or e.from_email or "Unknown"
end

local function in_folder(e, folder)
  if folder == "starred" then return e.starred == true and e.folder ~= "trash" end
  return e.folder == folder
end

-- A mail of mine (sent, or a draft): read and not starred.
local function my_mail(folder, to, subject, body, date, t)
  local myself = me()
  return {
    folder = folder, from_name = myself.name, from_email = myself.email, to = to,
    subject = subject, body = body, date = date, t = t, unread = false, starred = false,
  }
end

local function next_id() return lib.collections.take_id("next_id") end

-- ---------------------------------------------------------------- install

function seed_inbox(ev)
  local mail = content.get("mail") or {}
  local today = clock.today()
  local now = clock.minutes()
  local list = {}
  local id = 1
  local function add(e)
    e.id = id
    id = id + 1
    table.insert(list, e)
  end
  local personal = mail.personal or {}
  local services = mail.services or {}
  local ppl = people.all()
  local myself = me()
  -- 34 received mails over the last three weeks, newest first.
  local day, t = 0, now - math.random(3, 20)
  for n = 1, 34 do
    if t < 420 then
      day = day + 1 + (math.random() < 0.3 and 1 or 0)
      t = math.random(1080, 1380)
    end
    local e = { date = add_days(today, -day), t = t, to = myself.email, folder = "inbox" }
    if math.random() < 0.65 and #ppl > 0 and #personal > 0 then
      local p = ppl[math.random(1, #ppl)]
      local tpl = personal[math.random(1, #personal)]
      e.from_name, e.from_email = p.name, p.email
      e.subject = tpl.subject
      e.body = (tpl.body or ""):gsub("{first}", p.first or p.name)
    elseif #services > 0 then
      local s = services[math.random(1, #services)]
      e.from_name, e.from_email, e.subject, e.body = s.name, s.email, s.subject, s.body
    end
    e.unread = day == 0 and math.random() < 0.8 or (day <= 2 and math.random() < 0.4) or math.random() < 0.08
    e.starred = math.random() < 0.15
    if day > 7 and math.random() < 0.25 then e.folder = "archive" end
    add(e)
    t = t - math.random(25, 200)
  end
  -- Sent mail one a day before today, drafts from today back, to people of the address book.
  local function add_mine(folder, list, back, latest)
    for k, s in ipairs(list or {}) do
      local p = people.by_id(s.person)
      add(my_mail(folder, p and p.email or "", s.subject, s.body, add_days(today, -(k - back)), math.random(480, latest)))
    end
  end
  add_mine("sent", mail.sent, 0, 1260)
  add_mine("drafts", mail.drafts, 1, 1000)
  table.sort(list, function(a, b)
    if stamp(a) ~= stamp(b) then return stamp(a) > stamp(b) end
    return a.id < b.id
  end)
  state.set("emails", list)
  state.set("next_id", id)
  state.set("folder", "inbox")
end

-- ---------------------------------------------------------------- inbox

local function row_of(e)
  return {
    id = e.id, who = who(e), subject = trim(e.subject) ~= "" and e.subject or "(no subject)", snippet = snippet_of(e.body),
    when = when(e.date, e.t), unread = e.unread == true, starred = e.starred == true,
    folder_name = FOLDER_NAMES[e.folder] or "",
  }
end

-- The inbox screen's view (`view` in screens/inbox.ron): the rows of the current folder and
-- what the header and the empty state say, derived from the mail each time it is drawn.
function inbox_view(ev)
  local folder = state.get("folder")
  if not FOLDER_NAMES[folder] then folder = "inbox" end
  local rows, unread = {}, 0
  local list = {}
  for _, e in ipairs(emails()) do
    if type(e) == "table" and in_folder(e, folder) then table.insert(list, e) end
  end
  table.sort(list, function(a, b)
    if stamp(a) ~= stamp(b) then return stamp(a) > stamp(b) end
    return (tonumber(a.id) or 0) > (tonumber(b.id) or 0)
  end)
  for _, e in ipairs(list) do
    table.insert(rows, row_of(e))
    if e.unread then unread = unread + 1 end
  end
  local count = #rows .. (#rows == 1 and " message" or " messages")
  if unread > 0 then count = count .. " · " .. unread .. " unread" end
  local empty = EMPTY[folder] or EMPTY.inbox
  return {
    rows = rows, folder = folder, folder_name = FOLDER_NAMES[folder], count_text = count,
    empty_icon = empty[1], empty_title = empty[2], empty_text = empty[3],
  }
end

function open_search(ev)
  nav.push("search")
end

function open_folders(ev)
  nav.push("folders")
end

function compose_new(ev)
  nav.push("compose", {})
end

function open_email(ev)
  local e = find_email(ev.item and ev.item.id)
  if not e then return end
  if e.folder == "drafts" then
    nav.push("compose", { draft = e.id })
  else
    nav.push("read", { id = e.id })
  end
end

local function toggle_star(id)
  local e, i = find_email(id)
  if not e then return nil end
  state.set("emails." .. i .. ".starred", not e.starred)
  return not e.starred
end

function toggle_row_star(ev)
  toggle_star(ev.item and ev.item.id)
end

-- Moves a mail to a folder with an Undo snackbar.
local function move(id, folder, text)
  local e, i = find_email(id)
  if not e then return nil end
  local old = e.folder
  state.set("emails." .. i .. ".folder", folder)
  ui.snackbar{ text = text, action = "Undo", handler = "undo_move", args = { id = e.id, folder = old } }
  return e
end

function undo_move(ev)
  local a = ev.args or {}
  local e, i = find_email(a.id)
  if not e or not FOLDER_NAMES[a.folder] then return end
  state.set("emails." .. i .. ".folder", a.folder)
end

local function delete_email(id)
  local e, i = find_email(id)
  if not e then return end
  if e.folder == "trash" then
    state.remove("emails", i)
    ui.toast("Deleted forever")
  else
    move(id, "trash", e.folder == "drafts" and "Draft discarded" or "Moved to Trash")
  end
end

function email_menu(ev)
  local e = find_email(ev.item and ev.item.id)
  if not e then return end
  local opts = {
    { text = e.unread and "Mark as read" or "Mark as unread", icon = e.unread and "drafts" or "mark_email_unread", handler = "menu_toggle_read" },
    { text = e.starred and "Remove star" or "Add star", icon = "star", handler = "menu_star" },
  }
  if e.folder == "inbox" then
    table.insert(opts, { text = "Archive", icon = "archive", handler = "menu_archive" })
  elseif e.folder == "archive" or e.folder == "trash" then
    table.insert(opts, { text = "Move to Inbox", icon = "move_to_inbox", handler = "menu_to_inbox" })
  end
  table.insert(opts, { text = e.folder == "trash" and "Delete forever" or "Delete", icon = "delete", handler = "menu_delete" })
  lib.collections.menu(trim(e.subject) ~= "" and e.subject or "(no subject)", { id = e.id }, opts)
end

function menu_toggle_read(ev)
  local e, i = find_email(ev.args and ev.args.id)
  if not e then return end
  state.set("emails." .. i .. ".unread", not e.unread)
end

function menu_star(ev)
  toggle_star(ev.args and ev.args.id)
end

function menu_archive(ev)
  move(ev.args and ev.args.id, "archive", "Archived")
end

function menu_to_inbox(ev)
  move(ev.args and ev.args.id, "inbox", "Moved to Inbox")
end

function menu_delete(ev)
  delete_email(ev.args and ev.args.id)
end

function empty_trash(ev)
  confirm("Empty Trash?", "All messages in Trash will be deleted forever.", "Empty Trash", "empty_trash_confirmed")
end

function empty_trash_confirmed(ev)
  local list = emails()
  for i = #list, 1, -1 do
    if list[i].folder == "trash" then state.remove("emails", i) end
  end
  ui.toast("Trash emptied")
end

-- ---------------------------------------------------------------- folders

function folders_view(ev)
  local current = state.get("folder") or "inbox"
  local counts = {}
  for _, e in ipairs(emails()) do
    if e.folder == "drafts" then
      counts.drafts = (counts.drafts or 0) + 1
    elseif e.unread and e.folder == "inbox" then
      counts.inbox = (counts.inbox or 0) + 1
    end
    if e.starred and e.folder ~= "trash" then counts.starred = (counts.starred or 0) + 1 end
  end
  local rows = {}
  for _, f in ipairs(content.get("folders") or {}) do
    local c = counts[f.id]
    table.insert(rows, { id = f.id, name = f.name, icon = f.icon, badge = c and tostring(c) or "", current = f.id == current })
  end
  return { folders = rows }
end

function pick_folder(ev)
  local id = ev.item and ev.item.id
  if not FOLDER_NAMES[id] then return end
  state.set("folder", id)
  nav.pop()
  -- The inbox below derives its rows in on_enter, which does not run again when a screen is
  -- popped back into view: open it afresh so it shows the chosen folder.
  nav.replace("inbox")
end

-- ---------------------------------------------------------------- read

function read_view(ev)
  local copy, e = people.viewed(find_email, ev)
  if not copy then return {} end
  copy.starred = e.starred == true
  if trim(copy.subject) == "" then copy.subject = "(no subject)" end
  local to = trim(e.to)
  return {
    m = copy,
    when = long_when(e.date, e.t),
    to_text = to == me().email and "me" or (name_for_email(to) or to),
    folder_label = FOLDER_NAMES[e.folder] or "",
  }
end

function read_enter(ev)
  local e, i = find_email(ev.params and ev.params.id)
  if not e then
    ui.toast("Message not found")
    nav.pop()
    return
  end
  if e.unread and not locals.get("kept_unread") then state.set("emails." .. i .. ".unread", false) end
end

function toggle_star_current(ev)
  local id = ev.params and ev.params.id
  local on = toggle_star(id)
  if on ~= nil then ui.toast(on and "Starred" or "Star removed") end
end

function archive_current(ev)
  if move(ev.params and ev.params.id, "archive", "Archived") then nav.pop() end
end

function inbox_current(ev)
  if move(ev.params and ev.params.id, "inbox", "Moved to Inbox") then nav.pop() end
end

function delete_current(ev)
  local id = ev.params and ev.params.id
  if find_email(id) then
    delete_email(id)
    nav.pop()
  end
end

function mark_unread_current(ev)
  local e, i = find_email(ev.params and ev.params.id)
  if not e then return end
  state.set("emails." .. i .. ".unread", true)
  locals.set("kept_unread", true)
  ui.toast("Marked as unread")
  nav.pop()
end

function read_menu(ev)
  local e = find_email(ev.params and ev.params.id)
  if not e then return end
  ui.sheet{
    title = "Message",
    options = {
      { text = "Reply", icon = "reply", handler = "reply" },
      { text = "Forward", icon = "forward", handler = "forward" },
      { text = "Copy text", icon = "content_copy", handler = "copy_body" },
      { text = "Share", icon = "share", handler = "share_email" },
    },
  }
end

function copy_body(ev)
  local e = find_email(ev.params and ev.params.id)
  if e then
    clipboard.set(e.body or "")
    ui.toast("Copied to clipboard")
  end
end

function share_email(ev)
  local e = find_email(ev.params and ev.params.id)
  if e then ui.share{ text = (e.subject or "") .. "\n\n" .. (e.body or "") } end
end

local function quoted(e)
  local lines = {}
  for line in ((e.body or "") .. "\n"):gmatch("(.-)\n") do table.insert(lines, "> " .. line) end
  return "On " .. long_when(e.date, e.t) .. ", " .. (e.from_name or e.from_email or "") .. " wrote:\n" .. table.concat(lines, "\n")
end

-- The subject of a reply or a forward: "Re: " or "Fwd: " before it unless it starts so already.
local function prefixed(e, prefix)
  local subject = trim(e.subject)
  if subject:lower():sub(1, #prefix) ~= prefix:lower() then subject = prefix .. " " .. subject end
  return subject
end

function reply(ev)
  local e = find_email(ev.params and ev.params.id)
  if not e then return end
  local subject = prefixed(e, "Re:")
  local to = e.folder == "sent" and e.to or e.from_email
  nav.push("compose", { to = to, subject = subject, body = "\n\n" .. quoted(e), mode = "reply" })
end

function forward(ev)
  local e = find_email(ev.params and ev.params.id)
  if not e then return end
  local subject = prefixed(e, "Fwd:")
  local header = "---------- Forwarded message ----------\nFrom: " .. (e.from_name or "") .. " <" .. (e.from_email or "") .. ">\nDate: " .. long_when(e.date, e.t) .. "\nSubject: " .. (e.subject or "") .. "\n\n"
  nav.push("compose", { to = "", subject = subject, body = "\n\n" .. header .. (e.body or ""), mode = "forward" })
end

-- ---------------------------------------------------------------- compose

local function valid_email(s)
  return trim(s):match("^[^@%s,]+@[^@%s,]+%.[^@%s,]+$") ~= nil
end

local function recipients(text)
  local out = {}
  for part in (type(text) == "string" and text or ""):gmatch("[^,;]+") do
    local p = trim(part)
    if p ~= "" then table.insert(out, p) end
  end
  return out
end

-- People whose name or address holds what is being typed after the last comma in To.
function compose_view(ev)
  local to = type(locals.get("to")) == "string" and locals.get("to") or ""
  local last = trim(to:match("([^,;]*)$") or ""):lower()
  local rows = {}
  if #last >= 1 and not valid_email(last) then
    for _, p in ipairs(people.search(last, { "name", "email" })) do
      table.insert(rows, { id = p.id, name = p.name, email = p.email })
      if #rows >= 4 then break end
    end
  end
  return { suggest = rows }
end

function compose_enter(ev)
  if locals.get("loaded") then return end
  local p = ev.params or {}
  local draft = p.draft and find_email(p.draft) or nil
  if draft then
    locals.set("to", draft.to or "")
    locals.set("subject", draft.subject or "")
    locals.set("body", draft.body or "")
    locals.set("draft_id", draft.id)
    locals.set("title", "Draft")
  else
    locals.set("to", type(p.to) == "string" and p.to or "")
    locals.set("subject", type(p.subject) == "string" and p.subject or "")
    locals.set("body", type(p.body) == "string" and p.body or "")
    locals.set("draft_id", false)
    locals.set("title", p.mode == "reply" and "Reply" or (p.mode == "forward" and "Forward" or "Compose"))
  end
  locals.set("attachments", {})
  locals.set("err_to", "")
  locals.set("err_body", "")
  locals.set("form_error", "")
  locals.set("loaded", true)
end

-- Typing in a field clears its error (`err`, when it has one) and the form's.
local function edited(err)
  if err then locals.set(err, "") end
  locals.set("form_error", "")
end

function to_changed(ev) edited("err_to") end
function subject_changed(ev) edited() end
function body_changed(ev) edited("err_body") end

function pick_suggestion(ev)
  local it = ev.item
  if type(it) ~= "table" or not it.email then return end
  local to = type(locals.get("to")) == "string" and locals.get("to") or ""
  local head = to:match("^(.*[,;])") or ""
  locals.set("to", trim(head .. (head ~= "" and " " or "") .. it.email) .. ", ")
  locals.set("err_to", "")
end

local function validate()
  local list = recipients(locals.get("to"))
  if #list == 0 then
    locals.set("err_to", "Add at least one recipient")
    return false
  end
  for _, r in ipairs(list) do
    if not valid_email(r) then
      locals.set("err_to", "“" .. r .. "” is not a valid email address")
      return false
    end
  end
  if trim(locals.get("subject")) == "" and trim(locals.get("body")) == "" then
    locals.set("err_body", "Write a subject or a message")
    return false
  end
  return true
end

local function do_send()
  local to = table.concat(recipients(locals.get("to")), ", ")
  local draft_id = locals.get("draft_id")
  if draft_id then
    local d, i = find_email(draft_id)
    if d then state.remove("emails", i) end
  end
  local attach = locals.get("attachments") or {}
  local body = locals.get("body") or ""
  if #attach > 0 then body = body .. "\n\nAttachments: " .. table.concat(attach, ", ") end
  local m = my_mail("sent", to, trim(locals.get("subject")), body, clock.today(), clock.minutes())
  m.id = next_id()
  state.insert("emails", m, 1)
  ui.toast("Message sent")
  nav.pop()
end

function send(ev)
  if not validate() then
    locals.set("form_error", "Check the highlighted fields")
    return
  end
  if trim(locals.get("subject")) == "" then
    confirm("Send without a subject?", "This message has no subject.", "Send", "send_confirmed")
    return
  end
  do_send()
end

function send_confirmed(ev)
  do_send()
end

function compose_menu(ev)
  ui.sheet{
    title = "Compose",
    options = {
      { text = "Save draft", icon = "drafts", handler = "save_draft" },
      { text = "Discard", icon = "delete", handler = "discard" },
    },
  }
end

function save_draft(ev)
  local fields = my_mail("drafts", trim(locals.get("to")), trim(locals.get("subject")), locals.get("body") or "", clock.today(), clock.minutes())
  local d, i = find_email(locals.get("draft_id"))
  if d then
    fields.id = d.id
    state.set("emails." .. i, fields)
  else
    fields.id = next_id()
    state.insert("emails", fields, 1)
  end
  ui.toast("Draft saved")
  nav.pop()
end

function discard(ev)
  local d, i = find_email(locals.get("draft_id"))
  if d then state.remove("emails", i) end
  ui.toast("Draft discarded")
  nav.pop()
end

function attach(ev)
  ui.sheet{
    title = "Attach a file",
    options = {
      { text = "IMG_2041.jpg", icon = "image", handler = "add_attachment", args = { name = "IMG_2041.jpg" } },
      { text = "Budget 2025.xlsx", icon = "table_chart", handler = "add_attachment", args = { name = "Budget 2025.xlsx" } },
      { text = "Itinerary.pdf", icon = "picture_as_pdf", handler = "add_attachment", args = { name = "Itinerary.pdf" } },
    },
  }
end

function add_attachment(ev)
  local name = ev.args and ev.args.name
  if type(name) ~= "string" then return end
  local list = locals.get("attachments") or {}
  for _, n in ipairs(list) do
    if n == name then return end
  end
  table.insert(list, name)
  locals.set("attachments", list)
end

function remove_attachment(ev)
  local name = ev.item
  local list = locals.get("attachments") or {}
  for k = #list, 1, -1 do
    if list[k] == name then table.remove(list, k) end
  end
  locals.set("attachments", list)
end

function receive_share(ev)
  local a = ev.args or {}
  local text = type(a.text) == "string" and a.text or ""
  if text == "" and type(a.item) == "table" then text = tostring(a.item.text or a.item.title or a.item.name or "") end
  local first = text:match("^[^\n]*") or ""
  if #first > 60 then first = first:sub(1, 60) end
  nav.push("compose", { subject = first, body = text })
end

-- ---------------------------------------------------------------- search

function search_view(ev)
  local q = trim(locals.get("query")):lower()
  local only_unread, only_starred = locals.get("only_unread") == true, locals.get("only_starred") == true
  local rows = {}
  if q ~= "" or only_unread or only_starred then
    local list = {}
    for _, e in ipairs(emails()) do
      local hay = ((e.subject or "") .. " " .. (e.body or "") .. " " .. (e.from_name or "") .. " " .. (e.from_email or "") .. " " .. (e.to or "")):lower()
      if (q == "" or hay:find(q, 1, true)) and (not only_unread or e.unread) and (not only_starred or e.starred) and e.folder ~= "trash" then
        table.insert(list, e)
      end
    end
    table.sort(list, function(a, b) return stamp(a) > stamp(b) end)
    for _, e in ipairs(list) do table.insert(rows, row_of(e)) end
  end
  return { results = rows, count_text = #rows == 1 and "1 result" or (#rows .. " results") }
end

function search_enter(ev)
  if locals.get("query") == nil then
    locals.set("query", "")
    locals.set("only_unread", false)
    locals.set("only_starred", false)
  end
end

search_submit, clear_search = people.search_submit, people.clear_search
use_recent, clear_recent = people.use_recent, people.clear_recent

-- The Unread and Starred filter chips.
local function flip(key) locals.set(key, not locals.get(key)) end
function toggle_only_unread(ev) flip("only_unread") end
function toggle_only_starred(ev) flip("only_starred") end

function go_back(ev)
  people.remember_search(locals.get("query"))
  nav.pop()
end
