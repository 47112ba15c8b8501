-- Text helpers: trimming, digits, counts with their noun, numbers with thousands separators.
local M = {}

-- `s` without leading and trailing white space; "" for anything that is not a string.
function M.trim(s)
  if type(s) ~= "string" then return "" end
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

-- Only the digits of `s` ("+1 (555) 010-2000" -> "15550102000"); "" for a non-string.
function M.digits(s)
  if type(s) ~= "string" then return "" end
  return (s:gsub("%D", ""))
end

-- "1 photo", "3 photos": `many` defaults to `one` .. "s".
function M.plural(n, one, many)
  return n .. " " .. (n == 1 and one or (many or one .. "s"))
end

-- A whole number with thousands separators: 1234567 -> "1,234,567" (fractions dropped).
function M.thousands(n)
  local s = tostring(math.floor(tonumber(n) or 0))
  local sign, digits = s:match("^(%-?)(%d+)$")
  if not digits then return s end
  return sign .. (digits:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", ""))
end

return M
