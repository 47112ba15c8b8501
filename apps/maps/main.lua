-- Maps: places are read-only content; saved lists, recent searches and the preferred travel mode
-- live in state; the screens' views derive the lists they show.

local MODES = {
  drive = { label = "Drive", icon = "directions_car", kmh = 28, extra = 2 },
  walk = { label = "Walk", icon = "directions_walk", kmh = 4.8, extra = 0 },
  transit = { label = "Transit", icon = "directions_transit", kmh = 16, extra = 6 },
}

local trim = lib.text.trim
local find, confirm = lib.lists.find, lib.orders.confirm
local C = lib.collections

local function category_icon(cat)
  local c = find(content.get("categories"), "value", cat)
  if c then return c.icon end
  return "place"
end

local function find_place(id)
  return (lib.lists.by_id(content.get("places"), id))
end

local function fmt_dist(km)
  km = tonumber(km) or 0
  if km < 1 then return string.format("%d m", math.floor(km * 1000 / 10 + 0.5) * 10) end
  return string.format("%.1f km", km)
end

local function fmt_minutes(m)
  m = math.max(1, math.floor(m + 0.5))
  if m < 60 then return m .. " min" end
  local h = m // 60
  local r = m % 60
  return r == 0 and (h .. " hr") or (h .. " hr " .. r .. " min")
end

local with_commas = lib.text.thousands

local function row_of(p)
  return {
    id = p.id, name = p.name, icon = category_icon(p.category), kind = p.kind, category = p.category,
    rating = string.format("%.1f", tonumber(p.rating) or 0), reviews = with_commas(p.reviews),
    distance = fmt_dist(p.distance_km), street = tostring(p.address or ""):match("^[^,]+") or "",
  }
end

-- What the home and list screens show: the places nearby, the saved lists, and the places of
-- the open list, derived from the data each time a screen is drawn.
local function derive(list_name)
  local nearby = {}
  for _, p in ipairs(content.get("places") or {}) do
    if (tonumber(p.distance_km) or 99) <= 2.0 and (tonumber(p.rating) or 0) >= 4.4 then table.insert(nearby, p) end
  end
  table.sort(nearby, function(a, b)
    if a.rating ~= b.rating then return a.rating > b.rating end
    return a.distance_km < b.distance_km
  end)
  local rows = {}
  for i = 1, math.min(6, #nearby) do table.insert(rows, row_of(nearby[i])) end
  local lists, list_places = {}, {}
  for _, l in ipairs(state.get("lists") or {}) do
    if type(l) == "table" then
      local n = #(l.ids or {})
      table.insert(lists, { name = l.name, icon = l.icon or "bookmark", count = n, count_text = n .. " places" })
      if l.name == list_name then
        for _, id in ipairs(l.ids or {}) do
          local p = find_place(id)
          if p then table.insert(list_places, row_of(p)) end
        end
      end
    end
  end
  return { nearby = rows, lists = lists, list_name = list_name or "", list_places = list_places }
end

-- The open list: the list screen's parameter.
local function list_name_of(params) return params.name or params.path or "Favorites" end

function maps_view(ev) return derive() end
function list_view(ev) return derive(list_name_of(ev.params or {})) end

-- A search or an opened place goes first in the recent searches (one entry a text, 8 at most).
local function same_text(entry, other)
  return type(other) == "table" and other.text == entry.text
end

local function add_recent(text, place)
  text = trim(text)
  if text == "" then return end
  lib.store.remember("recents", { text = text, place = tonumber(place) or 0 }, 8, same_text)
end

local function lists_with(id)
  id = tonumber(id)
  local names = {}
  for _, l in ipairs(state.get("lists") or {}) do
    for _, x in ipairs((type(l) == "table" and l.ids) or {}) do
      if tonumber(x) == id then table.insert(names, l.name); break end
    end
  end
  return names
end

-- ---------------------------------------------------------------- home

function go_back(ev) nav.pop() end

function open_search(ev) nav.push("search") end

function show_location(ev)
  ui.toast("You are at " .. tostring(state.get("home_address") or ""))
end

search_category = C.opener("search", "category", "value")

function open_place(ev)
  local id = ev.item and ev.item.id
  local p = find_place(id)
  if not p then return end
  nav.push("place", { id = p.id })
end

function open_recent(ev)
  local r = ev.item
  if type(r) ~= "table" then return end
  if tonumber(r.place) and tonumber(r.place) > 0 and find_place(r.place) then
    add_recent(r.text, r.place)
    nav.push("place", { id = tonumber(r.place) })
  else
    nav.push("search", { query = r.text })
  end
end

function remove_recent(ev)
  local r, i = C.at("recents", ev.index)
  if r then state.remove("recents", i) end
end

function clear_recents(ev)
  confirm("Clear recent searches?", "Your search history on this phone will be deleted.", "Clear", "clear_recents_confirmed")
end

clear_recents_confirmed = C.clearer("recents", "Recent searches cleared")

-- A saved list opens from its row, or from its row's menu.
open_list = C.opener("list", "name", "name")
open_list_named = C.opener("list", "name", "name", "args")

function list_menu(ev)
  local name = C.text_of(ev, "name")
  if not name then return end
  C.menu(name, { name = name }, {
    { text = "Open", icon = "list", handler = "open_list_named" },
    { text = "Delete list", icon = "delete", handler = "delete_list_named" },
  })
end

function new_list(ev) C.open_dialog() end
function close_dialog(ev) locals.set("dialog", false) end

function create_list(ev)
  local name = C.dialog_name("Enter a name for the list", 40)
  if not name then return end
  for _, l in ipairs(state.get("lists") or {}) do
    if type(l) == "table" and l.name:lower() == name:lower() then
      ui.toast("A list with that name exists")
      return
    end
  end
  state.insert("lists", { name = name, icon = "bookmark", ids = {} })
  C.dialog_done("List \"" .. name .. "\" created")
end

-- ---------------------------------------------------------------- map

-- The camera ({x, y, zoom}) that shows every place of `rows` (ids) on a map about 330x250 dp:
-- at zoom 16 a metre is a dp, each zoom level halves that.
function camera_around(rows)
  local x0, y0, x1, y1
  for _, r in ipairs(rows or {}) do
    local pt = map.place(r.id)
    if pt then
      x0, y0 = math.min(x0 or pt.x, pt.x), math.min(y0 or pt.y, pt.y)
      x1, y1 = math.max(x1 or pt.x, pt.x), math.max(y1 or pt.y, pt.y)
    end
  end
  if not x0 then return {} end
  local zoom = 17
  while zoom > 12 and ((x1 - x0) * 2 ^ (zoom - 16) > 300 or (y1 - y0) * 2 ^ (zoom - 16) > 180) do zoom = zoom - 1 end
  return { x = (x0 + x1) / 2, y = (y0 + y1) / 2, zoom = zoom }
end

-- ---------------------------------------------------------------- search

-- The places matching the query and category, nearest first.
local function search_rows()
  local q = trim(locals.get("query")):lower()
  local cat = locals.get("category") or ""
  local results = {}
  if q ~= "" or cat ~= "" then
    for _, p in ipairs(content.get("places") or {}) do
      local hay = (p.name .. " " .. p.kind .. " " .. p.category .. " " .. p.address):lower()
      if (cat == "" or p.category == cat) and (q == "" or hay:find(q, 1, true)) then
        table.insert(results, p)
      end
    end
  end
  table.sort(results, function(a, b)
    if a.distance_km ~= b.distance_km then return a.distance_km < b.distance_km end
    return a.id < b.id
  end)
  local rows = {}
  for _, p in ipairs(results) do table.insert(rows, row_of(p)) end
  return rows
end

function search_view(ev)
  local rows = search_rows()
  local q, cat = trim(locals.get("query")), locals.get("category") or ""
  local summary = ""
  if q ~= "" or cat ~= "" then
    summary = #rows .. (#rows == 1 and " result" or " results") .. (cat ~= "" and (" in " .. cat) or "") .. ", nearest first"
  end
  local chips = { { label = "All", value = "" } }
  for _, c in ipairs(content.get("categories") or {}) do table.insert(chips, { label = c.label, value = c.value }) end
  return { results = rows, summary = summary, chips = chips }
end

-- The map over the results frames them whenever they change.
local function frame_results()
  locals.set("camera", camera_around(search_rows()))
end

function search_enter(ev)
  local p = ev.params or {}
  if locals.get("category") == nil then locals.set("category", type(p.category) == "string" and p.category or "") end
  if locals.get("query") == nil then locals.set("query", type(p.query) == "string" and p.query or "") end
  frame_results()
end

function search_changed(ev) frame_results() end

function search_submit(ev)
  frame_results()
  local q = trim(locals.get("query"))
  if q ~= "" then add_recent(q, 0) end
end

function search_clear(ev)
  locals.set("query", "")
  frame_results()
end

function pick_category(ev)
  local v = C.text_of(ev, "value")
  if not v then return end
  locals.set("category", v)
  frame_results()
end

function open_result(ev)
  local p = find_place(ev.item and ev.item.id)
  if not p then return end
  add_recent(p.name, p.id)
  nav.push("place", { id = p.id })
end

-- ---------------------------------------------------------------- place

local function open_status(hours)
  local h1, m1, h2, m2 = tostring(hours or ""):match("^(%d+):(%d+)–(%d+):(%d+)$")
  if not h1 then return tostring(hours or "") end
  local open, close = tonumber(h1) * 60 + tonumber(m1), tonumber(h2) * 60 + tonumber(m2)
  if close <= open then close = close + 1440 end
  local now = clock.minutes()
  if now < open and now + 1440 < close then now = now + 1440 end
  if now >= open and now < close then
    return "Open now · closes " .. clock.format_time(close)
  end
  return "Closed · opens " .. clock.format_time(open)
end

-- The place screen shows the place its entering picked (`local.id`); its map starts on it.
function place_enter(ev)
  local prm = ev.params or {}
  local p = find_place(prm.id or prm.path) or (content.get("places") or {})[1]
  if not p then return end
  locals.set("id", p.id)
  local pt = map.place(p.id)
  locals.set("camera", pt and { x = pt.x, y = pt.y, zoom = 16 } or {})
end

function place_view(ev)
  local p = find_place(locals.get("id"))
  if not p then return {} end
  local view = {}
  for _, k in ipairs({ "name", "kind", "address", "hours", "phone", "website", "description" }) do
    view[k] = p[k] or ""
  end
  view.icon = category_icon(p.category)
  view.rating = string.format("%.1f", tonumber(p.rating) or 0)
  view.reviews = with_commas(p.reviews)
  view.distance = fmt_dist(p.distance_km)
  view.saved_in = table.concat(lists_with(p.id), ", ")
  view.status = open_status(p.hours)
  view.pins = { { id = p.id, name = p.name } }
  return view
end

function share_place(ev)
  local p = find_place(locals.get("id"))
  if not p then return end
  ui.share{ text = p.name .. "\n" .. p.address .. "\nhttps://maps.example/place/" .. p.id }
end

function copy_address(ev)
  local a = (find_place(locals.get("id")) or {}).address
  if type(a) ~= "string" or a == "" then return end
  clipboard.set(a)
  ui.toast("Address copied")
end

function call_place(ev)
  local p = find_place(locals.get("id")) or {}
  local phone = p.phone
  if type(phone) ~= "string" or phone == "" then
    ui.toast("No phone number")
    return
  end
  confirm("Call " .. tostring(p.name or "") .. "?", phone, "Call", "call_confirmed", { phone = phone })
end

function call_confirmed(ev)
  local phone = ev.args and ev.args.phone or ""
  ui.toast("Calling " .. phone .. "…")
end

function save_place(ev)
  local id = tonumber(locals.get("id"))
  if not find_place(id) then return end
  local options = {}
  local saved = {}
  for _, n in ipairs(lists_with(id)) do saved[n] = true end
  for _, l in ipairs(state.get("lists") or {}) do
    if type(l) == "table" then
      table.insert(options, C.check_option(l.name, saved[l.name], "toggle_in_list", { id = id, name = l.name }))
    end
  end
  ui.sheet{ title = "Save to list", options = options }
end

function toggle_in_list(ev)
  local a = ev.args or {}
  local id = tonumber(a.id)
  for i, l in ipairs(state.get("lists") or {}) do
    if type(l) == "table" and l.name == a.name then
      local ids, added = C.toggled(l.ids, id, C.same_id)
      state.set("lists." .. i .. ".ids", ids)
      ui.toast(added and ("Saved to " .. l.name) or ("Removed from " .. l.name))
    end
  end
end

function open_directions(ev)
  local id = locals.get("id")
  if not find_place(id) then return end
  nav.push("directions", { id = id })
end

-- ---------------------------------------------------------------- directions

local TURN_ICONS = { left = "turn_left", right = "turn_right", straight = "straight" }

-- The route the directions screen shows: to (or, reversed, from) its place by the chosen mode.
local function route_model()
  local p = find_place(locals.get("id"))
  if not p then return nil end
  local mode = locals.get("mode")
  if not MODES[mode] then mode = "drive" end
  local m = MODES[mode]
  local reversed = locals.get("reversed") and true or false
  local from_id, to_id = 0, p.id
  local from, to = "Your location", p.name
  if reversed then from, to, from_id, to_id = p.name, "Your location", p.id, 0 end
  -- The route along the streets: its length, its streets and turns.
  local r = map.route(from_id, to_id) or { meters = (tonumber(p.distance_km) or 1) * 1000, steps = {}, camera = {} }
  local km = r.meters / 1000
  local streets = {}
  for _, st in ipairs(r.steps) do table.insert(streets, st) end
  local longest = streets[1]
  for _, st in ipairs(streets) do if st.meters > longest.meters then longest = st end end
  local steps = {}
  if mode == "transit" then
    local lines = content.get("transit") or {}
    local line = lines[(tonumber(p.id) % math.max(1, #lines)) + 1] or { line = "Bus 1", toward = "Downtown" }
    local stops = math.max(2, math.floor(km * 1.6 + 0.5))
    local a = (streets[1] or {}).street or "Central Ave"
    local b = (streets[#streets] or {}).street or a
    table.insert(steps, { icon = "directions_walk", text = "Walk to " .. a .. " stop", detail = fmt_dist(km * 0.08) .. " · " .. fmt_minutes(km * 0.08 / 4.8 * 60) })
    table.insert(steps, { icon = "directions_bus", text = "Take " .. line.line .. " toward " .. line.toward, detail = stops .. " stops · " .. fmt_minutes(km * 0.84 / m.kmh * 60) })
    table.insert(steps, { icon = "directions_walk", text = "Get off at " .. b .. " and walk to " .. to, detail = fmt_dist(km * 0.08) .. " · " .. fmt_minutes(km * 0.08 / 4.8 * 60) })
  else
    local verb = mode == "walk" and "Walk" or "Head"
    for i, st in ipairs(streets) do
      local text
      if i == 1 then
        text = verb .. " " .. st.turn .. " on " .. st.street
      elseif st.turn == "straight" then
        text = "Continue onto " .. st.street
      else
        text = "Turn " .. st.turn .. " onto " .. st.street
      end
      table.insert(steps, { icon = TURN_ICONS[st.turn] or st.turn, text = text, detail = fmt_dist(st.meters / 1000) })
    end
  end
  table.insert(steps, { icon = "flag", text = to .. (reversed and "" or " will be on the right"), detail = reversed and "" or tostring(p.address) })
  local minutes = km / m.kmh * 60 + m.extra
  return {
    steps = steps,
    mode = mode,
    mode_icon = m.icon,
    from = from,
    to = to,
    minutes = math.floor(minutes + 0.5),
    total_time = fmt_minutes(minutes),
    total_dist = fmt_dist(km),
    summary = mode == "transit" and "Includes a 6 min wait" or ("via " .. (longest and longest.street or "")),
    route = { from = from_id, to = to_id },
    pins = { { id = p.id, name = p.name } },
    camera = r.camera,
    modes = { { label = "Drive", value = "drive" }, { label = "Walk", value = "walk" }, { label = "Transit", value = "transit" } },
  }
end

function directions_view(ev)
  return route_model() or {}
end

-- The map over the route frames it whenever the route changes.
local function frame_route()
  local r = route_model()
  if r then locals.set("camera", r.camera) end
end

function directions_enter(ev)
  local prm = ev.params or {}
  local p = find_place(prm.id or prm.path)
  if not p then p = (content.get("places") or {})[1] end
  if not p then return end
  locals.set("id", p.id)
  if locals.get("mode") == nil then locals.set("mode", state.get("mode") or "drive") end
  frame_route()
end

function set_mode(ev)
  local v = ev.item and ev.item.value
  if not MODES[v] then return end
  locals.set("mode", v)
  state.set("mode", v)
  frame_route()
end

function swap_route(ev)
  locals.set("reversed", not locals.get("reversed"))
  frame_route()
end

function share_route(ev)
  local r = route_model()
  if not r then return end
  ui.share{ text = r.from .. " → " .. r.to .. ": " .. r.total_time .. " (" .. r.total_dist .. ") by " .. MODES[r.mode].label:lower() }
end

function start_navigation(ev)
  local r = route_model() or {}
  local to = tostring(r.to or "")
  local arrive = (clock.minutes() + (tonumber(r.minutes) or 0)) % 1440
  ui.toast(string.format("Navigating to %s · arrive %02d:%02d", to, arrive // 60, arrive % 60))
end

-- ---------------------------------------------------------------- saved list

function remove_from_list(ev)
  local id = ev.item and tonumber(ev.item.id)
  local name = list_name_of(ev.params or {})
  for i, l in ipairs(state.get("lists") or {}) do
    if type(l) == "table" and l.name == name then
      state.set("lists." .. i .. ".ids", (C.without(l.ids, id, C.same_id)))
      ui.snackbar{ text = "Removed from " .. name, action = "Undo", handler = "undo_remove", args = { name = name, ids = l.ids } }
      return
    end
  end
end

function undo_remove(ev)
  local a = ev.args or {}
  for i, l in ipairs(state.get("lists") or {}) do
    if type(l) == "table" and l.name == a.name and type(a.ids) == "table" then
      state.set("lists." .. i .. ".ids", a.ids)
    end
  end
end

function share_list(ev)
  local view = derive(list_name_of(ev.params or {}))
  local names = {}
  for _, r in ipairs(view.list_places or {}) do table.insert(names, "• " .. r.name) end
  ui.share{ text = tostring(view.list_name or "") .. "\n" .. table.concat(names, "\n") }
end

local function remove_list(name)
  local _, i = find(state.get("lists"), "name", name)
  if i then state.remove("lists", i) end
  return i ~= nil
end

function delete_list(ev)
  local name = list_name_of(ev.params or {})
  confirm("Delete \"" .. tostring(name) .. "\"?", "The list is deleted; the places stay on the map.", "Delete",
    "delete_list_confirmed", { name = name })
end

function delete_list_confirmed(ev)
  if remove_list(ev.args and ev.args.name) then
    nav.pop()
    ui.toast("List deleted")
  end
end

function delete_list_named(ev)
  if remove_list(ev.args and ev.args.name) then ui.toast("List deleted") end
end
