-- The sandbox app handlers run in. This chunk runs once per device, with the raw standard
-- library, before any app; it returns what the host needs. Apps never see this chunk's
-- locals, the real global table or the real library tables: they see read-only proxies.
local host = ...

local error, type, next, select, tostring, rawget, rawset, rawequal, setmetatable, getmetatable, pcall =
  error, type, next, select, tostring, rawget, rawset, rawequal, setmetatable, getmetatable, pcall
local string, table, math, utf8 = string, table, math, utf8
local raw_format, raw_rep, raw_unpack, raw_insert, raw_remove, raw_move, raw_concat, raw_sort =
  string.format, string.rep, table.unpack, table.insert, table.remove, table.move, table.concat, table.sort
local raw_codepoint, raw_len8, raw_offset, raw_tonumber = utf8.codepoint, utf8.len, utf8.offset, tonumber
local math_type = math.type

local budget_spent, charge, charge_range, charge_span, format_problem, suggest =
  host.budget_spent, host.charge, host.charge_range, host.charge_span, host.format_problem, host.suggest
local MAX_RESULTS = host.max_results
-- The debug library is for this chunk alone: seeing past `__metatable`, and the upvalues of an
-- app's functions (to tell whether a handler left its app's scripts as they were).
local metatable_of, getupvalue, upvalueid = debug.getmetatable, debug.getupvalue, debug.upvalueid
debug = nil

-- What `getmetatable` answers for every table of the phone's own; `setmetatable` and
-- `rawset` refuse tables that carry it.
local LOCKED = "locked"
local MEMORY_ERROR = "not enough memory"

local function is_reference(v)
  local kind = type(v)
  return kind == "table" or kind == "function" or kind == "userdata" or kind == "thread"
end

-- Names for tables and functions that are the same on every run: `table: #3` is the third
-- object this event printed. Lua's own names hold heap addresses.
local names, last_name = nil, 0

local function name_of(v, kind)
  if names == nil then names = {} end
  local n = names[v]
  if n == nil then
    last_name = last_name + 1
    n = last_name
    names[v] = n
  end
  return kind .. ": #" .. n
end

local function safe_tostring(v)
  if not is_reference(v) then return tostring(v) end
  local kind = type(v)
  local mt = metatable_of(v)
  if mt ~= nil then
    if rawget(mt, "__tostring") ~= nil then return tostring(v) end
    local name = rawget(mt, "__name")
    if type(name) == "string" then kind = name end
  end
  return name_of(v, kind)
end

local function refuse_write(_, key)
  error("cannot change `" .. safe_tostring(key) .. "`: the phone's libraries are read-only", 2)
end

-- A read-only view of a table: reads go through, writes fail, and the table behind it
-- cannot be reached.
local function read_only(t)
  local function iterate(_, key)
    return next(t, key)
  end
  return setmetatable({}, {
    __index = t,
    __newindex = refuse_write,
    __pairs = function() return iterate, nil, nil end,
    __metatable = LOCKED,
  })
end

-- pcall and xpcall: a handler stopped for its budget or its memory stays stopped.
local function must_stop(err)
  return budget_spent() or rawequal(err, MEMORY_ERROR)
end

local function after_pcall(ok, ...)
  if ok or not must_stop((...)) then return ok, ... end
  error((...), 0)
end

local function safe_pcall(f, ...)
  return after_pcall(pcall(f, ...))
end

local function after_xpcall(handler, ok, ...)
  if ok then return ok, ... end
  local err = ...
  if must_stop(err) then error(err, 0) end
  return false, handler(err)
end

local function safe_xpcall(f, handler, ...)
  return after_xpcall(handler, pcall(f, ...))
end

local function safe_setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("setmetatable: __gc is not available (finalizers run when memory is collected, which differs between runs)", 2)
  end
  return setmetatable(t, mt)
end

local function safe_rawset(t, key, value)
  if rawequal(getmetatable(t), LOCKED) then
    error("rawset: cannot change the phone's tables (app scripts keep no state between events)", 2)
  end
  return rawset(t, key, value)
end

-- Tables keyed by tables or functions are visited in the order of their addresses, which
-- differ from run to run; string and number keys are visited in the same order every time.
local function checked_next(t, key)
  local k, v = next(t, key)
  if is_reference(k) then
    error("cannot visit a table keyed by tables or functions: their order differs between runs (keep them in a list)", 2)
  end
  return k, v
end

local function safe_pairs(t)
  local mt = metatable_of(t)
  local handler = mt ~= nil and rawget(mt, "__pairs") or nil
  if handler ~= nil then
    local f, s, c = handler(t)
    return f, s, c
  end
  if type(t) ~= "table" then
    error("bad argument #1 to 'for iterator' (table expected, got " .. type(t) .. ")", 2)
  end
  return checked_next, t, nil
end

local function safe_next(t, key)
  return checked_next(t, key)
end

local function safe_tonumber(v, base)
  if type(v) == "string" and #v > 64 then charge(#v // 16) end
  return raw_tonumber(v, base)
end

local function safe_format(fmt, ...)
  local problem = format_problem(fmt)
  if problem ~= nil then error("bad argument #1 to 'format' (" .. problem .. ")", 2) end
  local n = select("#", ...)
  if n == 0 then return raw_format(fmt) end
  local args = { ... }
  for i = 1, n do
    if is_reference(args[i]) then args[i] = safe_tostring(args[i]) end
  end
  return raw_format(fmt, raw_unpack(args, 1, n))
end

local function safe_rep(s, n, sep)
  -- An empty string repeated 2^62 times is empty, but C would loop 2^62 times to build it.
  if type(s) == "string" and #s == 0 and (sep == nil or (type(sep) == "string" and #sep == 0)) and math_type(n) then
    return ""
  end
  return raw_rep(s, n, sep)
end

-- The length of a list argument, charged when large (the work of moving its elements).
local function charged_length(t)
  local n = #t
  if n > 64 then charge(n) end
  return n
end

local function safe_unpack(t, i, j)
  i = i or 1
  if j == nil then j = #t end
  charge_range(i, j, MAX_RESULTS, "table.unpack")
  return raw_unpack(t, i, j)
end

local function safe_insert(t, ...)
  if select("#", ...) >= 2 then charged_length(t) end
  return raw_insert(t, ...)
end

local function safe_remove(t, ...)
  if select("#", ...) >= 1 then charged_length(t) end
  return raw_remove(t, ...)
end

local function safe_move(a1, f, e, t, a2)
  charge_range(f, e, nil, "table.move")
  return raw_move(a1, f, e, t, a2)
end

local function safe_concat(t, sep, i, j)
  i = i or 1
  if j == nil then j = #t end
  charge_range(i, j, nil, "table.concat")
  return raw_concat(t, sep, i, j)
end

local function safe_sort(t, comp)
  local n = charged_length(t)
  -- About n log n comparisons; those made by a Lua `comp` are counted as they run.
  local log = 1
  while (1 << log) < n do log = log + 1 end
  if n > 64 then charge(n * log) end
  return raw_sort(t, comp)
end

local function safe_codepoint(s, i, j)
  charge_span(s, i, j, MAX_RESULTS, "utf8.codepoint")
  return raw_codepoint(s, i, j)
end

local function safe_len8(s, i, j)
  if type(s) == "string" and #s > 64 then charge(#s // 16) end
  return raw_len8(s, i, j)
end

local function safe_offset(s, n, i)
  if type(s) == "string" and #s > 64 then charge(#s // 16) end
  return raw_offset(s, n, i)
end

-- The real library tables get the safe functions (the string metatable reads them), then
-- apps get read-only views of them.
string.format, string.rep = safe_format, safe_rep
string.dump = nil
table.unpack, table.insert, table.remove, table.move, table.concat, table.sort =
  safe_unpack, safe_insert, safe_remove, safe_move, safe_concat, safe_sort
utf8.codepoint, utf8.len, utf8.offset = safe_codepoint, safe_len8, safe_offset

local string_meta = getmetatable("")
string_meta.__index = string
string_meta.__metatable = LOCKED

local globals = {
  _VERSION = _VERSION,
  assert = assert,
  error = error,
  getmetatable = getmetatable,
  ipairs = ipairs,
  next = safe_next,
  pairs = safe_pairs,
  pcall = safe_pcall,
  rawequal = rawequal,
  rawget = rawget,
  rawlen = rawlen,
  rawset = safe_rawset,
  select = select,
  setmetatable = safe_setmetatable,
  tonumber = safe_tonumber,
  tostring = safe_tostring,
  type = type,
  xpcall = safe_xpcall,
}
for _, name in ipairs({ "string", "table", "math", "utf8" }) do
  globals[name] = read_only(_ENV[name])
end
for name, library in next, host.api do
  globals[name] = read_only(library)
end
local API = read_only(globals)

-- An app's environment. Its scripts define their functions into it while they load; after
-- that it is frozen, so a handler's globals go nowhere.
local loading = false
local ENV_META = {
  __index = API,
  __newindex = function(env, key, value)
    if loading then return rawset(env, key, value) end
    error("cannot set global `" .. safe_tostring(key) .. "`: app scripts keep no state between events; use state.set or locals.set", 2)
  end,
  __metatable = LOCKED,
}

-- Runs the shared library's modules (`lib/*.lua`), each into an environment of its own that
-- sees the phone's API and `lib`; each must return a table, read as `lib.<name>`. Returns
-- `lib` (read-only) and what the modules keep: their environments and tables.
-- A read-only view of a library table where reading a name it does not have is an error that
-- names the name meant: `lib.text.trimm(s)` is a mistake, not a nil to call.
local function library_view(t, what)
  local function iterate(_, key)
    return next(t, key)
  end
  local function missing(key)
    local names = {}
    for k in next, t do
      if type(k) == "string" then names[#names + 1] = k end
    end
    raw_sort(names)
    local meant = type(key) == "string" and suggest(key, names) or nil
    local hint = meant and (": did you mean `" .. meant .. "`?") or (" (it has " .. raw_concat(names, ", ") .. ")")
    error("no `" .. safe_tostring(key) .. "` in " .. what .. hint, 3)
  end
  return setmetatable({}, {
    __index = function(_, key)
      local value = t[key]
      if value == nil then missing(key) end
      return value
    end,
    __newindex = refuse_write,
    __pairs = function() return iterate, nil, nil end,
    __metatable = LOCKED,
  })
end

local function load_library(modules)
  local views, kept = {}, {}
  local lib = library_view(views, "lib")
  for i = 1, #modules do
    local name, chunk = modules[i][1], modules[i][2]
    local env = setmetatable({}, ENV_META)
    rawset(env, "lib", lib)
    local module = chunk(env)
    if type(module) ~= "table" then
      error("lib/" .. name .. ".lua: a library module must end with `return` of a table of its functions (got " .. type(module) .. ")", 0)
    end
    kept[#kept + 1] = env
    kept[#kept + 1] = module
    views[name] = library_view(module, "lib." .. name)
  end
  return lib, kept
end

-- Runs an app's scripts into a new environment: new closures, new upvalues, new tables (the
-- library's too, so nothing one app or event does to them reaches another).
local function load_all(env, chunks)
  local lib, kept = load_library(chunks.library)
  rawset(env, "lib", lib)
  for i = 1, #chunks do
    chunks[i](env)
  end
  return kept
end

local function instantiate(chunks)
  local env = setmetatable({}, ENV_META)
  rawset(env, "_G", env)
  loading = true
  -- Loading ends even when a script fails, or the next app's handlers could set globals.
  local ok, kept = pcall(load_all, env, chunks)
  loading = false
  if not ok then error(kept, 0) end
  return env, kept
end

-- What an app's scripts leave reachable from their module scope (the upvalues of their
-- functions, the tables those hold, and the tables' metatables), recorded so that after
-- each event one can tell whether a handler changed any of it. Beyond this many entries a
-- world is not recorded, and is built afresh for every event instead.
local MAX_SURVEY = 4096

local function survey(env, kept)
  local cells, tables, seen, cell_seen, stack = {}, {}, {}, {}, {}
  -- Counted apart from `#cells`: an upvalue holding nil leaves a hole in the array, and `#`
  -- across a hole would misalign every triple after it.
  local cell_count, entries = 0, 0
  local function visit(v)
    local kind = type(v)
    if (kind == "table" or kind == "function") and not seen[v] and not rawequal(getmetatable(v), LOCKED) then
      seen[v] = true
      stack[#stack + 1] = v
    end
  end
  for _, v in next, env do visit(v) end
  -- The library's environments are frozen like the app's (so only what they hold can
  -- change); its module tables are recorded whole.
  for i = 1, #kept, 2 do
    for _, v in next, kept[i] do visit(v) end
    visit(kept[i + 1])
  end
  while #stack > 0 do
    local v = stack[#stack]
    stack[#stack] = nil
    if type(v) == "function" then
      local i = 1
      while true do
        local name, value = getupvalue(v, i)
        if name == nil then break end
        local id = upvalueid(v, i)
        if not cell_seen[id] then
          cell_seen[id] = true
          cells[cell_count + 1], cells[cell_count + 2], cells[cell_count + 3] = v, i, value
          cell_count = cell_count + 3
          visit(value)
        end
        i = i + 1
      end
    else
      local copy, count = {}, 0
      for k, x in next, v do
        copy[k] = x
        visit(k)
        visit(x)
        count = count + 1
      end
      entries = entries + count
      tables[#tables + 1] = v
      tables[#tables + 1] = copy
      tables[#tables + 1] = metatable_of(v) or false
      tables[#tables + 1] = count
      visit(metatable_of(v))
    end
    entries = entries + 1
    if entries > MAX_SURVEY then return nil end
  end
  -- Checked after every event by the host (`raw::world_unchanged`): cells are (function,
  -- upvalue index, value) triples, `cell_count` entries long; tables (table, copy, metatable
  -- or false, how many entries the copy holds) quadruples.
  return { cells, tables, cell_count }
end

-- Each app's world: its environment and the record of what it held when built. A world is
-- used again only while every event leaves it as it was built, so an event always finds its
-- app as a fresh one would be: nothing a handler writes outside the store survives it.
local worlds = {}

-- Builds the app's world if it has none (with a budget of its own, so an event costs the same
-- whether its world was built for it or kept from the last one).
-- True when it built one.
local function prepare(chunks)
  if worlds[chunks] ~= nil then return false end
  local env, kept = instantiate(chunks)
  worlds[chunks] = { env = env, record = survey(env, kept) }
  return true
end

local function run_event(chunks, handler, event)
  names, last_name = nil, 0
  local f = rawget(worlds[chunks].env, handler)
  if type(f) ~= "function" then
    error("no handler function `" .. handler .. "`", 0)
  end
  return f(event)
end

-- What the host checks after an event (nil: the world was too big to record, build anew).
local function record_of(chunks)
  local world = worlds[chunks]
  return world and world.record
end

local function forget(chunks)
  worlds[chunks] = nil
end

-- The names of the functions an app defines, sorted.
local function handler_names(chunks)
  local env = instantiate(chunks)
  local list = {}
  for name, value in next, env do
    if type(name) == "string" and type(value) == "function" then list[#list + 1] = name end
  end
  raw_sort(list)
  return list
end

return { prepare = prepare, run_event = run_event, record_of = record_of, forget = forget, handler_names = handler_names }
