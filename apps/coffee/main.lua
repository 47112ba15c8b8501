-- Coffee (Chatly mini-app): menu, customize, cart, pay with Chatly Pay, order status, share.

local TAX = 0.0875
local STAGES = { "Paid", "Brewing", "Ready for pickup", "Picked up" }

local money = lib.money.format
local round2 = lib.money.round2
local trim = lib.text.trim
local function hhmm() return lib.dates.hhmm(clock.minutes()) end
local function profile()
  local p = host.profile()
  if type(p) ~= "table" then return {} end
  return p
end

local function find_item(id)
  for _, it in ipairs(content.get("menu") or {}) do
    if it.id == tonumber(id) then return it end
  end
  return nil
end

local function cart() return state.get("cart") or {} end

-- Items in the cart (the "View cart" button), derived in the view that shows it.
local function cart_count() return lib.lists.sum(cart(), "qty") end

local function summary()
  local sub = 0
  for _, l in ipairs(cart()) do sub = sub + (tonumber(l.unit) or 0) * (tonumber(l.qty) or 0) end
  sub = round2(sub)
  local tax = round2(sub * TAX)
  return { subtotal = money(sub), tax = money(tax), total = money(sub + tax), total_n = round2(sub + tax) }
end

local function find_order(id)
  for i, o in ipairs(state.get("orders") or {}) do
    if o.id == tonumber(id) then return o, i end
  end
  return nil
end

-- ---------------------------------------------------------------- menu


function menu_view(ev)
  local name = profile().name or "friend"
  return { first_name = tostring(name):match("^(%S+)") or name, cart_count = cart_count() }
end

function open_item(ev)
  if type(ev.item) == "table" then nav.push("customize", { id = ev.item.id }) end
end
function open_cart(ev) nav.push("cart") end
function open_orders(ev) nav.push("orders", {}) end

-- ---------------------------------------------------------------- customize

function customize_enter(ev)
  local it = find_item(ev.params and ev.params.id)
  if not it then
    nav.pop()
    return
  end
  if locals.get("size") then return end
  locals.set("size", "Medium")
  locals.set("milk", it.milk and "Whole milk" or "")
  locals.set("sugar", 0)
  locals.set("extra_shot", false)
  locals.set("qty", 1)
end

function customize_view(ev)
  return { item = find_item(ev.params and ev.params.id) }
end

function size_small(ev) locals.set("size", "Small") end
function size_medium(ev) locals.set("size", "Medium") end
function size_large(ev) locals.set("size", "Large") end

function qty_minus(ev)
  local q = tonumber(locals.get("qty")) or 1
  if q > 1 then locals.set("qty", q - 1) end
end
function qty_plus(ev)
  local q = tonumber(locals.get("qty")) or 1
  if q < 10 then locals.set("qty", q + 1) end
end

function add_to_cart(ev)
  local it = find_item(ev.params and ev.params.id)
  if type(it) ~= "table" then return end
  local unit = tonumber(it.price) or 0
  local parts = {}
  if not it.food then
    local size = locals.get("size") or "Medium"
    table.insert(parts, size)
    if size == "Medium" then unit = unit + 0.5 elseif size == "Large" then unit = unit + 1 end
    local milk = locals.get("milk") or ""
    if it.milk and milk ~= "" then
      table.insert(parts, milk)
      if milk == "Oat milk" or milk == "Almond milk" then unit = unit + 0.6 end
    end
    local sugar = math.floor(tonumber(locals.get("sugar")) or 0)
    table.insert(parts, sugar == 0 and "No sugar" or (sugar .. " sugar"))
    if locals.get("extra_shot") then
      table.insert(parts, "Extra shot")
      unit = unit + 0.8
    end
  end
  local qty = tonumber(locals.get("qty")) or 1
  local options = table.concat(parts, " · ")
  local key = it.id .. "|" .. options
  for i, l in ipairs(cart()) do
    if l.key == key then
      local q = l.qty + qty
      state.set("cart." .. i .. ".qty", q)
      state.set("cart." .. i .. ".total_text", money(q * l.unit))
      ui.toast("Added to cart")
      nav.pop()
      return
    end
  end
  state.insert("cart", { key = key, name = it.name, icon = it.icon, options = options, unit = round2(unit), unit_text = money(unit), qty = qty, total_text = money(unit * qty) })
  ui.toast("Added to cart")
  nav.pop()
end

-- ---------------------------------------------------------------- cart

function cart_enter(ev)
  if locals.get("name") == nil then
    locals.set("name", tostring(profile().name or ""):match("^(%S+)") or "")
    locals.set("note", "")
  end
end

function cart_view(ev)
  return { sum = summary() }
end

local function line_at(item)
  if type(item) ~= "table" then return nil end
  for i, l in ipairs(cart()) do
    if l.key == item.key then return i, l end
  end
  return nil
end

function line_plus(ev)
  local i, l = line_at(ev.item)
  if not i or l.qty >= 10 then return end
  state.set("cart." .. i .. ".qty", l.qty + 1)
  state.set("cart." .. i .. ".total_text", money((l.qty + 1) * l.unit))
end

function line_minus(ev)
  local i, l = line_at(ev.item)
  if not i then return end
  if l.qty <= 1 then
    line_remove(ev)
    return
  end
  state.set("cart." .. i .. ".qty", l.qty - 1)
  state.set("cart." .. i .. ".total_text", money((l.qty - 1) * l.unit))
end

function line_remove(ev)
  local i = line_at(ev.item)
  if not i then return end
  state.remove("cart", i)
end

function pay(ev)
  if #cart() == 0 then return end
  local name = trim(locals.get("name"))
  if name == "" then
    locals.set("name_error", "Enter a name for your cup")
    return
  end
  locals.set("name_error", "")
  local s = summary()
  local names = {}
  for _, l in ipairs(cart()) do table.insert(names, l.qty .. "× " .. l.name) end
  host.pay{
    amount = s.total_n,
    merchant = "Brew Lab Coffee",
    note = table.concat(names, ", "),
    handler = "paid",
    args = { name = name, note = trim(locals.get("note")) },
  }
end

function paid(ev)
  local args = ev.args or {}
  if not args.paid then
    ui.toast(args.reason == "cancelled" and "Payment cancelled" or "Payment failed: " .. tostring(args.reason or ""))
    return
  end
  local s = summary()
  local id = tonumber(state.get("next_order")) or 201
  local names = {}
  for _, l in ipairs(cart()) do table.insert(names, l.qty .. "× " .. l.name) end
  state.insert("orders", {
    id = id, name = args.name or "", note = args.note or "", summary = table.concat(names, ", "),
    lines = cart(), total_text = s.total, time = clock.today() .. " " .. hhmm(), stage = 1, status = STAGES[1],
    tx = type(args.transaction) == "table" and args.transaction.id or "",
  }, 1)
  state.set("next_order", id + 1)
  state.set("cart", {})
  timer.after(60000, "advance", { id = id, stage = 2 })
  nav.replace("orders", { id = id })
end

-- ---------------------------------------------------------------- orders

function advance(ev)
  local args = ev.args or {}
  local o, i = find_order(args.id)
  local stage = tonumber(args.stage)
  if not o or not stage or (tonumber(o.stage) or 1) >= stage then return end
  state.set("orders." .. i .. ".stage", stage)
  state.set("orders." .. i .. ".status", STAGES[stage])
  if stage == 2 then
    timer.after(4 * 60000, "advance", { id = o.id, stage = 3 })
  elseif stage == 3 then
    ui.notify{ title = "Brew Lab Coffee", text = "Order #" .. o.id .. " for " .. (o.name or "you") .. " is ready for pickup", icon = "local_cafe", screen = "orders", params = { id = o.id } }
  end
end

-- The order the screen shows: the one picked, else the newest.
local function current_order()
  return find_order(locals.get("current_id")) or (state.get("orders") or {})[1]
end

function orders_enter(ev)
  local id = ev.params and ev.params.id
  if find_order(id) then locals.set("current_id", id) end
end

function orders_view(ev)
  local o = current_order()
  if not o then return { steps = {} } end
  local steps = {}
  local subs = { "Paid with Chatly Pay", "Your barista is on it", "Pick it up at the counter", "Enjoy!" }
  local stage = tonumber(o.stage) or 1
  for k, name in ipairs(STAGES) do
    table.insert(steps, { title = name, subtitle = subs[k], done = k < stage or stage == 4, current = k == stage, last = k == 4 })
  end
  return { current = o, steps = steps }
end

function select_order(ev)
  if type(ev.item) ~= "table" then return end
  locals.set("current_id", ev.item.id)
end

function pick_up(ev)
  local o, i = find_order(locals.get("current_id"))
  if o then
    state.set("orders." .. i .. ".stage", 4)
    state.set("orders." .. i .. ".status", STAGES[4])
  end
end

function share_order(ev)
  local o = current_order()
  if type(o) ~= "table" then return end
  host.share_to_chat{ text = "☕ I ordered " .. (o.summary or "coffee") .. " at Brew Lab Coffee (order #" .. o.id .. ", " .. (o.status or "") .. ")" }
end
