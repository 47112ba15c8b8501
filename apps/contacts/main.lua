-- Contacts: the address book. All data lives in state; screens derive their lists in on_enter.

local trim, plural, digits = lib.text.trim, lib.text.plural, lib.text.digits
local people = lib.people
local confirm = lib.orders.confirm

local function contacts() return lib.store.list("contacts") end
local function find_contact(id) return lib.lists.by_id(contacts(), id) end
local function find_deleted(id) return lib.lists.by_id(lib.store.list("trash"), id) end

-- Opens `screen` (detail, edit) on the contact `id` when there is one.
local function open_on(screen, id)
  if find_contact(id) then nav.push(screen, { id = id }) end
end

local function sort_key(c)
  local by = state.get("settings.sort")
  local first, last = trim(c.first), trim(c.last)
  local key
  if by == "last" and last ~= "" then key = last .. " " .. first else key = first .. " " .. last end
  key = trim(key)
  if key == "" then key = trim(c.name) end
  return key:lower()
end

local function letter_of(c)
  local by = state.get("settings.sort")
  local base = (by == "last" and trim(c.last) ~= "") and trim(c.last) or trim(c.name)
  local ch = base:sub(1, 1):upper()
  if not ch:match("%a") then return "#" end
  return ch
end

local function sorted_contacts()
  local list = {}
  for _, c in ipairs(contacts()) do
    if type(c) == "table" then table.insert(list, c) end
  end
  table.sort(list, function(a, b)
    local ka, kb = sort_key(a), sort_key(b)
    if ka ~= kb then return ka < kb end
    return (tonumber(a.id) or 0) < (tonumber(b.id) or 0)
  end)
  return list
end

local COLORS = { "#E57373", "#64B5F6", "#81C784", "#FFB74D", "#BA68C8", "#4DB6AC", "#F06292", "#9575CD", "#4FC3F7", "#AED581", "#FF8A65", "#7986CB" }

-- ---------------------------------------------------------------- photos

-- Some people of the address book have a photo (content/photos.ron, by contact id); the others
-- show their initials.
local function photo_of(id)
  local p = lib.lists.by_id(lib.store.content_list("photos"), id)
  if p then return p.photo end
  return ""
end

-- ---------------------------------------------------------------- install

function seed_contacts(ev)
  local list = {}
  for _, p in ipairs(content.get("people") or {}) do
    table.insert(list, {
      id = p.id, name = p.name, first = p.first, last = p.last, phone = p.phone, email = p.email,
      company = p.company, job = p.job, address = p.address, birthday = p.birthday, notes = p.notes,
      color = p.color, favorite = p.favorite == true,
    })
  end
  state.set("contacts", list)
  state.set("next_id", 100)
end

-- ---------------------------------------------------------------- list

function list_view(ev)
  local rows, favs = {}, {}
  local last_letter = nil
  for _, c in ipairs(sorted_contacts()) do
    local l = letter_of(c)
    local row = { id = c.id, name = c.name, first = c.first, color = c.color, phone = c.phone, favorite = c.favorite == true, header = "", photo = photo_of(c.id) }
    if l ~= last_letter then row.header = l; last_letter = l end
    table.insert(rows, row)
    if c.favorite then table.insert(favs, row) end
  end
  return { rows = rows, favs = favs }
end

function list_enter(ev)
  if ev.params and ev.params.tab and locals.get("tab") == nil then
    locals.set("tab", tonumber(ev.params.tab) or 0)
  end
end

function open_contact(ev)
  open_on("detail", ev.item and ev.item.id)
end

function add_contact(ev)
  nav.push("edit", {})
end

function open_search(ev)
  nav.push("search")
end

function open_settings(ev)
  nav.push("settings")
end

-- Adds the contact `id` to the favorites or takes it out; the contact as it was before, nil
-- when there is none.
local function flip_favorite(id)
  local c, i = find_contact(id)
  if not c then return nil end
  state.set("contacts." .. i .. ".favorite", not c.favorite)
  return c
end

function toggle_row_favorite(ev)
  local c = flip_favorite(ev.item and ev.item.id)
  if not c then return end
  ui.toast(c.favorite and (c.name .. " removed from favorites") or (c.name .. " added to favorites"))
end

function contact_menu(ev)
  local c = find_contact(ev.item and ev.item.id)
  if not c then return end
  lib.collections.menu(c.name, { id = c.id }, {
    { text = c.favorite and "Remove from favorites" or "Add to favorites", icon = c.favorite and "star_border" or "star", handler = "menu_favorite" },
    { text = "Edit", icon = "edit", handler = "menu_edit" },
    { text = "Share", icon = "share", handler = "menu_share" },
    { text = "Delete", icon = "delete", handler = "menu_delete" },
  })
end

function menu_favorite(ev)
  flip_favorite(ev.args and ev.args.id)
end

function menu_edit(ev)
  open_on("edit", ev.args and ev.args.id)
end

local function contact_card_text(c)
  local lines = { c.name }
  if trim(c.phone) ~= "" then table.insert(lines, "Mobile: " .. c.phone) end
  if trim(c.email) ~= "" then table.insert(lines, "Email: " .. c.email) end
  return table.concat(lines, "\n")
end

-- Shares the card of the contact `id` (from a row's menu or the detail screen).
local function share(id)
  local c = find_contact(id)
  if c then ui.share{ text = contact_card_text(c) } end
end

function menu_share(ev)
  share(ev.args and ev.args.id)
end

-- Asks before the contact `id` moves to Recently deleted.
local function ask_delete(id)
  local c = find_contact(id)
  if c then confirm("Delete contact?", c.name .. " will be moved to Recently deleted.", "Delete", "delete_confirmed", { id = c.id }) end
end

function menu_delete(ev)
  ask_delete(ev.args and ev.args.id)
end

function delete_confirmed(ev)
  local id = ev.args and ev.args.id
  local c, i = find_contact(id)
  if not c then return end
  state.remove("contacts", i)
  state.insert("trash", c, 1)
  ui.snackbar{ text = c.name .. " deleted", action = "Undo", handler = "undo_delete", args = { id = c.id } }
  local top = ev.params and ev.params.id
  if top ~= nil and tonumber(top) == tonumber(id) then
    nav.pop()
  end
end

-- Moves the contact `id` back from Recently deleted (unless the book has it again) and says so.
local function restore(id)
  local c, i = find_deleted(id)
  if not c then return end
  state.remove("trash", i)
  if not find_contact(id) then state.insert("contacts", c) end
  ui.toast(c.name .. " restored")
end

function undo_delete(ev)
  restore(ev.args and ev.args.id)
end

-- ---------------------------------------------------------------- detail

function detail_view(ev)
  local copy, c = people.viewed(find_contact, ev)
  if not copy then return {} end
  copy.favorite = c.favorite == true
  copy.photo = photo_of(c.id)
  return { c = copy }
end

function detail_enter(ev)
  local id = ev.params and ev.params.id
  if not find_contact(id) then
    ui.toast("Contact not found")
    nav.pop()
  end
end

function toggle_favorite(ev)
  local c = flip_favorite(ev.params and ev.params.id)
  if not c then return end
  ui.toast(c.favorite and "Removed from favorites" or "Added to favorites")
end

function edit_contact(ev)
  open_on("edit", ev.params and ev.params.id)
end

function detail_menu(ev)
  local id = ev.params and ev.params.id
  local c = find_contact(id)
  if not c then return end
  lib.collections.menu(c.name, { id = c.id }, {
    { text = "Share", icon = "share", handler = "menu_share" },
    { text = "Copy phone number", icon = "content_copy", handler = "copy_phone" },
    { text = "Delete", icon = "delete", handler = "menu_delete" },
  })
end

-- Copies the contact's `field` (phone, address) when it has one.
local function copy_field(id, field, done)
  local c = find_contact(id)
  if c and trim(c[field]) ~= "" then
    clipboard.set(c[field])
    ui.toast(done)
  end
end

function copy_phone(ev)
  copy_field((ev.args and ev.args.id) or (ev.params and ev.params.id), "phone", "Phone number copied")
end

function copy_address(ev)
  copy_field(ev.params and ev.params.id, "address", "Address copied")
end

function delete_contact(ev)
  ask_delete(ev.params and ev.params.id)
end

-- The contact on the detail screen when it has a `field` (phone, email) to call, text or mail;
-- otherwise nil, and the toast `missing` says so.
local function reachable(ev, field, missing)
  local c = find_contact(ev.params and ev.params.id)
  if not c or trim(c[field]) == "" then
    ui.toast(missing)
    return nil
  end
  return c
end

function call_contact(ev)
  local c = reachable(ev, "phone", "No phone number")
  if c then people.call(c.phone, c.name) end
end

function message_contact(ev)
  local c = reachable(ev, "phone", "No phone number")
  if c then people.message(c.phone, c.name) end
end

function email_contact(ev)
  local c = reachable(ev, "email", "No email address")
  if c then people.email(c.email) end
end

function share_contact(ev)
  share(ev.params and ev.params.id)
end

-- ---------------------------------------------------------------- edit

function edit_enter(ev)
  if locals.get("loaded") then return end
  local id = ev.params and ev.params.id
  local c = find_contact(id)
  c = c or {}
  locals.set("first", c.first or "")
  locals.set("last", c.last or "")
  locals.set("phone", c.phone or ((ev.params and ev.params.phone) or ""))
  locals.set("email", c.email or "")
  locals.set("company", c.company or "")
  locals.set("job", c.job or "")
  locals.set("address", c.address or "")
  locals.set("notes", c.notes or "")
  local bd = c.birthday
  locals.set("has_birthday", type(bd) == "string" and bd ~= "")
  locals.set("birthday", (type(bd) == "string" and bd ~= "") and bd or "1990-01-01")
  local next_id = tonumber(state.get("next_id")) or 100
  locals.set("color", c.color or COLORS[(next_id % #COLORS) + 1])
  locals.set("err_first", "")
  locals.set("err_phone", "")
  locals.set("err_email", "")
  locals.set("form_error", "")
  locals.set("loaded", true)
end

local function validate()
  local first, last = trim(locals.get("first")), trim(locals.get("last"))
  local phone, email = trim(locals.get("phone")), trim(locals.get("email"))
  local ok = true
  if first == "" and last == "" then
    locals.set("err_first", "Name is required")
    ok = false
  else
    locals.set("err_first", "")
  end
  if phone ~= "" and not phone:match("^%+?[%d%s%-%(%)%.]+$") then
    locals.set("err_phone", "Use digits only (and + - ( ) spaces)")
    ok = false
  elseif phone ~= "" and #digits(phone) < 3 then
    locals.set("err_phone", "Phone number is too short")
    ok = false
  else
    locals.set("err_phone", "")
  end
  if email ~= "" and not email:match("^[^@%s]+@[^@%s]+%.[^@%s]+$") then
    locals.set("err_email", "Enter a valid email address")
    ok = false
  else
    locals.set("err_email", "")
  end
  if ok then locals.set("form_error", "") end
  return ok
end

function field_changed(ev)
  -- Re-check only once the user has tried to save (errors are showing).
  if trim(locals.get("form_error")) ~= "" then validate() end
end

function birthday_toggled(ev)
end

function save_contact(ev)
  if not validate() then
    locals.set("form_error", "Please fix the highlighted fields")
    return
  end
  local first, last = trim(locals.get("first")), trim(locals.get("last"))
  local c = {
    first = first,
    last = last,
    name = trim(first .. " " .. last),
    phone = trim(locals.get("phone")),
    email = trim(locals.get("email")),
    company = trim(locals.get("company")),
    job = trim(locals.get("job")),
    address = trim(locals.get("address")),
    notes = trim(locals.get("notes")),
    birthday = locals.get("has_birthday") and locals.get("birthday") or "",
    color = locals.get("color") or COLORS[1],
  }
  local id = ev.params and ev.params.id
  local old, i = find_contact(id)
  if old then
    c.id = old.id
    c.favorite = old.favorite == true
    state.set("contacts." .. i, c)
    ui.toast("Contact saved")
    nav.pop()
  else
    c.id = tonumber(state.get("next_id")) or 100
    c.favorite = false
    state.set("next_id", c.id + 1)
    state.insert("contacts", c)
    ui.toast(c.name .. " added")
    nav.replace("detail", { id = c.id })
  end
end

function cancel_edit(ev)
  nav.pop()
end

-- ---------------------------------------------------------------- search

local function search(query)
  query = trim(query):lower()
  local results = {}
  if query == "" then return results end
  local qd = digits(query)
  for _, c in ipairs(sorted_contacts()) do
    local match = nil
    local name = (c.name or ""):lower()
    if name:find(query, 1, true) then
      match = c.phone or ""
    elseif (c.email or ""):lower():find(query, 1, true) then
      match = c.email
    elseif #qd >= 2 and digits(c.phone):find(qd, 1, true) then
      match = c.phone
    elseif (c.company or ""):lower():find(query, 1, true) then
      match = c.company
    end
    if match then
      table.insert(results, { id = c.id, name = c.name, color = c.color, phone = c.phone, match = match })
    end
  end
  return results
end

function search_view(ev)
  local results = search(locals.get("query"))
  return { results = results, count_text = plural(#results, "contact", "contacts") }
end

function search_enter(ev)
  if locals.get("query") == nil then locals.set("query", "") end
end

search_submit, clear_search = people.search_submit, people.clear_search
use_recent, clear_recent = people.use_recent, people.clear_recent

function open_result(ev)
  local id = ev.item and ev.item.id
  if not find_contact(id) then return end
  people.remember_search(locals.get("query"))
  nav.push("detail", { id = id })
end

function call_row(ev)
  local c = find_contact(ev.item and ev.item.id)
  if c and trim(c.phone) ~= "" then people.call(c.phone, c.name) end
end

function go_back(ev)
  nav.pop()
end

-- ---------------------------------------------------------------- settings and trash

function settings_view(ev)
  local n = #(state.get("trash") or {})
  return { trash_text = n == 0 and "Empty" or plural(n, "contact", "contacts") }
end

function open_trash(ev)
  nav.push("trash")
end

function export_contacts(ev)
  local n = #contacts()
  ui.toast("Exported " .. plural(n, "contact", "contacts") .. " to contacts.vcf")
end

function restore_defaults(ev)
  confirm("Restore default contacts?", "Your changes to the address book will be lost.", "Restore", "restore_confirmed")
end

function restore_confirmed(ev)
  seed_contacts(ev)
  state.set("trash", {})
  ui.toast("Default contacts restored")
end

function restore_contact(ev)
  restore(ev.item and ev.item.id)
end

function trash_menu(ev)
  local c = ev.item
  if type(c) ~= "table" then return end
  lib.collections.menu(c.name, { id = c.id }, {
    { text = "Restore", icon = "restore_from_trash", handler = "restore_picked" },
    { text = "Delete forever", icon = "delete_forever", handler = "forget_picked" },
  })
end

function restore_picked(ev)
  restore(ev.args and ev.args.id)
end

function forget_picked(ev)
  local c, i = find_deleted(ev.args and ev.args.id)
  if not c then return end
  state.remove("trash", i)
  ui.toast("Deleted forever")
end

function empty_trash(ev)
  confirm("Delete all forever?", "These contacts cannot be restored.", "Delete all", "empty_trash_confirmed")
end

empty_trash_confirmed = lib.collections.clearer("trash", "Recently deleted emptied")
