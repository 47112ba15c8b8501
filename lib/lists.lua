-- Searching lists of records (tables with an `id` or another key).
local M = {}

-- The first entry whose `key` equals `value`, and its position; nil when none does.
function M.find(list, key, value)
  if type(list) ~= "table" then return nil end
  for i, entry in ipairs(list) do
    if type(entry) == "table" and entry[key] == value then return entry, i end
  end
  return nil
end

-- The entry whose `id` is `id` (numbers and digit strings alike: 7 finds "7"), and its position.
function M.by_id(list, id)
  id = tonumber(id)
  if type(list) ~= "table" or id == nil then return nil end
  for i, entry in ipairs(list) do
    if type(entry) == "table" and tonumber(entry.id) == id then return entry, i end
  end
  return nil
end

-- Whether the list holds `value`.
function M.contains(list, value)
  if type(list) ~= "table" then return false end
  for _, v in ipairs(list) do
    if v == value then return true end
  end
  return false
end

-- One more than the largest `id` in the list (1 for an empty list): an id for a new entry.
function M.next_id(list)
  local top = 0
  for _, entry in ipairs(type(list) == "table" and list or {}) do
    local id = type(entry) == "table" and tonumber(entry.id) or nil
    if id and id > top then top = id end
  end
  return math.floor(top) + 1
end

-- The entries for which `keep(entry)` is true, in order.
function M.filter(list, keep)
  local out = {}
  for _, entry in ipairs(type(list) == "table" and list or {}) do
    if keep(entry) then out[#out + 1] = entry end
  end
  return out
end

-- The sum of the entries' `key` fields (a missing or non-numeric one counts 0).
function M.sum(list, key)
  local total = 0
  for _, entry in ipairs(type(list) == "table" and list or {}) do
    total = total + (tonumber(type(entry) == "table" and entry[key]) or 0)
  end
  return total
end

return M
