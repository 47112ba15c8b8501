-- Gallery: photos come from content (read-only); favorites, trash and the file tree live in state.
-- Handlers change only data; the screens' views derive the lists they show.

local MONTHS = lib.dates.MONTHS
local KIND_ICONS = {
  pdf = "picture_as_pdf", doc = "description", sheet = "table_chart", text = "article", image = "image",
  audio = "audio_file", video = "movie", zip = "folder_zip",
}

local trim = lib.text.trim
local by_id, confirm = lib.lists.by_id, lib.orders.confirm
local C = lib.collections

local function short_date(d)
  if type(d) ~= "string" then return "" end
  local y, m, day = d:match("^(%d+)-(%d+)-(%d+)$")
  if not y then return d end
  local name = MONTHS[tonumber(m)] or m
  local s = name .. " " .. tonumber(day)
  if y ~= tostring(clock.today()):sub(1, 4) then s = s .. ", " .. y end
  return s
end

local days_between = lib.dates.days_between

-- A photo of the content, unless it was deleted forever.
local function photo_by_id(id)
  if C.has_id(state.get("purged"), id) then return nil end
  return (by_id(content.get("photos"), id))
end

local function set_of(list, key)
  local s = {}
  for _, v in ipairs(list or {}) do
    if type(v) == "table" then s[tonumber(v[key])] = v else s[tonumber(v)] = true end
  end
  return s
end

-- The picture each photo shows on this phone: one of its variants, chosen at install (see pick_looks).
local function look_of(p)
  for _, l in ipairs(state.get("looks") or {}) do
    if tonumber(l.id) == tonumber(p.id) then return l end
  end
  return { photo = p.photo or "", shows = p.shows or {}, colors = p.colors or {}, scene = p.scene or "" }
end

local function card(p, fav, trashed)
  return {
    id = p.id, caption = p.caption, date = p.date, short_date = short_date(p.date), icon = p.icon, photo = look_of(p).photo,
    album = p.album, location = (p.location ~= "" and p.location) or "No location", favorite = fav and true or false,
    deleted_text = trashed and short_date(trashed.deleted) or "",
    days_left = trashed and math.max(0, 30 - days_between(trashed.deleted, clock.today())) or 0,
  }
end

local function by_date_desc(a, b)
  if a.date ~= b.date then return a.date > b.date end
  return (tonumber(a.id) or 0) > (tonumber(b.id) or 0)
end

local function file_card(f)
  return {
    id = f.id, name = f.name, folder = f.folder, size = f.size, modified = f.modified,
    short_date = short_date(f.modified), icon = KIND_ICONS[f.kind] or "insert_drive_file",
  }
end

local function size_mb(text)
  local n, unit = tostring(text or ""):match("([%d%.]+)%s*(%a+)")
  n = tonumber(n) or 0
  if unit == "KB" then return n / 1024 elseif unit == "GB" then return n * 1024 end
  return n
end

-- What the screens show: the photo lists, albums and folders, and the open album's photos or
-- folder's files, derived from the data each time a screen is drawn.
local function derive(album, folder)
  local favs = set_of(state.get("favorites"))
  local trash = set_of(state.get("trash"), "id")
  local purged = set_of(state.get("purged"))
  local all, favorites, trashed, counts = {}, {}, {}, {}
  for _, p in ipairs(content.get("photos") or {}) do
    local id = tonumber(p.id)
    if purged[id] then
      -- permanently deleted
    elseif trash[id] then
      table.insert(trashed, card(p, favs[id], trash[id]))
    else
      local c = card(p, favs[id])
      table.insert(all, c)
      if favs[id] then table.insert(favorites, c) end
      counts[p.album] = (counts[p.album] or 0) + 1
    end
  end
  table.sort(all, by_date_desc)
  table.sort(favorites, by_date_desc)
  local albums = {}
  for _, a in ipairs(content.get("albums") or {}) do
    local cover = ""
    for _, c in ipairs(all) do
      if c.album == a.name then cover = c.photo; break end
    end
    table.insert(albums, { name = a.name, icon = a.icon, count = counts[a.name] or 0, cover = cover })
  end
  local album_photos = {}
  local current = album or ""
  if current == "Favorites" then
    album_photos = favorites
  else
    for _, c in ipairs(all) do if c.album == current then table.insert(album_photos, c) end end
  end
  local span = ""
  if #album_photos > 0 then
    local first, last = album_photos[#album_photos].short_date, album_photos[1].short_date
    span = first == last and first or (first .. " – " .. last)
  end
  -- files
  local per_folder, per_size = {}, {}
  local folder_files, recent = {}, {}
  local sort = state.get("sort") or "name"
  for _, f in ipairs(state.get("files") or {}) do
    if type(f) == "table" then
      per_folder[f.folder] = (per_folder[f.folder] or 0) + 1
      per_size[f.folder] = (per_size[f.folder] or 0) + size_mb(f.size)
      if f.folder == folder then table.insert(folder_files, file_card(f)) end
      table.insert(recent, file_card(f))
    end
  end
  table.sort(folder_files, function(a, b)
    if sort == "size" then return size_mb(a.size) > size_mb(b.size) end
    if sort == "date" then return a.modified > b.modified end
    return a.name:lower() < b.name:lower()
  end)
  table.sort(recent, function(a, b) return a.modified > b.modified end)
  while #recent > 4 do table.remove(recent) end
  local folders = {}
  for _, name in ipairs(state.get("folders") or {}) do
    local mb = per_size[name] or 0
    local size = mb >= 1024 and string.format("%.1f GB", mb / 1024) or (mb >= 1 and string.format("%.0f MB", mb) or (mb > 0 and "< 1 MB" or "Empty"))
    table.insert(folders, { name = name, count = per_folder[name] or 0, size = size })
  end
  return {
    all = all, favorites = favorites, trash = trashed, albums = albums, album = current,
    album_photos = album_photos, album_span = span, folders = folders, folder = folder or "",
    folder_files = folder_files, recent = recent, photo_count = #all,
  }
end

local function album_of(params) return params.album or params.path or "Camera" end

-- The screens' views (`view` in their RON).
function gallery_view(ev) return derive() end
function album_view(ev) return derive(album_of(ev.params or {})) end
function folder_view(ev)
  local p = ev.params or {}
  return derive(nil, p.folder or p.path or "Download")
end

-- Whether a photo is in the trash (and since when).
local function trashed(id)
  return (by_id(state.get("trash"), id))
end

-- The photo screen shows the photo whose id its entering picked (`local.id`).
function photo_view(ev)
  local p = photo_by_id(locals.get("id"))
  if not p then return {} end
  local pid = tonumber(p.id)
  local view = {}
  for _, k in ipairs({ "caption", "date", "location", "icon", "album", "camera", "resolution", "size", "file" }) do
    view[k] = p[k] or ""
  end
  local trash = trashed(pid)
  view.short_date = short_date(p.date)
  view.photo = look_of(p).photo
  view.favorite = C.has_id(state.get("favorites"), pid)
  view.trashed = trash and true or false
  view.deleted = trash and trash.deleted or ""
  return view
end

-- ---------------------------------------------------------------- home / albums

-- Runs once when the phone is made (math.random is seeded from the device): a photo with
-- variants (the same subject in another colour or setting) gets one of them, so the pictures
-- differ between episodes. state.looks keeps what each photo shows, for checking tasks.
function pick_looks(ev)
  local looks = {}
  for _, p in ipairs(content.get("photos") or {}) do
    local l = p
    local variants = p.variants or {}
    if #variants > 1 then l = variants[math.random(#variants)] end
    table.insert(looks, { id = p.id, photo = l.photo, shows = l.shows or {}, colors = l.colors or {}, scene = l.scene or "" })
  end
  state.set("looks", looks)
end
function go_back(ev) nav.pop() end

function open_search(ev) nav.push("search") end
function open_trash(ev) nav.push("trash") end

open_album = C.opener("album", "album", "name")

function open_favorites(ev)
  nav.push("album", { album = "Favorites" })
end

function share_album(ev)
  local view = derive(album_of(ev.params or {}))
  local n = #(view.album_photos or {})
  ui.share{ text = "Album \"" .. tostring(view.album or "") .. "\" · " .. n .. " photos: https://photos.example/a/" .. tostring(view.album or ""):lower():gsub("%s+", "-") }
end

function open_photo(ev)
  local id = ev.item and ev.item.id
  if not photo_by_id(id) then return end
  nav.push("photo", { id = id })
end

function photo_menu(ev)
  local id = ev.item and ev.item.id
  local p = photo_by_id(id)
  if not p then return end
  local fav = C.has_id(state.get("favorites"), id)
  C.menu(p.caption, { id = id }, {
    { text = "Share", icon = "share", handler = "sheet_share" },
    { text = fav and "Remove from favorites" or "Add to favorites", icon = "favorite", handler = "sheet_favorite" },
    { text = "Move to trash", icon = "delete", handler = "sheet_trash" },
  })
end

-- The photo menu and the photo screen share, favorite, trash and restore alike.
local function share(id)
  local p = photo_by_id(id)
  if not p then return end
  local t = p.caption
  if (p.location or "") ~= "" then t = t .. " — " .. p.location end
  ui.share{ text = t .. " (" .. short_date(p.date) .. ")" }
end

local function flip_favorite(id)
  if not photo_by_id(id) then return end
  local on = C.toggle_id("favorites", id)
  ui.toast(on and "Added to favorites" or "Removed from favorites")
end

local function move_to_trash(id)
  id = tonumber(id)
  if not photo_by_id(id) or trashed(id) then return end
  state.insert("trash", { id = id, deleted = clock.today() })
  ui.snackbar{ text = "Moved to trash", action = "Undo", handler = "undo_trash", args = { id = id } }
end

local function restore(id)
  if C.remove_id("trash", id) then ui.toast("Photo restored") end
end

function sheet_share(ev) share(ev.args and ev.args.id) end
function sheet_favorite(ev) flip_favorite(ev.args and ev.args.id) end
function sheet_trash(ev) move_to_trash(ev.args and ev.args.id) end
function undo_trash(ev) restore(ev.args and ev.args.id) end

-- ---------------------------------------------------------------- photo

function photo_enter(ev)
  local p = ev.params or {}
  local shown = photo_by_id(p.id or p.path) or (content.get("photos") or {})[1]
  if shown then locals.set("id", tonumber(shown.id)) end
  locals.set("show_info", p.info and true or false)
  if p.slideshow then
    locals.set("slideshow", true)
    locals.set("run", tonumber(p.run) or 1)
    timer.after(3000, "slide_tick", { run = tonumber(p.run) or 1, id = locals.get("id") })
  end
end

function toggle_info(ev)
  locals.set("show_info", not locals.get("show_info"))
end

function photo_more(ev)
  local id = locals.get("id")
  local p = photo_by_id(id)
  if not p then return end
  ui.sheet{
    title = p.caption,
    options = {
      { text = "Details", icon = "info", handler = "toggle_info" },
      { text = "Copy caption", icon = "content_copy", handler = "copy_caption" },
      { text = "Open album " .. p.album, icon = "photo_album", handler = "open_photo_album" },
    },
  }
end

function copy_caption(ev)
  clipboard.set(tostring((photo_by_id(locals.get("id")) or {}).caption or ""))
  ui.toast("Caption copied")
end

function open_photo_album(ev)
  local album = (photo_by_id(locals.get("id")) or {}).album
  if type(album) == "string" and album ~= "" then nav.push("album", { album = album }) end
end

function edit_caption_hint(ev)
  ui.toast("Editing is not available for this photo")
end

function share_photo(ev) share(locals.get("id")) end
function toggle_favorite(ev) flip_favorite(locals.get("id")) end

function trash_photo(ev)
  local id = locals.get("id")
  if not photo_by_id(id) then return end
  nav.pop()
  move_to_trash(id)
end

function restore_photo(ev) restore(locals.get("id")) end
function restore_from_list(ev) restore(ev.item and ev.item.id) end

function delete_forever(ev)
  local id = locals.get("id")
  if not photo_by_id(id) then return end
  confirm("Delete forever?", "This photo will be permanently deleted from your device.", "Delete",
    "delete_forever_confirmed", { id = id })
end

local function purge(id)
  id = tonumber(id)
  if not id then return end
  C.remove_id("trash", id)
  if not C.has_id(state.get("purged"), id) then state.insert("purged", id) end
end

function delete_forever_confirmed(ev)
  purge(ev.args and ev.args.id)
  nav.pop()
  ui.toast("Deleted forever")
end

function empty_trash(ev)
  if #derive().trash == 0 then return end
  confirm("Empty trash?", "All items in trash will be permanently deleted.", "Empty trash", "empty_trash_confirmed")
end

function empty_trash_confirmed(ev)
  local ids = {}
  for _, t in ipairs(state.get("trash") or {}) do
    if type(t) == "table" then table.insert(ids, t.id) end
  end
  for _, id in ipairs(ids) do purge(id) end
  ui.toast("Trash emptied")
end

-- ---------------------------------------------------------------- photo navigation / slideshow

local function neighbor(step)
  local id = tonumber(locals.get("id"))
  local view = derive()
  local list = view.all or {}
  if trashed(locals.get("id")) then list = view.trash or {} end
  if #list == 0 then return nil end
  for i, c in ipairs(list) do
    if tonumber(c.id) == id then
      local j = ((i - 1 + step) % #list) + 1
      return list[j].id
    end
  end
  return list[1].id
end

local function show_neighbor(step)
  local id = neighbor(step)
  if id then nav.replace("photo", { id = id }) end
end

function prev_photo(ev) show_neighbor(-1) end
function next_photo(ev) show_neighbor(1) end

function toggle_slideshow(ev)
  if locals.get("slideshow") then
    locals.set("slideshow", false)
    locals.set("run", (tonumber(locals.get("run")) or 0) + 1)
    ui.toast("Slideshow stopped")
    return
  end
  local run = (tonumber(locals.get("run")) or 0) + 1
  locals.set("run", run)
  locals.set("slideshow", true)
  timer.after(3000, "slide_tick", { run = run, id = locals.get("id") })
  ui.toast("Slideshow: next photo every 3 seconds")
end

function slide_tick(ev)
  local a = ev.args or {}
  -- Only the photo screen that started the show advances it; leaving the screen ends it.
  if not locals.get("slideshow") or tonumber(locals.get("run")) ~= tonumber(a.run) or tonumber(locals.get("id")) ~= tonumber(a.id) then return end
  local id = neighbor(1)
  if id then nav.replace("photo", { id = id, slideshow = true, run = a.run }) end
end

-- ---------------------------------------------------------------- search

function search_view(ev)
  local q = trim(locals.get("query") or ""):lower()
  local results = {}
  if q ~= "" then
    for _, c in ipairs(derive().all) do
      local hay = (tostring(c.caption) .. " " .. tostring(c.location) .. " " .. tostring(c.album) .. " " .. tostring(c.short_date)):lower()
      if hay:find(q, 1, true) then table.insert(results, c) end
    end
  end
  local seen, sugg = {}, {}
  for _, p in ipairs(content.get("photos") or {}) do
    local city = tostring(p.location or ""):match("([^,]+)$")
    city = trim(city or "")
    if city ~= "" and city ~= "Home" and not seen[city] and #sugg < 6 then
      seen[city] = true
      table.insert(sugg, { label = city, value = city })
    end
  end
  return { results = results, suggestions = sugg }
end

function search_clear(ev) locals.set("query", "") end
search_suggestion = C.picker("query", "value")

-- ---------------------------------------------------------------- files

local function find_file(id)
  return by_id(state.get("files"), id)
end

open_folder = C.opener("folder", "folder", "name")
open_file_folder = C.opener("folder", "folder", "folder")

-- How the folder screen can sort its files (`state.sort`).
local SORTS = {
  { text = "Name", icon = "sort_by_alpha", sort = "name" },
  { text = "Date modified", icon = "schedule", sort = "date" },
  { text = "Size", icon = "straighten", sort = "size" },
}

function choose_sort(ev)
  local options = {}
  for _, s in ipairs(SORTS) do
    table.insert(options, { text = s.text, icon = s.icon, handler = "set_sort", args = { sort = s.sort } })
  end
  ui.sheet{ title = "Sort by", options = options }
end

function set_sort(ev)
  local s = ev.args and ev.args.sort
  if lib.lists.find(SORTS, "sort", s) then state.set("sort", s) end
end

function file_menu(ev)
  C.row_menu(ev, find_file, "name", {
    { text = "Rename", icon = "drive_file_rename_outline", handler = "rename_file" },
    { text = "Move to…", icon = "drive_file_move", handler = "move_file" },
    { text = "Share", icon = "share", handler = "share_file" },
    { text = "Delete", icon = "delete", handler = "delete_file" },
  })
end

function rename_file(ev)
  local f = find_file(ev.args and ev.args.id)
  if not f then return end
  locals.set("target", f.id)
  C.open_dialog(f.name)
end

function close_dialog(ev) locals.set("dialog", false) end

function rename_confirmed(ev)
  local f, i = find_file(locals.get("target"))
  if not f then
    locals.set("dialog", false)
    return
  end
  local name = C.dialog_name("Name can't be empty")
  if not name then return end
  if name:find("[/\\]") then
    ui.toast("Name can't contain / or \\")
    return
  end
  for _, g in ipairs(state.get("files") or {}) do
    if type(g) == "table" and g.folder == f.folder and g.name == name and g.id ~= f.id then
      ui.toast("A file named " .. name .. " already exists")
      return
    end
  end
  state.set("files." .. i .. ".name", name)
  C.dialog_done("Renamed to " .. name)
end

function move_file(ev)
  local f = find_file(ev.args and ev.args.id)
  if not f then return end
  local options = {}
  for _, name in ipairs(state.get("folders") or {}) do
    if name ~= f.folder then
      table.insert(options, { text = name, icon = "folder", handler = "move_file_to", args = { id = f.id, folder = name } })
    end
  end
  ui.sheet{ title = "Move " .. f.name .. " to", options = options }
end

function move_file_to(ev)
  local a = ev.args or {}
  local f, i = find_file(a.id)
  if not f or type(a.folder) ~= "string" then return end
  local from = f.folder
  state.set("files." .. i .. ".folder", a.folder)
  ui.snackbar{ text = "Moved to " .. a.folder, action = "Undo", handler = "move_file_to", args = { id = f.id, folder = from } }
end

function share_file(ev)
  local f = find_file(ev.args and ev.args.id)
  if f then ui.share{ text = f.name .. " (" .. f.size .. ")" } end
end

function delete_file(ev)
  local f = find_file(ev.args and ev.args.id)
  if not f then return end
  confirm("Delete " .. f.name .. "?", "This file will be deleted from " .. f.folder .. ".", "Delete",
    "delete_file_confirmed", { id = f.id })
end

function delete_file_confirmed(ev)
  local f, i = find_file(ev.args and ev.args.id)
  if not f then return end
  state.remove("files", i)
  ui.toast("Deleted " .. f.name)
end
