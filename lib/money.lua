-- Amounts of money in dollars.
local M = {}

-- Rounded to cents: 2.345 -> 2.35. Anything that is not a number counts as 0.
function M.round2(n)
  return math.floor((tonumber(n) or 0) * 100 + 0.5) / 100
end

-- "$4.50" (a negative amount reads "$-4.50"; see `grouped` for statements).
function M.format(n)
  return string.format("$%.2f", tonumber(n) or 0)
end

-- The amount without its sign, thousands grouped: -1234.5 -> "$1,234.50" (the caller shows
-- the sign its own way: "−", a colour, a column).
function M.grouped(n)
  local s = string.format("%.2f", math.abs(tonumber(n) or 0))
  local whole, cents = s:match("^(%d+)%.(%d+)$")
  return "$" .. lib.text.thousands(whole) .. "." .. cents
end

return M
