-- Lists kept in the app's data (state) and content, read and changed the way most apps do.
local M = {}

local function as_list(value)
  if type(value) ~= "table" then return {} end
  return value
end

-- The list stored at `path` in state ({} when there is none yet, or it is not a list).
function M.list(path)
  return as_list(state.get(path))
end

-- The list at `path` in the app's content ({} when there is none).
function M.content_list(path)
  return as_list(content.get(path))
end

-- Puts `entry` first in the state list at `path`, dropping earlier entries that `same(entry,
-- other)` calls equal (by default: ==), and keeps at most `keep` entries: recent searches.
function M.remember(path, entry, keep, same)
  same = same or function(a, b) return a == b end
  local recent = M.list(path)
  for i = #recent, 1, -1 do
    if same(entry, recent[i]) then state.remove(path, i) end
  end
  state.insert(path, entry, 1)
  recent = M.list(path)
  for i = #recent, keep + 1, -1 do state.remove(path, i) end
end

-- Adds `value` to the state list at `path`, or removes it when it is there; true when added.
function M.toggle(path, value)
  for i, v in ipairs(M.list(path)) do
    if v == value then
      state.remove(path, i)
      return false
    end
  end
  state.insert(path, value)
  return true
end

return M
