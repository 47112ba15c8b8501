-- Music: the catalog is content; playback, queue, liked songs and playlists live in state.
-- The screens' view derives what they show. Position advances once a second while
-- playing (timer ticks carry a run token so a stale tick chain stops).

local function fmt(secs)
  secs = math.max(0, math.floor(tonumber(secs) or 0))
  return string.format("%d:%02d", secs // 60, secs % 60)
end

local trim = lib.text.trim
local confirm = lib.orders.confirm
local C = lib.collections
local has = C.has_id

local function song(id)
  return (lib.lists.by_id(content.get("songs"), id))
end

local function album(name)
  return (lib.lists.find(content.get("albums"), "name", name))
end

local function find_playlist(id)
  return lib.lists.by_id(state.get("playlists"), id)
end

local function pb()
  local p = state.get("playback") or {}
  p.position = tonumber(p.position) or 0
  p.run = tonumber(p.run) or 0
  return p
end

-- What the library, now-playing and queue screens show, derived from playback, the queue and
-- the playlists each time a screen is drawn.
local function derive()
  local p = pb()
  local cur = song(p.song)
  local queue = state.get("queue") or {}
  local view = { now = {}, queue = {}, playlists = {}, songs = {} }
  if cur then
    local nxt
    for i, id in ipairs(queue) do
      if tonumber(id) == tonumber(cur.id) and queue[i + 1] then nxt = song(queue[i + 1]) end
    end
    local modes = {}
    if p.shuffle then table.insert(modes, "Shuffle on") end
    if p["repeat"] == "all" then table.insert(modes, "Repeat all") end
    if p["repeat"] == "one" then table.insert(modes, "Repeat one") end
    view.now = {
      id = cur.id, title = cur.title, artist = cur.artist, album = cur.album, cover = (album(cur.album) or {}).cover or "",
      elapsed = fmt(p.position), length = cur.length, fraction = p.position / math.max(1, cur.seconds),
      liked = has(state.get("liked"), cur.id), next = nxt and (nxt.title .. " · " .. nxt.artist) or "",
      modes = table.concat(modes, " · "),
    }
  end
  local total = 0
  for i, id in ipairs(queue) do
    local s = song(id)
    if s then
      total = total + s.seconds
      table.insert(view.queue, { id = s.id, title = s.title, artist = s.artist, length = s.length, current = cur and tonumber(cur.id) == tonumber(s.id) or false, last = i == #queue })
    end
  end
  view.queue_time = total >= 3600 and string.format("%d hr %d min", total // 3600, (total % 3600) // 60) or (total // 60 .. " min")
  for _, pl in ipairs(state.get("playlists") or {}) do
    if type(pl) == "table" then
      local n = #(pl.songs or {})
      table.insert(view.playlists, { id = pl.id, name = pl.name, count = n, count_text = n == 1 and "1 song" or (n .. " songs") })
    end
  end
  local all = {}
  for _, s in ipairs(content.get("songs") or {}) do table.insert(all, s) end
  table.sort(all, function(a, b) return a.title:lower() < b.title:lower() end)
  for _, s in ipairs(all) do
    table.insert(view.songs, { id = s.id, title = s.title, artist = s.artist, album = s.album, length = s.length })
  end
  return view
end

function music_view(ev) return derive() end

local function set_playback(p)
  state.set("playback", p)
end

local function schedule(p)
  p.run = (tonumber(p.run) or 0) + 1
  timer.after(1000, "tick", { run = p.run })
end

local function start_song(id, keep_queue_list)
  local s = song(id)
  if not s then return end
  local p = pb()
  p.song = s.id
  p.position = 0
  p.progress = 0
  p.playing = true
  schedule(p)
  if keep_queue_list then state.set("queue", keep_queue_list) end
  if not has(state.get("queue"), s.id) then state.insert("queue", s.id, 1) end
  set_playback(p)
end

local function queue_index(id)
  return C.index_of(state.get("queue"), id)
end

local function advance(step, from_tick)
  local p = pb()
  local queue = state.get("queue") or {}
  if #queue == 0 then
    p.playing = false
    set_playback(p)
    return
  end
  if from_tick and p["repeat"] == "one" then
    start_song(p.song)
    return
  end
  local i = queue_index(p.song) or 0
  local j
  if p.shuffle and #queue > 1 then
    j = math.random(1, #queue - 1)
    if j >= i then j = j + 1 end
  else
    j = i + step
  end
  if j < 1 then j = 1 end
  if j > #queue then
    if p["repeat"] == "all" or not from_tick then
      j = 1
    else
      p.playing = false
      p.position = 0
      p.progress = 0
      p.run = p.run + 1
      set_playback(p)
      return
    end
  end
  start_song(queue[j])
end

-- ---------------------------------------------------------------- playback

function go_back(ev) nav.pop() end

function tick(ev)
  local p = pb()
  if not p.playing or tonumber(ev.args and ev.args.run) ~= p.run then return end
  local s = song(p.song)
  if not s then return end
  p.position = p.position + 1
  if p.position >= s.seconds then
    advance(1, true)
    return
  end
  p.progress = math.floor(p.position * 100 / s.seconds)
  timer.after(1000, "tick", { run = p.run })
  set_playback(p)
end

function toggle_play(ev)
  local p = pb()
  if not song(p.song) then
    local first = (state.get("queue") or {})[1] or 1
    start_song(first)
    return
  end
  p.playing = not p.playing
  if p.playing then schedule(p) else p.run = p.run + 1 end
  set_playback(p)
end

function next_song(ev) advance(1, false) end

function prev_song(ev)
  local p = pb()
  if p.position > 3 then
    p.position = 0
    p.progress = 0
    set_playback(p)
    return
  end
  advance(-1, false)
end

function seek(ev)
  local p = pb()
  local s = song(p.song)
  if not s then return end
  local pct = math.max(0, math.min(100, tonumber(ev.value) or 0))
  p.progress = pct
  p.position = math.floor(s.seconds * pct / 100)
  set_playback(p)
end

function toggle_shuffle(ev)
  local p = pb()
  p.shuffle = not p.shuffle
  set_playback(p)
  ui.toast(p.shuffle and "Shuffle on" or "Shuffle off")
end

function cycle_repeat(ev)
  local p = pb()
  local nxt = { off = "all", all = "one", one = "off" }
  p["repeat"] = nxt[p["repeat"] or "off"] or "off"
  set_playback(p)
  ui.toast(p["repeat"] == "off" and "Repeat off" or (p["repeat"] == "all" and "Repeat all" or "Repeat one"))
end

function toggle_like(ev)
  local id = tonumber(pb().song)
  if not song(id) then return end
  ui.toast(C.toggle_id("liked", id) and "Added to Liked songs" or "Removed from Liked songs")
end

-- ---------------------------------------------------------------- library

function open_search(ev) nav.push("search") end
function open_queue(ev) nav.push("queue") end
function open_now_playing(ev) nav.push("now_playing") end

function play_song(ev)
  local id = ev.item and ev.item.id
  if not song(id) then return end
  -- Playing from the song list queues the whole library from that song.
  local list, found = {}, false
  for _, s in ipairs(derive().songs) do
    if tonumber(s.id) == tonumber(id) then found = true end
    if found and #list < 25 then table.insert(list, s.id) end
  end
  start_song(id, list)
  nav.push("now_playing")
end

-- `ids` in a random order (in place).
local function shuffle(ids)
  for i = #ids, 2, -1 do
    local j = math.random(1, i)
    ids[i], ids[j] = ids[j], ids[i]
  end
  return ids
end

-- Plays `ids` from the first on the now-playing screen, with shuffle on or off.
local function play_ids(ids, shuffled)
  local p = pb()
  p.shuffle = shuffled
  state.set("playback", p)
  start_song(ids[1], ids)
  nav.push("now_playing")
end

function shuffle_all(ev)
  local ids = {}
  for _, s in ipairs(content.get("songs") or {}) do table.insert(ids, s.id) end
  shuffle(ids)
  local list = {}
  for i = 1, math.min(25, #ids) do list[i] = ids[i] end
  play_ids(list, true)
end

function song_menu(ev)
  local s = song(ev.item and ev.item.id)
  if not s then return end
  ui.sheet{
    title = s.title .. " · " .. s.artist,
    options = {
      { text = "Play next", icon = "playlist_play", handler = "menu_play_next", args = { id = s.id } },
      { text = "Add to queue", icon = "add_to_queue", handler = "menu_add_queue", args = { id = s.id } },
      { text = "Add to playlist", icon = "playlist_add", handler = "menu_add_playlist", args = { id = s.id } },
      { text = "Go to album", icon = "album", handler = "menu_go_album", args = { id = s.id } },
      { text = "Share", icon = "share", handler = "menu_share", args = { id = s.id } },
    },
  }
end

function menu_play_next(ev)
  local s = song(ev.args and ev.args.id)
  if not s then return end
  local i = queue_index(pb().song) or 0
  local q = queue_index(s.id)
  if q then state.remove("queue", q); if q <= i then i = i - 1 end end
  state.insert("queue", s.id, math.min(i + 1, #(state.get("queue") or {})) + 1)
  ui.toast(s.title .. " plays next")
end

function menu_add_queue(ev)
  local s = song(ev.args and ev.args.id)
  if not s then return end
  state.insert("queue", s.id)
  ui.toast("Added to queue")
end

function menu_add_playlist(ev)
  local s = song(ev.args and ev.args.id)
  if not s then return end
  local options = {}
  for _, pl in ipairs(state.get("playlists") or {}) do
    if type(pl) == "table" then
      local inside = has(pl.songs, s.id)
      table.insert(options, { text = pl.name .. (inside and " (added)" or ""), icon = inside and "check" or "queue_music", handler = "add_to_playlist", args = { id = s.id, playlist = pl.id } })
    end
  end
  C.sheet("Add to playlist", options, "Create a playlist first")
end

function add_to_playlist(ev)
  local a = ev.args or {}
  local s = song(a.id)
  if not s then return end
  local pl, i = find_playlist(a.playlist)
  if not pl then return end
  if has(pl.songs, s.id) then
    ui.toast("Already in " .. pl.name)
  else
    state.insert("playlists." .. i .. ".songs", s.id)
    ui.toast("Added to " .. pl.name)
  end
end

function menu_go_album(ev)
  local s = song(ev.args and ev.args.id)
  if s then nav.push("album", { album = s.album }) end
end

function menu_share(ev)
  local s = song(ev.args and ev.args.id)
  if s then ui.share{ text = "Listening to \"" .. s.title .. "\" by " .. s.artist .. " (" .. s.album .. ")" } end
end

function now_menu(ev)
  local p = pb()
  if not song(p.song) then return end
  song_menu({ item = { id = p.song } })
end

function open_now_album(ev)
  local s = song(pb().song)
  if s then nav.push("album", { album = s.album }) end
end

-- ---------------------------------------------------------------- album / artist

local function tracks_of_album(name)
  local t = {}
  for _, s in ipairs(content.get("songs") or {}) do
    if s.album == name then table.insert(t, { id = s.id, title = s.title, artist = s.artist, album = s.album, track = s.track, length = s.length }) end
  end
  table.sort(t, function(a, b) return a.track < b.track end)
  return t
end

-- An album, or every album of an artist (`artist` in the parameters).
local function album_model(prm)
  if prm.artist then
    local tracks = {}
    local albums = 0
    for _, a in ipairs(content.get("albums") or {}) do
      if a.artist == prm.artist then
        albums = albums + 1
        for _, t in ipairs(tracks_of_album(a.name)) do table.insert(tracks, t) end
      end
    end
    return { name = prm.artist, artist = prm.artist, info = albums .. (albums == 1 and " album · " or " albums · ") .. #tracks .. " songs", tracks = tracks }
  end
  local a = album(prm.album or prm.path) or (content.get("albums") or {})[1]
  if not a then return {} end
  return {
    name = a.name,
    artist = a.artist,
    cover = a.cover or "",
    info = a.genre .. " · " .. a.year .. " · " .. a.tracks .. " songs, " .. a.minutes .. " min",
    tracks = tracks_of_album(a.name),
  }
end

local playlist_model

-- What an album or playlist screen lists, from its parameters (a playlist has `id` or `liked`).
local function list_model(prm)
  prm = prm or {}
  if prm.liked or prm.id then return playlist_model(prm) end
  return album_model(prm)
end

function list_view(ev)
  return list_model(ev.params)
end

function open_album(ev)
  local name = ev.item and ev.item.name
  if album(name) then nav.push("album", { album = name }) end
end

open_artist = C.opener("album", "artist", "name")

function open_album_artist(ev)
  local name = list_model(ev.params).artist
  if type(name) == "string" and name ~= "" then nav.push("album", { artist = name }) end
end

local function list_ids(ev)
  local ids = {}
  for _, t in ipairs(list_model(ev.params).tracks or {}) do table.insert(ids, t.id) end
  return ids
end

function play_from_list(ev)
  local id = ev.item and ev.item.id
  if not song(id) then return end
  start_song(id, list_ids(ev))
  nav.push("now_playing")
end

function play_all(ev)
  local ids = list_ids(ev)
  if #ids > 0 then play_ids(ids, false) end
end

function shuffle_list(ev)
  local ids = list_ids(ev)
  if #ids > 0 then play_ids(shuffle(ids), true) end
end

function queue_list(ev)
  local ids = list_ids(ev)
  for _, id in ipairs(ids) do state.insert("queue", id) end
  ui.toast(#ids .. " songs added to queue")
end

function share_album(ev)
  local shown = list_model(ev.params)
  ui.share{ text = tostring(shown.name or "") .. " — " .. tostring(shown.artist or "") }
end

-- ---------------------------------------------------------------- playlists

function playlist_model(prm)
  local ids, name
  if prm.liked then
    ids = state.get("liked") or {}
    name = "Liked songs"
  else
    local pl = find_playlist(prm.id)
    if not pl then return {} end
    ids = pl.songs or {}
    name = pl.name
  end
  local tracks, total = {}, 0
  for _, id in ipairs(ids) do
    local s = song(id)
    if s then
      total = total + s.seconds
      table.insert(tracks, { id = s.id, title = s.title, artist = s.artist, album = s.album, track = s.track, length = s.length })
    end
  end
  return {
    name = name,
    artist = prm.liked and "Songs you liked" or "Your playlist",
    info = #tracks .. (#tracks == 1 and " song · " or " songs · ") .. (total // 60) .. " min",
    tracks = tracks,
  }
end

function open_playlist(ev)
  local id = ev.item and ev.item.id
  if find_playlist(id) then nav.push("playlist", { id = id }) end
end

function open_liked(ev) nav.push("playlist", { liked = true }) end

function remove_from_playlist(ev)
  local prm = ev.params or {}
  local id = ev.item and tonumber(ev.item.id)
  if not id then return end
  local path
  if prm.liked then
    path = "liked"
  else
    local _, i = find_playlist(prm.id)
    if not i then return end
    path = "playlists." .. i .. ".songs"
  end
  local list = state.get(path) or {}
  for k = #list, 1, -1 do
    if tonumber(list[k]) == id then
      lib.orders.remove(path, k, "Removed " .. tostring(ev.item.title), "undo_playlist_remove", { path = path, id = id, pos = k })
      return
    end
  end
end

function undo_playlist_remove(ev)
  local a = ev.args or {}
  if type(a.path) ~= "string" or not song(a.id) then return end
  local list = state.get(a.path)
  if type(list) ~= "table" or has(list, a.id) then return end
  lib.orders.put_back(a.path, tonumber(a.id), a.pos)
end

function share_playlist(ev)
  local names = {}
  local shown = list_model(ev.params)
  for _, t in ipairs(shown.tracks or {}) do table.insert(names, t.title .. " — " .. t.artist) end
  ui.share{ text = tostring(shown.name or "Playlist") .. "\n" .. table.concat(names, "\n") }
end

function new_playlist(ev) C.open_dialog() end
function close_dialog(ev) locals.set("dialog", false) end

function create_playlist(ev)
  local name = C.dialog_name("Give the playlist a name", 40)
  if not name then return end
  state.insert("playlists", { id = C.take_id("next_playlist"), name = name, songs = {} })
  C.dialog_done("Playlist \"" .. name .. "\" created")
end

function playlist_menu(ev)
  C.row_menu(ev, find_playlist, "name", {
    { text = "Play", icon = "play_arrow", handler = "play_playlist" },
    { text = "Delete playlist", icon = "delete", handler = "delete_playlist" },
  })
end

function play_playlist(ev)
  local pl = find_playlist(ev.args and ev.args.id)
  if not pl or #(pl.songs or {}) == 0 then
    ui.toast("This playlist is empty")
    return
  end
  start_song(pl.songs[1], pl.songs)
  nav.push("now_playing")
end

function delete_playlist(ev)
  local pl = find_playlist(ev.args and ev.args.id)
  if not pl then return end
  confirm("Delete \"" .. pl.name .. "\"?", "The playlist is deleted; the songs stay in your library.", "Delete",
    "delete_playlist_confirmed", { id = pl.id })
end

function delete_playlist_confirmed(ev)
  if C.remove_id("playlists", ev.args and ev.args.id) then ui.toast("Playlist deleted") end
end

-- ---------------------------------------------------------------- queue

function play_queue_item(ev)
  local id = ev.item and ev.item.id
  if song(id) then start_song(id) end
end

local function swap_queue(i, j)
  local q = state.get("queue") or {}
  if not (q[i] and q[j]) then return end
  q[i], q[j] = q[j], q[i]
  state.set("queue", q)
end

function queue_up(ev)
  local i = tonumber(ev.index)
  if i and i > 1 then swap_queue(i, i - 1) end
end

function queue_down(ev)
  local i = tonumber(ev.index)
  if i then swap_queue(i, i + 1) end
end

function queue_remove(ev)
  local id, i = C.at("queue", ev.index)
  if id then lib.orders.remove("queue", i, "Removed from queue", "undo_queue_remove", { id = id, pos = i }) end
end

function undo_queue_remove(ev)
  local a = ev.args or {}
  if song(a.id) then lib.orders.put_back("queue", tonumber(a.id), a.pos) end
end

function clear_queue(ev)
  confirm("Clear queue?", "All songs will be removed from the queue.", "Clear", "clear_queue_confirmed")
end

function clear_queue_confirmed(ev)
  local p = pb()
  p.playing = false
  p.run = p.run + 1
  state.set("queue", {})
  set_playback(p)
  ui.toast("Queue cleared")
end

-- ---------------------------------------------------------------- search

local KINDS = { { label = "All", value = "" }, { label = "Songs", value = "songs" }, { label = "Albums", value = "albums" }, { label = "Artists", value = "artists" } }

function search_view(ev)
  local q = trim(locals.get("query")):lower()
  local kind = locals.get("kind") or ""
  local results = {}
  if q ~= "" then
    if kind == "" or kind == "songs" then
      for _, s in ipairs(content.get("songs") or {}) do
        if (s.title .. " " .. s.artist):lower():find(q, 1, true) then
          table.insert(results, { kind = "song", id = s.id, icon = "music_note", title = s.title, subtitle = "Song · " .. s.artist, meta = s.length })
        end
      end
    end
    if kind == "" or kind == "albums" then
      for _, a in ipairs(content.get("albums") or {}) do
        if (a.name .. " " .. a.artist):lower():find(q, 1, true) then
          table.insert(results, { kind = "album", name = a.name, icon = "album", title = a.name, subtitle = "Album · " .. a.artist .. " · " .. a.year, meta = "" })
        end
      end
    end
    if kind == "" or kind == "artists" then
      for _, a in ipairs(content.get("artists") or {}) do
        if a.name:lower():find(q, 1, true) then
          table.insert(results, { kind = "artist", name = a.name, icon = "person", title = a.name, subtitle = "Artist", meta = "" })
        end
      end
    end
  end
  return { results = results, chips = KINDS }
end

function search_enter(ev)
  if locals.get("kind") == nil then locals.set("kind", "") end
end

function search_clear(ev) locals.set("query", "") end
search_kind = C.picker("kind", "value")

function open_result(ev)
  local r = ev.item
  if type(r) ~= "table" then return end
  if r.kind == "song" and song(r.id) then
    start_song(r.id)
    nav.push("now_playing")
  elseif r.kind == "album" then
    nav.push("album", { album = r.name })
  elseif r.kind == "artist" then
    nav.push("album", { artist = r.name })
  end
end
