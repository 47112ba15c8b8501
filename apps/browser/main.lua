-- Browser: pages are content; tabs (each with its own back/forward stack), history, bookmarks and
-- the shop cart live in state; the page and tabs screens' view derives what they show.

local SEARCH = "search.example.com/?q="

local trim = lib.text.trim
local orders = lib.orders

local function normalize(text)
  local u = trim(text):lower()
  u = u:gsub("^%a+://", ""):gsub("^www%.", ""):gsub("/+$", "")
  return u
end

local function find_page(url) return lib.lists.find(content.get("pages"), "url", url) end

local function url_decode(s)
  return (tostring(s or ""):gsub("+", " "):gsub("%%20", " "))
end

-- The page for a url: a content page, a search-results page, or "not found".
local function page_for(url)
  local p = find_page(url)
  if p then return p end
  if url:sub(1, #SEARCH) == SEARCH then
    local q = url_decode(url:sub(#SEARCH + 1))
    local blocks = {
      { type = "meta", text = tostring(state.get("settings.engine") or "Seekr") .. " search" },
      { type = "h1", text = "Results for \"" .. q .. "\"" },
    }
    local n = 0
    local ql = q:lower()
    for _, pg in ipairs(content.get("pages") or {}) do
      local hay = pg.title:lower()
      for _, b in ipairs(pg.blocks or {}) do hay = hay .. " " .. tostring(b.text or ""):lower() end
      local all = ql ~= ""
      for word in ql:gmatch("%S+") do
        if not hay:find(word, 1, true) then all = false end
      end
      if pg.url ~= "start.page" and all then
        n = n + 1
        table.insert(blocks, { type = "link", text = pg.title, href = pg.url })
        table.insert(blocks, { type = "meta", text = pg.url })
      end
    end
    if n == 0 then table.insert(blocks, { type = "p", text = "No results. Check the spelling or try fewer words." }) end
    return { url = url, title = q .. " - Search", icon = "search", blocks = blocks }
  end
  return {
    url = url, title = "Page not found", icon = "public_off", missing = true,
    blocks = {
      { type = "h1", text = "This site can't be reached" },
      { type = "p", text = "Check whether there is a typo in " .. url .. "." },
      { type = "li", text = "Check the connection" },
      { type = "li", text = "Check the address" },
      { type = "link", text = "Search for " .. url, href = SEARCH .. url },
    },
  }
end

-- The tab a new one would be: the next id, on the home page.
local function fresh_tab()
  return { id = tonumber(state.get("next_tab")) or 1, stack = { state.get("settings.home") or "start.page" }, pos = 1 }
end

-- Opens a new tab on the home page and makes it the current one.
local function add_tab()
  local t = fresh_tab()
  state.set("next_tab", t.id + 1)
  state.insert("tabs", t)
  state.set("current", t.id)
  return t
end

local function current_tab()
  local tabs = state.get("tabs") or {}
  local t, i = lib.lists.by_id(tabs, state.get("current"))
  if t then return t, i end
  if tabs[1] then
    state.set("current", tabs[1].id)
    return tabs[1], 1
  end
  -- No tabs left: open one on the home page.
  t = add_tab()
  return t, #(state.get("tabs") or {})
end

local function tab_url(t)
  local stack = t.stack or {}
  local pos = math.max(1, math.min(tonumber(t.pos) or #stack, #stack))
  return stack[pos] or "start.page"
end

local function is_bookmarked(url)
  return lib.lists.find(state.get("bookmarks"), "url", url) ~= nil
end

-- The current tab as the data has it, without changing anything: a view may only read (with
-- no tab left, the tab current_tab would open).
local function peek_tab()
  local tabs = state.get("tabs") or {}
  return lib.lists.by_id(tabs, state.get("current")) or tabs[1] or fresh_tab()
end

-- How many times a find-in-page query occurs in a block's text.
local function matches_in(text, q)
  local n, s = 0, 1
  text = tostring(text or ""):lower()
  while q ~= "" do
    local a, e = text:find(q, s, true)
    if not a then break end
    n, s = n + 1, e + 1
  end
  return n
end

-- What the page and tabs screens show: the current tab's page (its blocks marked where a
-- find-in-page query matches), the tabs, whether the page is bookmarked.
local function derive()
  local t = peek_tab()
  local url = tab_url(t)
  local p = page_for(url)
  local q = locals.get("finding") and trim(locals.get("find")):lower() or ""
  local blocks, found = {}, 0
  for _, b in ipairs(p.blocks or {}) do
    local n = matches_in(b.text, q)
    found = found + n
    table.insert(blocks, { type = b.type, text = b.text or "", href = b.href or "", icon = b.icon or "", action = b.action or "", hit = n > 0 })
  end
  local tabs = {}
  for _, tb in ipairs(state.get("tabs") or {}) do
    local tu = tab_url(tb)
    local tp = page_for(tu)
    table.insert(tabs, { id = tb.id, url = tu, title = tp.title, icon = tp.icon or "public", current = tonumber(tb.id) == tonumber(t.id) })
  end
  return {
    url = url, title = p.title, blocks = blocks,
    secure = not p.missing and url ~= "start.page",
    can_back = (tonumber(t.pos) or 1) > 1, can_forward = (tonumber(t.pos) or 1) < #(t.stack or {}),
    tab_count = #tabs, tabs = tabs, bookmarked = is_bookmarked(url),
    find_result = q == "" and "" or (found == 1 and "1 match" or (found .. " matches")),
  }
end

function browser_view(ev) return derive() end

-- Keeps a current tab (opening one on the home page when none is left) and puts its address in
-- the address bar (a handler may run under the page, from a snackbar or sheet; the page shows
-- the address again whenever it is revealed).
local function settle()
  local url = tab_url(current_tab())
  locals.set("address", url == "start.page" and "" or url)
end

local function add_history(url, title)
  if url == "start.page" then return end
  local h = state.get("history") or {}
  if h[1] and h[1].url == url then return end
  state.insert("history", { url = url, title = title, when = "Today " .. lib.dates.hhmm(clock.minutes()) }, 1)
  h = state.get("history") or {}
  for i = #h, 51, -1 do state.remove("history", i) end
end

local function navigate(url)
  local t, i = current_tab()
  local stack = {}
  for k = 1, math.min(tonumber(t.pos) or 1, #(t.stack or {})) do table.insert(stack, t.stack[k]) end
  if stack[#stack] ~= url then table.insert(stack, url) end
  state.set("tabs." .. i .. ".stack", stack)
  state.set("tabs." .. i .. ".pos", #stack)
  add_history(url, page_for(url).title)
  locals.set("finding", false)
  settle()
end

-- ---------------------------------------------------------------- page

function open_tab(ev) current_tab() end

function page_enter(ev)
  local p = ev.params or {}
  if type(p.url) == "string" and p.url ~= "" then
    navigate(normalize(p.url))
  elseif type(p.path) == "string" and p.path ~= "" then
    navigate(normalize(p.path))
  else
    settle()
  end
end

function go_address(ev)
  local text = trim(locals.get("address") or "")
  if text == "" then return end
  local url
  if text:find("%s") or not text:find("[%./]") then
    url = SEARCH .. text:gsub("%s+", "+")
  else
    url = normalize(text)
  end
  navigate(url)
end

function go_home_page(ev)
  navigate(state.get("settings.home") or "start.page")
end

function follow_link(ev)
  local href = ev.item and ev.item.href
  if type(href) ~= "string" or href == "" then return end
  navigate(href)
end

-- Back (-1) or forward (1) in the current tab's pages, when there is a page that way.
local function move(delta)
  local t, i = current_tab()
  local pos = (tonumber(t.pos) or 1) + delta
  if pos < 1 or pos > #(t.stack or {}) then return end
  state.set("tabs." .. i .. ".pos", pos)
  settle()
end

function go_back_page(ev) move(-1) end
function go_forward_page(ev) move(1) end

function reload_page(ev)
  settle()
  ui.toast("Reloaded")
end

function toggle_bookmark(ev)
  local v = derive()
  local url = v.url
  if type(url) ~= "string" or url == "" then return end
  local b = state.get("bookmarks") or {}
  for i = #b, 1, -1 do
    if type(b[i]) == "table" and b[i].url == url then
      state.remove("bookmarks", i)
      settle()
      ui.toast("Bookmark removed")
      return
    end
  end
  state.insert("bookmarks", { url = url, title = v.title or url }, 1)
  settle()
  ui.toast("Bookmarked")
end

function page_button(ev)
  local b = ev.item or {}
  if b.action == "add_to_cart" then
    local v = derive()
    state.insert("cart", { url = v.url, title = v.title })
    ui.snackbar{ text = "Added to cart (" .. #(state.get("cart") or {}) .. ")", action = "Undo", handler = "undo_cart" }
  end
end

function undo_cart(ev)
  local c = state.get("cart") or {}
  if #c > 0 then state.remove("cart", #c) end
end

function page_menu(ev)
  local v = derive()
  ui.sheet{
    title = v.title,
    options = {
      { text = "New tab", icon = "add", handler = "new_tab" },
      { text = v.bookmarked and "Remove bookmark" or "Add bookmark", icon = "star", handler = "toggle_bookmark" },
      { text = "Bookmarks", icon = "bookmarks", handler = "open_bookmarks" },
      { text = "History", icon = "history", handler = "open_history" },
      { text = "Find in page", icon = "find_in_page", handler = "open_find" },
      { text = "Share", icon = "share", handler = "share_page" },
      { text = "Copy link", icon = "content_copy", handler = "copy_link" },
      { text = "Settings", icon = "settings", handler = "open_settings" },
    },
  }
end

function open_bookmarks(ev) nav.push("bookmarks") end
function open_history(ev) nav.push("history") end
function open_settings(ev) nav.push("settings") end
function open_tabs(ev) nav.push("tabs") end

function share_page(ev)
  local v = derive()
  ui.share{ text = tostring(v.title or "") .. "\nhttps://" .. tostring(v.url or "") }
end

function copy_link(ev)
  clipboard.set("https://" .. tostring(derive().url or ""))
  ui.toast("Link copied")
end

function open_find(ev)
  locals.set("finding", true)
  locals.set("find", "")
end

function close_find(ev)
  locals.set("finding", false)
end

-- ---------------------------------------------------------------- tabs


function new_tab(ev)
  add_tab()
  -- From the tabs screen, go back to the page; from the page, stay.
  settle()
  if ev and ev.id == "new_tab" then nav.pop() end
end

function switch_tab(ev)
  local id = ev.item and tonumber(ev.item.id)
  if not id then return end
  state.set("current", id)
  settle()
  nav.pop()
end

function close_tab(ev)
  local t, i = lib.lists.by_id(state.get("tabs"), ev.item and ev.item.id)
  if not t then return end
  orders.remove("tabs", i, "Tab closed", "undo_close_tab", { tab = t, pos = i })
  if tonumber(state.get("current")) == tonumber(t.id) then
    local rest = state.get("tabs") or {}
    local nxt = rest[math.min(i, #rest)]
    state.set("current", nxt and nxt.id or 0)
  end
  settle()
end

function undo_close_tab(ev)
  local a = ev.args or {}
  if type(a.tab) ~= "table" or type(a.tab.stack) ~= "table" then return end
  if lib.lists.by_id(state.get("tabs"), a.tab.id) then return end
  orders.put_back("tabs", a.tab, a.pos)
  state.set("current", a.tab.id)
  settle()
end

function close_all_tabs(ev)
  orders.confirm("Close all tabs?", #(state.get("tabs") or {}) .. " tabs will be closed.", "Close all", "close_all_confirmed")
end

function close_all_confirmed(ev)
  state.set("tabs", {})
  settle() -- opens a fresh tab on the home page
  nav.pop()
end

-- ---------------------------------------------------------------- history & bookmarks

function open_from_list(ev)
  local url = ev.item and ev.item.url
  if type(url) ~= "string" then return end
  nav.pop()
  navigate(url)
end

function remove_history(ev)
  local i = tonumber(ev.index)
  local h = state.get("history") or {}
  if i and h[i] then state.remove("history", i) end
end

function clear_history(ev)
  orders.confirm("Clear browsing history?", "All " .. #(state.get("history") or {}) .. " entries will be deleted.",
    "Clear", "clear_history_confirmed")
end

function clear_history_confirmed(ev)
  state.set("history", {})
  ui.toast("History cleared")
end

function remove_bookmark(ev)
  local i = tonumber(ev.index)
  local b = state.get("bookmarks") or {}
  if not (i and b[i]) then return end
  orders.remove("bookmarks", i, "Bookmark removed", "undo_bookmark", { bookmark = b[i], pos = i })
  settle()
end

function undo_bookmark(ev)
  if orders.undo_remove(ev.args, "bookmark", "bookmarks", "url") then settle() end
end

-- ---------------------------------------------------------------- settings

function clear_browsing_data(ev)
  orders.confirm("Clear browsing data?", "History, the shop cart and all open tabs will be cleared. Bookmarks stay.",
    "Clear data", "clear_data_confirmed")
end

function clear_data_confirmed(ev)
  state.set("history", {})
  state.set("cart", {})
  state.set("tabs", {})
  settle()
  ui.toast("Browsing data cleared")
end

function show_cart(ev)
  local c = state.get("cart") or {}
  if #c == 0 then
    ui.toast("Your cart is empty")
    return
  end
  local names = {}
  for _, it in ipairs(c) do table.insert(names, "• " .. tostring(it.title or "")) end
  ui.dialog{ title = "Cart (" .. #c .. ")", text = table.concat(names, "\n"), buttons = { { text = "Close" } } }
end

-- ---------------------------------------------------------------- share target

function receive_share(ev)
  local text = trim(ev.args and ev.args.text or "")
  local url = text:match("https?://(%S+)")
  if url then
    navigate(normalize(url))
  elseif text ~= "" then
    navigate(SEARCH .. text:sub(1, 80):gsub("%s+", "+"))
  end
end
