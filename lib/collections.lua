-- What apps that keep collections share (Gallery, Maps, Music, Notes, Clock, Weather, Settings):
-- lists of ids (favorites, queues, saved places), entries removed or toggled by value, rows
-- picked from a list screen, sheets of options and the dialog that names a new entry.
local M = {}

-- ---------------------------------------------------------------- lists of ids and values

-- Whether `entry` is the id `id`, or a record with that `id` (numbers and digit strings alike).
local function is_id(entry, id)
  if type(entry) == "table" then entry = entry.id end
  return tonumber(entry) == id
end

-- The position of the first entry of `list` that is the id `id` (7 or "7"); nil when none is.
function M.index_of(list, id)
  id = tonumber(id)
  if type(list) ~= "table" or id == nil then return nil end
  for i, entry in ipairs(list) do
    if tonumber(entry) == id then return i end
  end
  return nil
end

-- Whether `list` holds the id `id` (7 or "7").
function M.has_id(list, id)
  return M.index_of(list, id) ~= nil
end

-- Removes from the state list at `path` every entry for which `match(entry)` is true (from the
-- end, so the positions still to visit stay right); true when it removed any.
function M.remove_where(path, match)
  local list = lib.store.list(path)
  local removed = false
  for i = #list, 1, -1 do
    if match(list[i]) then
      state.remove(path, i)
      removed = true
    end
  end
  return removed
end

-- Removes every entry equal to `value` from the state list at `path`; true when there was one.
function M.remove_value(path, value)
  return M.remove_where(path, function(entry) return entry == value end)
end

-- Removes every entry that is the id `id`, or a record with that `id` (7 or "7"), from the
-- state list at `path`; true when there was one.
function M.remove_id(path, id)
  id = tonumber(id)
  return M.remove_where(path, function(entry) return is_id(entry, id) end)
end

-- Adds the id `id` (as a number) to the state list at `path`, or removes it when it is there:
-- favorites, liked songs. True when added.
function M.toggle_id(path, id)
  if M.remove_id(path, id) then return false end
  state.insert(path, tonumber(id))
  return true
end

local function equal(a, b) return a == b end

-- A copy of `list` without the entries `same(entry, value)` calls equal (default: ==), and
-- whether there were any.
function M.without(list, value, same)
  same = same or equal
  local out, found = {}, false
  for _, entry in ipairs(list or {}) do
    if same(entry, value) then found = true else table.insert(out, entry) end
  end
  return out, found
end

-- A copy of `list` with `value` toggled: without the entries equal to it (`same`, as in
-- `without`), or with it added at the end when there was none. Second result: true when added.
-- For a list inside an entry (a note's labels, a saved list's places), written back whole.
function M.toggled(list, value, same)
  local out, found = M.without(list, value, same)
  if not found then table.insert(out, value) end
  return out, not found
end

-- `a` and `b` are the same id (7 and "7"): a `same` for `without` and `toggled`.
function M.same_id(a, b)
  return tonumber(a) == tonumber(b)
end

-- The entry at position `index` (a number or digit string, as a list row's `ev.index`) of the
-- state list at `path`, and that position; nil when there is none.
function M.at(path, index)
  local i = tonumber(index)
  local entry = i and lib.store.list(path)[i]
  if not entry then return nil end
  return entry, i
end

-- Flips the true/false `field` of the entry with the id `id` (7 or "7") in the state list at
-- `path` (a note pinned or not); nil when there is no such entry.
function M.flip(path, id, field)
  local entry, i = lib.lists.by_id(state.get(path), id)
  if not entry then return nil end
  state.set(path .. "." .. i .. "." .. field, not entry[field])
  return entry, i
end

-- The id for a new entry from the counter at `path` in state (1 when unset); the counter moves
-- on by one.
function M.take_id(path)
  local id = tonumber(state.get(path)) or 1
  state.set(path, id + 1)
  return id
end

-- ---------------------------------------------------------------- handlers of list rows

-- The string field `field` of the tapped row (`ev.item`), or of the handler's args when `from`
-- is "args"; nil when it is not a string.
function M.text_of(ev, field, from)
  local t = ev[from or "item"]
  local v = t and t[field]
  if type(v) ~= "string" then return nil end
  return v
end

-- A handler that opens `screen` with the tapped row's string field `field` as the parameter
-- `param` (`from` as in `text_of`); a row without it opens nothing.
function M.opener(screen, param, field, from)
  return function(ev)
    local v = M.text_of(ev, field, from)
    if v then nav.push(screen, { [param] = v }) end
  end
end

-- A handler that sets the screen's local `name` to the tapped row's string field `field` (a
-- chip's value, a suggestion): the search kind, the query.
function M.picker(name, field)
  return function(ev)
    local v = M.text_of(ev, field)
    if v then locals.set(name, v) end
  end
end

-- A handler that empties the state list at `path` and toasts `text`: what a "Clear" confirmed
-- does to recent searches, a history.
function M.clearer(path, text)
  return function(ev)
    state.set(path, {})
    ui.toast(text)
  end
end

-- True, after the toast `text` and leaving the screen, when `entry` is nil: a screen opened
-- for an entry that is gone ("This alarm no longer exists").
function M.missing(entry, text)
  if entry ~= nil then return false end
  ui.toast(text)
  nav.pop()
  return true
end

-- ---------------------------------------------------------------- sheets and dialogs

-- A sheet whose options all act on the same thing: each of `options` ({ text =, icon =,
-- handler = }) without `args` of its own gets `args` ({ id = 7 }).
function M.menu(title, args, options)
  for _, o in ipairs(options) do
    if o.args == nil then o.args = args end
  end
  ui.sheet{ title = title, options = options }
end

-- The menu of the tapped row's entry (`find(ev.item.id)`; nothing when it is gone), titled by
-- its field `title`: `options` as in `menu`, acting on { id = <the entry's id> }.
function M.row_menu(ev, find, title, options)
  local entry = find(ev.item and ev.item.id)
  if not entry then return end
  M.menu(entry[title], { id = entry.id }, options)
end

-- The sheet of `options`, or, when there are none, the toast `empty` ("Create a playlist first").
function M.sheet(title, options, empty)
  if #options == 0 then
    ui.toast(empty)
    return
  end
  ui.sheet{ title = title, options = options }
end

-- An option of a sheet that checks entries on and off (a note's labels, the lists a place is
-- saved in): a ticked box when `on`.
function M.check_option(text, on, handler, args)
  return { text = text, icon = on and "check_box" or "check_box_outline_blank", handler = handler, args = args }
end

-- Opens the screen's naming dialog (`local.dialog`), its field (`local.dialog_text`) holding
-- `text` ("" when nil).
function M.open_dialog(text)
  locals.set("dialog_text", text or "")
  locals.set("dialog", true)
end

-- The name typed into the dialog's field, trimmed and cut to `max` characters (when given);
-- nil, after the toast `empty`, when it is blank.
function M.dialog_name(empty, max)
  local name = lib.text.trim(locals.get("dialog_text"))
  if name == "" then
    ui.toast(empty)
    return nil
  end
  if max and #name > max then name = name:sub(1, max) end
  return name
end

-- Closes the dialog once its name is taken, with the toast `text` ("Label \"Work\" created").
function M.dialog_done(text)
  locals.set("dialog", false)
  ui.toast(text)
end

return M
