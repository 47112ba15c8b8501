-- Coffee (Chatly mini-app): menu, customize, cart, pay with Chatly Pay, order status, share.

local TAX = 0.0875
local STAGES = {
  { title = "Paid", subtitle = "Paid with Chatly Pay" },
  { title = "Brewing", subtitle = "Your barista is on it" },
  { title = "Ready for pickup", subtitle = "Pick it up at the counter" },
  { title = "Picked up", subtitle = "Enjoy!" },
}

local money = lib.money.format
local round2 = lib.money.round2
local trim = lib.text.trim
local orders = lib.orders
local find_order = orders.find
local function hhmm() return lib.dates.hhmm(clock.minutes()) end
local function profile()
  local p = host.profile()
  if type(p) ~= "table" then return {} end
  return p
end

local function find_item(id) return lib.lists.by_id(content.get("menu"), id) end
local function cart() return lib.store.list("cart") end

-- Items in the cart (the "View cart" button), derived in the view that shows it.
local function cart_count() return lib.lists.sum(cart(), "qty") end

local function summary()
  local sub = orders.subtotal(cart(), "unit")
  local tax = round2(sub * TAX)
  return { subtotal = money(sub), tax = money(tax), total = money(sub + tax), total_n = round2(sub + tax) }
end

-- ---------------------------------------------------------------- menu


function menu_view(ev)
  local name = profile().name or "friend"
  return { first_name = tostring(name):match("^(%S+)") or name, cart_count = cart_count() }
end

function open_item(ev) orders.open_row(ev, "customize") end
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

function qty_minus(ev) orders.qty_minus() end
function qty_plus(ev) orders.qty_plus(10) end

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
  orders.add_line("cart", {
    key = it.id .. "|" .. options, name = it.name, icon = it.icon, options = options,
    unit = round2(unit), unit_text = money(unit), qty = qty, total_text = money(unit * qty),
  }, "unit")
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

function line_plus(ev) orders.more("cart", ev.item, "unit", 10) end

function line_minus(ev)
  if orders.fewer("cart", ev.item, "unit") then line_remove(ev) end
end

function line_remove(ev)
  local i = orders.line_at("cart", ev.item)
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
  host.pay{
    amount = summary().total_n,
    merchant = "Brew Lab Coffee",
    note = orders.summary(cart()),
    handler = "paid",
    args = { name = name, note = trim(locals.get("note")) },
  }
end

function paid(ev)
  local args = ev.args or {}
  if not orders.paid(args) then return end
  local id = tonumber(state.get("next_order")) or 201
  state.insert("orders", {
    id = id, name = args.name or "", note = args.note or "", summary = orders.summary(cart()),
    lines = cart(), total_text = summary().total, time = clock.today() .. " " .. hhmm(), stage = 1, status = STAGES[1].title,
    tx = type(args.transaction) == "table" and args.transaction.id or "",
  }, 1)
  state.set("next_order", id + 1)
  state.set("cart", {})
  timer.after(60000, "advance", { id = id, stage = 2 })
  nav.replace("orders", { id = id })
end

-- ---------------------------------------------------------------- orders

function advance(ev)
  local o, i, stage = orders.due(ev.args)
  if not o then return end
  orders.set_stage(i, stage, STAGES[stage].title)
  if stage == 2 then
    timer.after(4 * 60000, "advance", { id = o.id, stage = 3 })
  elseif stage == 3 then
    orders.notify(o, "orders", "local_cafe", "Brew Lab Coffee", "Order #" .. o.id .. " for " .. (o.name or "you") .. " is ready for pickup")
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
  return { current = o, steps = orders.steps(STAGES, tonumber(o.stage) or 1) }
end

function select_order(ev) orders.pick(ev, "current_id", "id") end

function pick_up(ev)
  local o, i = find_order(locals.get("current_id"))
  if o then orders.set_stage(i, 4, STAGES[4].title) end
end

function share_order(ev)
  local o = current_order()
  if type(o) ~= "table" then return end
  host.share_to_chat{ text = "☕ I ordered " .. (o.summary or "coffee") .. " at Brew Lab Coffee (order #" .. o.id .. ", " .. (o.status or "") .. ")" }
end
