-- Contacts: the address book. All data lives in state; screens derive their lists in on_enter.

local trim = lib.text.trim
local plural = lib.text.plural

local function contacts()
  local list = state.get("contacts")
  if type(list) ~= "table" then return {} end
  return list
end

local function find_contact(id)
  id = tonumber(id)
  if not id then return nil end
  for i, c in ipairs(contacts()) do
    if type(c) == "table" and tonumber(c.id) == id then return c, i end
  end
  return nil
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

local digits = lib.text.digits

local COLORS = { "#E57373", "#64B5F6", "#81C784", "#FFB74D", "#BA68C8", "#4DB6AC", "#F06292", "#9575CD", "#4FC3F7", "#AED581", "#FF8A65", "#7986CB" }

-- ---------------------------------------------------------------- photos

-- Some people of the address book have a photo (content/photos.ron, by contact id); the others
-- show their initials.
local function photo_of(id)
  for _, p in ipairs(content.get("photos") or {}) do
    if tonumber(p.id) == tonumber(id) then return p.photo end
  end
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
  local id = ev.item and ev.item.id
  if find_contact(id) then nav.push("detail", { id = id }) end
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

local function set_favorite(id, on)
  local c, i = find_contact(id)
  if not c then return nil end
  state.set("contacts." .. i .. ".favorite", on)
  return c
end

function toggle_row_favorite(ev)
  local id = ev.item and ev.item.id
  local c = find_contact(id)
  if not c then return end
  set_favorite(id, not c.favorite)
  ui.toast(c.favorite and (c.name .. " removed from favorites") or (c.name .. " added to favorites"))
end

function contact_menu(ev)
  local c = find_contact(ev.item and ev.item.id)
  if not c then return end
  ui.sheet{
    title = c.name,
    options = {
      { text = c.favorite and "Remove from favorites" or "Add to favorites", icon = c.favorite and "star_border" or "star", handler = "menu_favorite", args = { id = c.id } },
      { text = "Edit", icon = "edit", handler = "menu_edit", args = { id = c.id } },
      { text = "Share", icon = "share", handler = "menu_share", args = { id = c.id } },
      { text = "Delete", icon = "delete", handler = "menu_delete", args = { id = c.id } },
    },
  }
end

function menu_favorite(ev)
  local id = ev.args and ev.args.id
  local c = find_contact(id)
  if not c then return end
  set_favorite(id, not c.favorite)
end

function menu_edit(ev)
  local id = ev.args and ev.args.id
  if find_contact(id) then nav.push("edit", { id = id }) end
end

local function contact_card_text(c)
  local lines = { c.name }
  if trim(c.phone) ~= "" then table.insert(lines, "Mobile: " .. c.phone) end
  if trim(c.email) ~= "" then table.insert(lines, "Email: " .. c.email) end
  return table.concat(lines, "\n")
end

function menu_share(ev)
  local c = find_contact(ev.args and ev.args.id)
  if c then ui.share{ text = contact_card_text(c) } end
end

local function ask_delete(c)
  ui.dialog{
    title = "Delete contact?",
    text = c.name .. " will be moved to Recently deleted.",
    buttons = {
      { text = "Cancel" },
      { text = "Delete", handler = "delete_confirmed", args = { id = c.id } },
    },
  }
end

function menu_delete(ev)
  local c = find_contact(ev.args and ev.args.id)
  if c then ask_delete(c) end
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

local function restore_from_trash(id)
  id = tonumber(id)
  local trash = state.get("trash") or {}
  for i, c in ipairs(trash) do
    if type(c) == "table" and tonumber(c.id) == id then
      state.remove("trash", i)
      if not find_contact(id) then state.insert("contacts", c) end
      return c
    end
  end
  return nil
end

function undo_delete(ev)
  local c = restore_from_trash(ev.args and ev.args.id)
  if c then
    ui.toast(c.name .. " restored")
  end
end

-- ---------------------------------------------------------------- detail

function detail_view(ev)
  local c = find_contact(ev.params and ev.params.id)
  if not c then return {} end
  local copy = {}
  for k, v in pairs(c) do copy[k] = v end
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
  local id = ev.params and ev.params.id
  local c = find_contact(id)
  if not c then return end
  set_favorite(id, not c.favorite)
  ui.toast(c.favorite and "Removed from favorites" or "Added to favorites")
end

function edit_contact(ev)
  local id = ev.params and ev.params.id
  if find_contact(id) then nav.push("edit", { id = id }) end
end

function detail_menu(ev)
  local id = ev.params and ev.params.id
  local c = find_contact(id)
  if not c then return end
  ui.sheet{
    title = c.name,
    options = {
      { text = "Share", icon = "share", handler = "menu_share", args = { id = c.id } },
      { text = "Copy phone number", icon = "content_copy", handler = "copy_phone", args = { id = c.id } },
      { text = "Delete", icon = "delete", handler = "menu_delete", args = { id = c.id } },
    },
  }
end

function copy_phone(ev)
  local c = find_contact((ev.args and ev.args.id) or (ev.params and ev.params.id))
  if c and trim(c.phone) ~= "" then
    clipboard.set(c.phone)
    ui.toast("Phone number copied")
  end
end

function copy_address(ev)
  local c = find_contact(ev.params and ev.params.id)
  if c and trim(c.address) ~= "" then
    clipboard.set(c.address)
    ui.toast("Address copied")
  end
end

function delete_contact(ev)
  local c = find_contact(ev.params and ev.params.id)
  if c then ask_delete(c) end
end

function call_contact(ev)
  local c = find_contact(ev.params and ev.params.id)
  if not c or trim(c.phone) == "" then
    ui.toast("No phone number")
    return
  end
  nav.open_app("com.phoneworld.phone", "in_call", { number = c.phone, name = c.name })
end

function message_contact(ev)
  local c = find_contact(ev.params and ev.params.id)
  if not c or trim(c.phone) == "" then
    ui.toast("No phone number")
    return
  end
  nav.open_app("com.phoneworld.messages", "compose", { number = c.phone, name = c.name })
end

function email_contact(ev)
  local c = find_contact(ev.params and ev.params.id)
  if not c or trim(c.email) == "" then
    ui.toast("No email address")
    return
  end
  nav.open_app("com.phoneworld.email", "compose", { to = c.email })
end

function share_contact(ev)
  local c = find_contact(ev.params and ev.params.id)
  if c then ui.share{ text = contact_card_text(c) } end
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

local function remember_search(q)
  q = trim(q)
  if q == "" then return end
  local recent = state.get("recent_searches") or {}
  for i = #recent, 1, -1 do
    if recent[i] == q then state.remove("recent_searches", i) end
  end
  state.insert("recent_searches", q, 1)
  recent = state.get("recent_searches") or {}
  for i = #recent, 6, -1 do state.remove("recent_searches", i) end
end

function search_submit(ev)
  remember_search(locals.get("query"))
end

function clear_search(ev)
  locals.set("query", "")
end

function use_recent(ev)
  if type(ev.item) ~= "string" then return end
  locals.set("query", ev.item)
end

function clear_recent(ev)
  state.set("recent_searches", {})
end

function open_result(ev)
  local id = ev.item and ev.item.id
  if not find_contact(id) then return end
  remember_search(locals.get("query"))
  nav.push("detail", { id = id })
end

function call_row(ev)
  local c = find_contact(ev.item and ev.item.id)
  if c and trim(c.phone) ~= "" then
    nav.open_app("com.phoneworld.phone", "in_call", { number = c.phone, name = c.name })
  end
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
  ui.dialog{
    title = "Restore default contacts?",
    text = "Your changes to the address book will be lost.",
    buttons = {
      { text = "Cancel" },
      { text = "Restore", handler = "restore_confirmed" },
    },
  }
end

function restore_confirmed(ev)
  seed_contacts(ev)
  state.set("trash", {})
  ui.toast("Default contacts restored")
end

function restore_contact(ev)
  local c = restore_from_trash(ev.item and ev.item.id)
  if c then ui.toast(c.name .. " restored") end
end

function trash_menu(ev)
  local c = ev.item
  if type(c) ~= "table" then return end
  ui.sheet{
    title = c.name,
    options = {
      { text = "Restore", icon = "restore_from_trash", handler = "restore_picked", args = { id = c.id } },
      { text = "Delete forever", icon = "delete_forever", handler = "forget_picked", args = { id = c.id } },
    },
  }
end

function restore_picked(ev)
  local c = restore_from_trash(ev.args and ev.args.id)
  if c then ui.toast(c.name .. " restored") end
end

function forget_picked(ev)
  local id = tonumber(ev.args and ev.args.id)
  local trash = state.get("trash") or {}
  for i, c in ipairs(trash) do
    if type(c) == "table" and tonumber(c.id) == id then
      state.remove("trash", i)
      ui.toast("Deleted forever")
      return
    end
  end
end

function empty_trash(ev)
  ui.dialog{
    title = "Delete all forever?",
    text = "These contacts cannot be restored.",
    buttons = {
      { text = "Cancel" },
      { text = "Delete all", handler = "empty_trash_confirmed" },
    },
  }
end

function empty_trash_confirmed(ev)
  state.set("trash", {})
  ui.toast("Recently deleted emptied")
end
