-- The shared address book: the `people` of an app's content (the same content/people.ron in
-- Contacts, Messages, Phone, Email and Calendar), looked up by id, number or address, and the
-- ways these apps hand a person over to each other.
local M = {}

-- Everyone in the app's content `people` ({} when it has none).
function M.all()
  return lib.store.content_list("people")
end

-- The person whose id is `id` (7 finds an id of 7 or "7"); nil when there is none.
function M.by_id(id)
  return (lib.lists.by_id(M.all(), id))
end

-- The digits of a person's phone number (content keeps them ready in `digits`).
function M.digits(p)
  return p.digits or lib.text.digits(p.phone)
end

-- The person with the number `number`: the same digits or, from 7 digits on, the end of theirs
-- ("555-0132" finds "+1 415-555-0132"). nil when none has it, or when `number` has fewer than
-- `min` digits (1 unless told).
function M.by_number(number, min)
  local d = lib.text.digits(number)
  if #d < (min or 1) then return nil end
  for _, p in ipairs(M.all()) do
    local pd = M.digits(p)
    if pd == d or (#d >= 7 and pd:sub(-#d) == d) then return p end
  end
  return nil
end

-- The person with the email address `addr` (case and outer spaces ignored); nil when none has it.
function M.by_email(addr)
  addr = lib.text.trim(addr):lower()
  for _, p in ipairs(M.all()) do
    if (p.email or ""):lower() == addr then return p end
  end
  return nil
end

-- The people (in address-book order) that answer what is typed in a search or To field: whose
-- "name" or "email" (as `fields` lists them) holds `query`, case and outer spaces ignored, or,
-- with "phone" in `fields`, whose number holds the query's digits (from 2 digits on). An empty
-- query answers everyone.
function M.search(query, fields)
  local q = lib.text.trim(query):lower()
  local qd = lib.text.digits(q)
  local look = {}
  for _, f in ipairs(fields) do look[f] = true end
  return lib.lists.filter(M.all(), function(p)
    return q == ""
      or (look.name and (p.name or ""):lower():find(q, 1, true) ~= nil)
      or (look.email and (p.email or ""):lower():find(q, 1, true) ~= nil)
      or (look.phone and #qd >= 2 and M.digits(p):find(qd, 1, true) ~= nil)
  end)
end

-- Sorts `list` (people, or rows with a `name`) by name, in place, and returns it.
function M.sort_by_name(list)
  table.sort(list, function(a, b) return a.name < b.name end)
  return list
end

-- Handing a person over to the other apps: a call in Phone, a new text in Messages, a new mail
-- in Email, the card in Contacts, a new contact in Contacts with the number filled in.
function M.call(number, name)
  nav.open_app("com.phoneworld.phone", "in_call", { number = number, name = name })
end

function M.message(number, name)
  nav.open_app("com.phoneworld.messages", "compose", { number = number, name = name })
end

function M.email(to, subject)
  nav.open_app("com.phoneworld.email", "compose", { to = to, subject = subject })
end

function M.show(id)
  nav.open_app("com.phoneworld.contacts", "detail", { id = id })
end

function M.add(number)
  nav.open_app("com.phoneworld.contacts", "edit", { phone = number })
end

-- The search screens of Contacts and Email: what is typed in the screen's local `query`, the
-- last five searches (newest first) in the state list `recent_searches`. The handlers serve
-- as they are (`use_recent = people.use_recent`).
function M.remember_search(q)
  q = lib.text.trim(q)
  if q ~= "" then lib.store.remember("recent_searches", q, 5) end
end

function M.search_submit(ev)
  M.remember_search(locals.get("query"))
end

function M.clear_search(ev)
  locals.set("query", "")
end

function M.use_recent(ev)
  if type(ev.item) ~= "string" then return end
  locals.set("query", ev.item)
end

function M.clear_recent(ev)
  state.set("recent_searches", {})
end

-- A copy of the record `entry` (its fields, one level deep), to change without touching state.
function M.copy(entry)
  local copy = {}
  for k, v in pairs(entry) do copy[k] = v end
  return copy
end

-- For a details screen's view: a copy of the record `find(ev.params.id)` finds, and the record;
-- nil when there is none.
function M.viewed(find, ev)
  local entry = find(ev.params and ev.params.id)
  if not entry then return nil end
  return M.copy(entry), entry
end

return M
