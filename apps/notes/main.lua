-- Notes: handlers. All notes live in state.notes; handlers change only data, and notes_view
-- derives the cards and filter chips the home and archive screens show.

local trim = lib.text.trim
local C = lib.collections

local function find_note(id)
  return lib.lists.by_id(state.get("notes"), id)
end

local has = lib.lists.contains

local function snippet_of(n)
  if n.checklist then
    local parts, open = {}, 0
    for _, it in ipairs(n.items or {}) do
      if type(it) == "table" and not it.done then
        open = open + 1
        if #parts < 3 then table.insert(parts, "• " .. tostring(it.text or "")) end
      end
    end
    local total = #(n.items or {})
    if total == 0 then return "Empty list" end
    local s = table.concat(parts, "\n")
    if open == 0 then s = "All " .. total .. " items done" end
    return s
  end
  local body = tostring(n.body or "")
  if #body > 140 then body = body:sub(1, 137) .. "…" end
  return body
end

local function card_of(n)
  return {
    id = n.id, title = n.title or "", snippet = snippet_of(n), color = n.color or "default",
    pinned = n.pinned and true or false, checklist = n.checklist and true or false,
    label_text = table.concat(n.labels or {}, ", "), edited = n.edited or "",
  }
end

-- The home and archive screens' view (`view` in their RON): the pinned, other and archived
-- cards and the filter chips, derived from the notes each time a screen is drawn.
function notes_view(ev)
  local labels = state.get("labels") or {}
  local filter = state.get("filter_label") or ""
  if filter ~= "" and not has(labels, filter) then filter = "" end
  local pinned, others, archived = {}, {}, {}
  for _, n in ipairs(state.get("notes") or {}) do
    local blank = type(n) == "table" and trim(n.title) == "" and trim(n.body) == "" and #(n.items or {}) == 0
    if type(n) == "table" and not blank then
      if n.archived then
        table.insert(archived, card_of(n))
      elseif filter == "" or has(n.labels, filter) then
        if n.pinned then table.insert(pinned, card_of(n)) else table.insert(others, card_of(n)) end
      end
    end
  end
  local by_edit = function(a, b)
    if a.edited ~= b.edited then return a.edited > b.edited end
    return (tonumber(a.id) or 0) > (tonumber(b.id) or 0)
  end
  table.sort(pinned, by_edit)
  table.sort(others, by_edit)
  table.sort(archived, by_edit)
  local chips = { { label = "All", value = "" } }
  for _, l in ipairs(labels) do table.insert(chips, { label = l, value = l }) end
  return { pinned = pinned, others = others, archived = archived, chips = chips, count = #pinned + #others }
end

local function save_field(id, key, value)
  local n, i = find_note(id)
  if not n then return end
  n[key] = value
  n.edited = clock.today()
  state.set("notes." .. i, n)
end

local function discard_empty()
  local notes = state.get("notes") or {}
  local dropped = false
  for i = #notes, 1, -1 do
    local n = notes[i]
    if type(n) == "table" and trim(n.title) == "" and trim(n.body) == "" and #(n.items or {}) == 0 then
      state.remove("notes", i)
      dropped = true
    end
  end
  return dropped
end

local function create_note(checklist, title, body)
  discard_empty() -- a note left blank earlier is dropped, as a real notes app does
  local id = C.take_id("next_id")
  state.insert("notes", {
    id = id, title = title or "", body = body or "", color = "default", pinned = false, archived = false,
    labels = {}, checklist = checklist and true or false, items = {}, edited = clock.today(),
  }, 1)
  local filter = state.get("filter_label") or ""
  if filter ~= "" then
    state.set("notes.1.labels", { filter })
  end
  return id
end

local function load_locals(n)
  locals.set("id", n.id)
  locals.set("title", n.title or "")
  locals.set("body", n.body or "")
  locals.set("pinned", n.pinned and true or false)
  locals.set("archived", n.archived and true or false)
  locals.set("checklist", n.checklist and true or false)
  locals.set("items", n.items or {})
  locals.set("color", n.color or "default")
end

local function current_id(ev)
  local id = locals.get("id")
  if id == nil and ev and ev.params then id = ev.params.id end
  return id
end

-- What the editor says about the note besides its fields: its labels, checked items, date.
function edit_view(ev)
  local n = find_note(current_id(ev))
  if not n then return {} end
  local done = 0
  for _, it in ipairs(n.items or {}) do if type(it) == "table" and it.done then done = done + 1 end end
  return {
    label_text = table.concat(n.labels or {}, ", "),
    done_text = done > 0 and (done .. " checked item" .. (done == 1 and "" or "s")) or "",
    edited = n.edited or clock.today(),
  }
end

-- ---------------------------------------------------------------- home

function home_enter(ev)
  if discard_empty() then ui.toast("Empty note discarded") end
end

function open_search(ev) nav.push("search") end
function open_archive(ev) discard_empty(); nav.push("archive") end
function open_labels(ev) nav.push("labels") end
function go_back(ev) nav.pop() end

function toggle_layout(ev)
  state.set("layout", state.get("layout") == "grid" and "list" or "grid")
end

function filter_label(ev)
  local v = ev.item and ev.item.value or ""
  state.set("filter_label", v)
end

local function open_new(checklist)
  nav.push("edit", { id = create_note(checklist), new = true })
end

function new_note(ev) open_new(false) end
function new_checklist(ev) open_new(true) end

function open_note(ev)
  local id = ev.item and ev.item.id
  if not find_note(id) then return end
  nav.push("edit", { id = id })
end

-- The menu of a note's card (home) or of an archived one: `options` act on the note.
local function card_menu(ev, options)
  local n = find_note(ev.item and ev.item.id)
  if not n then return end
  C.menu(n.title ~= "" and n.title or "Note", { id = n.id }, options(n))
end

function note_menu(ev)
  card_menu(ev, function(n)
    return {
      { text = n.pinned and "Unpin" or "Pin", icon = "push_pin", handler = "menu_pin" },
      { text = "Archive", icon = "archive", handler = "menu_archive" },
      { text = "Make a copy", icon = "content_copy", handler = "menu_copy" },
      { text = "Share", icon = "share", handler = "menu_share" },
      { text = "Delete", icon = "delete", handler = "menu_delete" },
    }
  end)
end

function archived_menu(ev)
  card_menu(ev, function()
    return {
      { text = "Unarchive", icon = "unarchive", handler = "menu_archive" },
      { text = "Delete", icon = "delete", handler = "menu_delete" },
    }
  end)
end

function menu_pin(ev)
  C.flip("notes", ev.args and ev.args.id, "pinned")
end

-- Archiving (from the menu or the editor) offers to undo it: `n` as it was, archived `now`.
local function archived_snackbar(n, now)
  ui.snackbar{ text = now and "Note archived" or "Note unarchived", action = "Undo", handler = "undo_archive", args = { id = n.id, archived = n.archived and true or false, pinned = n.pinned and true or false } }
end

function menu_archive(ev)
  local n, i = find_note(ev.args and ev.args.id)
  if not n then return end
  local now = not n.archived
  state.set("notes." .. i .. ".archived", now)
  if now then state.set("notes." .. i .. ".pinned", false) end
  archived_snackbar(n, now)
end

function undo_archive(ev)
  local a = ev.args or {}
  local n, i = find_note(a.id)
  if not n then return end
  state.set("notes." .. i .. ".archived", a.archived and true or false)
  state.set("notes." .. i .. ".pinned", a.pinned and true or false)
end

function menu_copy(ev)
  local n = find_note(ev.args and ev.args.id)
  if not n then return end
  local id = C.take_id("next_id")
  local copy = {}
  for k, v in pairs(n) do copy[k] = v end
  copy.id = id
  copy.pinned = false
  copy.edited = clock.today()
  state.insert("notes", copy, 1)
  ui.toast("Copy created")
end

local function share_note(n)
  local text = n.title or ""
  if n.checklist then
    for _, it in ipairs(n.items or {}) do
      text = text .. "\n" .. (it.done and "[x] " or "[ ] ") .. tostring(it.text or "")
    end
  elseif (n.body or "") ~= "" then
    text = (text ~= "" and (text .. "\n") or "") .. n.body
  end
  ui.share{ text = text }
end

function menu_share(ev)
  local n = find_note(ev.args and ev.args.id)
  if n then share_note(n) end
end

local function delete_note(id)
  local n, i = find_note(id)
  if n then lib.orders.remove("notes", i, "Note deleted", "undo_delete", { note = n, pos = i }) end
end

function menu_delete(ev)
  delete_note(ev.args and ev.args.id)
end

function undo_delete(ev)
  local a = ev.args or {}
  local n = a.note
  if type(n) ~= "table" or find_note(n.id) then return end
  if type(n.labels) ~= "table" then n.labels = {} end
  if type(n.items) ~= "table" then n.items = {} end
  lib.orders.put_back("notes", n, a.pos)
  ui.toast("Note restored")
end

-- ---------------------------------------------------------------- edit

function edit_enter(ev)
  local p = ev.params or {}
  local n = find_note(p.id)
  if not n then
    -- Opened by a deep link (notes://new) or a stale id: start a new note.
    local id = create_note(p.checklist == "true" or p.checklist == true, p.title, p.text)
    n = find_note(id)
  end
  if n then load_locals(n) end
end

function title_changed(ev)
  save_field(current_id(ev), "title", tostring(ev.value or ""))
end

function body_changed(ev)
  save_field(current_id(ev), "body", tostring(ev.value or ""))
end

local function save_items()
  local items = {}
  for _, it in ipairs(locals.get("items") or {}) do
    if type(it) == "table" then
      table.insert(items, { text = tostring(it.text or ""), done = it.done and true or false })
    end
  end
  save_field(current_id(), "items", items)
end

function item_checked(ev) save_items() end
function item_edited(ev) save_items() end

function add_item(ev)
  local text = trim(locals.get("new_item"))
  if text == "" then
    ui.toast("Type an item first")
    return
  end
  local items = locals.get("items") or {}
  table.insert(items, { text = text, done = false })
  locals.set("items", items)
  locals.set("new_item", "")
  save_items()
end

function remove_item(ev)
  local i = tonumber(ev.index)
  local items = locals.get("items") or {}
  if not i or not items[i] then return end
  table.remove(items, i)
  locals.set("items", items)
  save_items()
end

function toggle_pin(ev)
  local v = not locals.get("pinned")
  locals.set("pinned", v)
  save_field(current_id(ev), "pinned", v)
  ui.toast(v and "Pinned" or "Unpinned")
end

function toggle_archive(ev)
  local id = current_id(ev)
  local n = find_note(id)
  if not n then return end
  local v = not n.archived
  save_field(id, "archived", v)
  if v then save_field(id, "pinned", false) end
  nav.pop()
  archived_snackbar(n, v)
end

function toggle_checklist(ev)
  local id = current_id(ev)
  local n = find_note(id)
  if not n then return end
  if n.checklist then
    -- checklist → text: one line per item
    local lines = {}
    for _, it in ipairs(n.items or {}) do table.insert(lines, tostring(it.text or "")) end
    local body = table.concat(lines, "\n")
    save_field(id, "body", body)
    save_field(id, "items", {})
    save_field(id, "checklist", false)
  else
    local items = {}
    for line in tostring(n.body or ""):gmatch("[^\n]+") do
      local t = trim(line:gsub("^%-%s*", ""))
      if t ~= "" then table.insert(items, { text = t, done = false }) end
    end
    save_field(id, "items", items)
    save_field(id, "body", "")
    save_field(id, "checklist", true)
  end
  local m = find_note(id)
  if m then load_locals(m) end
end

function choose_color(ev)
  local options = {}
  for _, c in ipairs(content.get("colors") or {}) do
    local mark = (c.name == (locals.get("color") or "default")) and "check" or "palette"
    table.insert(options, { text = c.label, icon = mark, handler = "set_color", args = { color = c.name } })
  end
  ui.sheet{ title = "Note color", options = options }
end

function set_color(ev)
  local c = ev.args and ev.args.color
  if type(c) ~= "string" then return end
  locals.set("color", c)
  save_field(current_id(ev), "color", c)
end

function choose_labels(ev)
  local n = find_note(current_id(ev))
  if not n then return end
  local options = {}
  for _, l in ipairs(state.get("labels") or {}) do
    table.insert(options, C.check_option(l, has(n.labels, l), "toggle_label", { label = l }))
  end
  C.sheet("Labels", options, "Create labels from Edit labels")
end

function toggle_label(ev)
  local id = current_id(ev)
  local n = find_note(id)
  local l = ev.args and ev.args.label
  if not n or type(l) ~= "string" then return end
  save_field(id, "labels", (C.toggled(n.labels, l)))
end

function note_more(ev)
  local id = current_id(ev)
  if not find_note(id) then return end
  ui.sheet{
    title = "Note",
    options = {
      { text = "Delete", icon = "delete", handler = "edit_delete", args = { id = id } },
      { text = "Make a copy", icon = "content_copy", handler = "menu_copy", args = { id = id } },
      { text = "Share", icon = "share", handler = "menu_share", args = { id = id } },
      { text = "Labels", icon = "label", handler = "choose_labels" },
      { text = "Color", icon = "palette", handler = "choose_color" },
    },
  }
end

function edit_delete(ev)
  local id = ev.args and ev.args.id
  if not find_note(id) then return end
  nav.pop()
  delete_note(id)
end

-- ---------------------------------------------------------------- search

function search_view(ev)
  local q = trim(locals.get("query") or ""):lower()
  local results = {}
  if q ~= "" then
    for _, n in ipairs(state.get("notes") or {}) do
      if type(n) == "table" then
        local hay = (tostring(n.title or "") .. "\n" .. tostring(n.body or "") .. "\n" .. table.concat(n.labels or {}, " ")):lower()
        for _, it in ipairs(n.items or {}) do hay = hay .. "\n" .. tostring(it.text or ""):lower() end
        if hay:find(q, 1, true) then table.insert(results, card_of(n)) end
      end
    end
  end
  return { results = results, summary = #results == 1 and "1 note" or (#results .. " notes") }
end

function search_clear(ev) locals.set("query", "") end

-- ---------------------------------------------------------------- labels

function new_label(ev) C.open_dialog() end
function close_dialog(ev) locals.set("dialog", false) end

function create_label(ev)
  local name = C.dialog_name("Enter a label name", 30)
  if not name then return end
  if has(state.get("labels"), name) then
    ui.toast("Label already exists")
    return
  end
  state.insert("labels", name)
  C.dialog_done("Label \"" .. name .. "\" created")
end

function show_label(ev)
  local l = ev.item
  if type(l) ~= "string" then return end
  state.set("filter_label", l)
  nav.pop()
end

function delete_label(ev)
  local l = ev.item
  if type(l) ~= "string" then return end
  lib.orders.confirm("Delete label?", "\"" .. l .. "\" will be removed from all notes. The notes stay.", "Delete",
    "delete_label_confirmed", { label = l })
end

function delete_label_confirmed(ev)
  local l = ev.args and ev.args.label
  C.remove_value("labels", l)
  for i, n in ipairs(state.get("notes") or {}) do
    if type(n) == "table" and has(n.labels, l) then
      state.set("notes." .. i .. ".labels", (C.without(n.labels, l)))
    end
  end
  if state.get("filter_label") == l then state.set("filter_label", "") end
  ui.toast("Label deleted")
end

-- ---------------------------------------------------------------- share target

function receive_share(ev)
  local a = ev.args or {}
  local text = tostring(a.text or "")
  local title = ""
  local first, rest = text:match("^([^\n]*)\n(.*)$")
  if first and #first <= 60 then title, text = first, rest end
  local id = create_note(false, title, text)
  nav.push("edit", { id = id })
  ui.toast("Saved to Notes")
end
