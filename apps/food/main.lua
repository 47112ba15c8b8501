-- Food: restaurants, menus, cart, checkout with tips, live order tracking on the virtual clock.

local SERVICE_RATE = 0.05
local MIN_ORDER = 10
local STAGES = {
  { title = "Order placed", icon = "receipt_long", subtitle = "The restaurant received your order" },
  { title = "Preparing", icon = "restaurant", subtitle = "Your food is being prepared" },
  { title = "On the way", icon = "delivery_dining", subtitle = "Your courier picked up the order" },
  { title = "Delivered", icon = "home", subtitle = "Enjoy your meal!" },
}
local COURIERS = { { "Marco Reyes", "e-bike" }, { "Priya Nair", "scooter" }, { "Tom Okafor", "bike" }, { "Lena Fischer", "car" } }

-- ---------------------------------------------------------------- helpers

local money = lib.money.format
local round2 = lib.money.round2
local trim = lib.text.trim
local hhmm = lib.dates.hhmm
local orders = lib.orders
local find_order = orders.find

local function restaurants() return content.get("restaurants") or {} end
local function find_restaurant(id) return lib.lists.by_id(restaurants(), id) end
local function find_dish(r, id) return lib.lists.by_id(r and r.menu, id) end

local function cart()
  local c = state.get("cart")
  if type(c) ~= "table" then c = {} end
  if type(c.lines) ~= "table" then c.lines = {} end
  return c
end

-- Items in the cart (the cart buttons), derived in the views that show it.
local function cart_count() return lib.lists.sum(cart().lines, "qty") end

local function clear_cart()
  state.set("cart", { restaurant_id = 0, restaurant = "", fee = 0, lines = {} })
end

local function summary(tip_pct)
  local c = cart()
  local subtotal = orders.subtotal(c.lines, "unit")
  local delivery = #c.lines > 0 and (tonumber(c.fee) or 0) or 0
  local service = round2(subtotal * SERVICE_RATE)
  local tip = round2(subtotal * (tonumber(tip_pct) or 0) / 100)
  local total = round2(subtotal + delivery + service + tip)
  return {
    subtotal = money(subtotal),
    delivery = delivery == 0 and "Free" or money(delivery),
    service = money(service),
    tip = tip > 0 and money(tip) or "",
    total = money(total),
    total_n = total,
    below_min = subtotal < MIN_ORDER,
  }
end

-- A dish's price with the option picked ("Large (+$2.00)") and the extras switched on, and what
-- they read on its cart line.
local function priced(d, option, extras)
  local unit, parts = tonumber(d.price) or 0, {}
  if type(option) == "string" and option ~= "" then
    table.insert(parts, (option:gsub(" %(%+%$[%d%.]+%)", "")))
    local extra = option:match("%+%$([%d%.]+)")
    if extra then unit = unit + (tonumber(extra) or 0) end
  end
  for _, e in ipairs(extras or {}) do
    if e.on then
      table.insert(parts, e.label)
      unit = unit + (tonumber(e.price) or 0)
    end
  end
  return unit, parts
end

local function add_to_cart(r, d, option, extras, qty, note)
  local c = cart()
  if c.restaurant_id ~= 0 and c.restaurant_id ~= nil and c.restaurant_id ~= r.id and #c.lines > 0 then
    return false
  end
  local unit, parts = priced(d, option, extras)
  note = trim(note)
  if note ~= "" then table.insert(parts, "“" .. note .. "”") end
  local options = table.concat(parts, " · ")
  local key = tostring(d.id) .. "|" .. options
  c.restaurant_id = r.id
  c.restaurant = r.name
  c.fee = r.fee
  state.set("cart", c)
  orders.add_line("cart.lines", {
    key = key, dish_id = d.id, name = d.name, options = options, unit = round2(unit),
    unit_text = money(unit), qty = qty, total_text = money(unit * qty),
  }, "unit")
  return true
end

-- ---------------------------------------------------------------- navigation

function open_orders(ev) nav.push("orders") end
function open_cart(ev) nav.push("cart") end

function open_tracking(ev)
  local id = tonumber(state.get("active_order")) or 0
  if id > 0 then nav.push("tracking", { id = id }) end
end

function open_restaurant(ev) orders.open_row(ev, "restaurant") end

-- ---------------------------------------------------------------- home

local SORTS = {
  { value = "recommended", label = "Recommended" }, { value = "rating", label = "Top rated" },
  { value = "time", label = "Fastest" }, { value = "fee", label = "Lowest fee" },
}

function home_view(ev)
  local q = string.lower(trim(locals.get("query")))
  local cuisine = locals.get("cuisine") or "All"
  local list = {}
  for i, r in ipairs(restaurants()) do
    if cuisine == "All" or r.cuisine == cuisine then
      local match = ""
      local ok = q == ""
      if not ok then
        if string.lower(r.name):find(q, 1, true) or string.lower(r.cuisine):find(q, 1, true) then
          ok = true
        else
          for _, d in ipairs(r.menu or {}) do
            if string.lower(d.name):find(q, 1, true) then
              ok = true
              match = match == "" and d.name or match
            end
          end
        end
      end
      if ok then
        table.insert(list, {
          id = r.id, name = r.name, cuisine = r.cuisine, icon = r.icon, photo = r.photo, rating = r.rating, time = r.time,
          time_text = r.time_text, fee = r.fee, fee_text = r.fee_text, price_level = r.price_level, match = match, order = i,
        })
      end
    end
  end
  local sort = locals.get("sort") or "recommended"
  table.sort(list, function(a, b)
    if sort == "rating" and a.rating ~= b.rating then return a.rating > b.rating end
    if sort == "time" and a.time ~= b.time then return a.time < b.time end
    if sort == "fee" and a.fee ~= b.fee then return a.fee < b.fee end
    return a.order < b.order
  end)
  local o = find_order(state.get("active_order"))
  local active = nil
  if o and (tonumber(o.stage) or 0) < 4 and o.status ~= "Cancelled" then
    active = { restaurant = o.restaurant, status = o.status }
  end
  local picked = lib.lists.find(SORTS, "value", sort)
  return { restaurants = list, count = #list, sort_label = picked and picked.label or "Sort", active = active, cart_count = cart_count() }
end

function home_enter(ev)
  if locals.get("cuisine") == nil then
    locals.set("cuisine", "All")
    locals.set("query", "")
    locals.set("sort", "recommended")
  end
end

function search_cleared(ev)
  locals.set("query", "")
end

function pick_cuisine(ev) orders.pick(ev, "cuisine") end

function choose_sort(ev) orders.sort_sheet("Sort restaurants", SORTS) end
function sort_picked(ev) orders.pick_sort(ev, SORTS) end

-- ---------------------------------------------------------------- restaurant

function restaurant_enter(ev)
  if not find_restaurant(ev.params and ev.params.id) then
    ui.toast("Restaurant not found")
    nav.pop()
  end
end

function restaurant_view(ev)
  local r = find_restaurant(ev.params and ev.params.id)
  if not r then return { cart_count = cart_count() } end
  local fav = lib.lists.contains(state.get("favorites"), r.id)
  return { r = r, fav = fav, cart_total = summary(0).subtotal, cart_count = cart_count() }
end

function toggle_favorite(ev)
  local r = find_restaurant(ev.params and ev.params.id)
  if type(r) ~= "table" then return end
  ui.toast(lib.store.toggle("favorites", r.id) and "Added to favorites" or "Removed from favorites")
end

function open_dish(ev)
  local r = find_restaurant(ev.params and ev.params.id)
  if type(ev.item) ~= "table" or type(r) ~= "table" then return end
  nav.push("dish", { restaurant = r.id, dish = ev.item.id, icon = r.icon })
end

local function conflict_dialog(r, d)
  orders.confirm("Start a new cart?",
    "Your cart has items from " .. (cart().restaurant or "another restaurant") .. ". Clear it and add " .. d.name .. "?",
    "New cart", "replace_cart", { restaurant = r.id, dish = d.id })
end

function quick_add(ev)
  local r = find_restaurant(ev.params and ev.params.id)
  local d = ev.item
  if type(r) ~= "table" or type(d) ~= "table" then return end
  if d.options and #d.options > 0 then
    nav.push("dish", { restaurant = r.id, dish = d.id, icon = r.icon })
    return
  end
  if add_to_cart(r, d, "", {}, 1, "") then
    ui.toast("Added " .. d.name)
  else
    conflict_dialog(r, d)
  end
end

function replace_cart(ev)
  local args = ev.args or {}
  local r = find_restaurant(args.restaurant)
  local d = find_dish(r, args.dish)
  if not r or not d then return end
  state.set("cart", { restaurant_id = r.id, restaurant = r.name, fee = r.fee, lines = {} })
  local opts = d.options or {}
  add_to_cart(r, d, opts[1] or "", {}, tonumber(args.qty) or 1, "")
  ui.toast("Added " .. d.name)
end

-- ---------------------------------------------------------------- dish

-- The dish the screen shows (from its parameters).
local function dish_of(params)
  params = params or {}
  return find_dish(find_restaurant(params.restaurant), params.dish)
end

function dish_view(ev)
  local d = dish_of(ev.params)
  if not d then return {} end
  local unit = priced(d, locals.get("option"), locals.get("extras"))
  return { d = d, line_total = money(unit * (tonumber(locals.get("qty")) or 1)) }
end

function dish_enter(ev)
  local params = ev.params or {}
  local r = find_restaurant(params.restaurant)
  local d = find_dish(r, params.dish)
  if not d then
    nav.pop()
    return
  end
  if not locals.get("loaded") then
    locals.set("qty", 1)
    locals.set("option", (d.options or {})[1] or "")
    local extras = {}
    for _, e in ipairs(d.extras or {}) do
      table.insert(extras, { label = e.label, price = e.price, text = e.text, on = false })
    end
    locals.set("extras", extras)
    locals.set("note", "")
    locals.set("loaded", true)
  end
end

function pick_option(ev)
  if type(ev.item) == "string" then
    locals.set("option", ev.item)
  end
end

function toggle_extra(ev)
  local i = tonumber(ev.index)
  local extras = locals.get("extras") or {}
  if not i or not extras[i] then return end
  locals.set("extras." .. i .. ".on", not extras[i].on)
end

function dish_minus(ev) orders.qty_minus() end
function dish_plus(ev) orders.qty_plus(20) end

function add_dish(ev)
  local params = ev.params or {}
  local r = find_restaurant(params.restaurant)
  local d = dish_of(params)
  if not r or not d then return end
  if add_to_cart(r, d, locals.get("option"), locals.get("extras"), tonumber(locals.get("qty")) or 1, locals.get("note")) then
    ui.toast("Added to cart")
    nav.pop()
  else
    conflict_dialog(r, d)
  end
end

-- ---------------------------------------------------------------- cart

function cart_enter(ev)
end

function cart_view(ev)
  return { sum = summary(0) }
end

function line_plus(ev)
  -- Up to 20 (a line merged past 20 comes back down to it).
  local i, l, q = orders.line_at("cart.lines", ev.item)
  if i then orders.set_qty("cart.lines", i, l, math.min(20, q + 1), "unit") end
end

function line_minus(ev)
  if orders.fewer("cart.lines", ev.item, "unit") then line_remove(ev) end
end

function line_remove(ev)
  local i, l = orders.line_at("cart.lines", ev.item)
  if not i then return end
  state.remove("cart.lines", i)
  if #cart().lines == 0 then clear_cart() end
  ui.toast("Removed " .. (l.name or "item"))
end

function open_checkout(ev)
  local s = summary(0)
  if #cart().lines == 0 then return end
  if s.below_min then
    ui.toast("Minimum order is " .. money(MIN_ORDER))
    return
  end
  nav.push("checkout")
end

-- ---------------------------------------------------------------- checkout

function checkout_enter(ev)
  if #cart().lines == 0 then
    nav.pop()
  elseif orders.load_form(state.get("address"), { "street", "unit", "note" }) then
    locals.set("when", "asap")
    locals.set("tip", 15)
    locals.set("payment", "card")
  end
end

function checkout_view(ev)
  local r = find_restaurant(cart().restaurant_id)
  local t = r and r.time or 30
  return { eta = hhmm(clock.minutes() + t) .. "–" .. hhmm(clock.minutes() + t + 10), sum = summary(locals.get("tip")) }
end

local function set_tip(p)
  locals.set("tip", p)
end
function tip_0(ev) set_tip(0) end
function tip_10(ev) set_tip(10) end
function tip_15(ev) set_tip(15) end
function tip_20(ev) set_tip(20) end

local function stage_delay(stage, later)
  -- ms until the next stage: placed → preparing → on the way → delivered.
  if stage == 1 then return (later and 60 or 2) * 60000 end
  if stage == 2 then return 12 * 60000 end
  return 15 * 60000
end

function place_order(ev)
  local c = cart()
  if #c.lines == 0 then return end
  local street = trim(locals.get("street"))
  if #street < 5 or not street:find("%d") or not street:find("%a") then
    locals.set("err", { street = "Enter a street and house number" })
    ui.toast("Add a delivery address")
    return
  end
  locals.set("err", {})
  local s = summary(locals.get("tip"))
  local id = tonumber(state.get("next_order")) or 5301
  local courier = COURIERS[(id % #COURIERS) + 1]
  local unit = trim(locals.get("unit"))
  local later = locals.get("when") == "later"
  local r = find_restaurant(c.restaurant_id)
  local total_minutes = (r and r.time or 30) + (later and 60 or 0)
  local order = {
    id = id,
    restaurant_id = c.restaurant_id,
    restaurant = c.restaurant,
    lines = c.lines,
    summary = orders.summary(c.lines),
    total = s.total_n,
    total_text = s.total,
    tip = locals.get("tip"),
    payment = locals.get("payment") or "card",
    address = street .. (unit ~= "" and (", " .. unit) or ""),
    note = trim(locals.get("note")),
    date = clock.today(),
    time = hhmm(clock.minutes()),
    placed_ms = clock.now(),
    eta = hhmm(clock.minutes() + total_minutes),
    stage = 1,
    status = STAGES[1].title,
    courier = courier[1],
    vehicle = courier[2],
    times = { hhmm(clock.minutes()) },
  }
  state.insert("orders", order, 1)
  state.set("next_order", id + 1)
  state.set("active_order", id)
  state.set("address", { street = street, unit = unit, note = trim(locals.get("note")) })
  clear_cart()
  timer.after(stage_delay(1, later), "advance_order", { id = id, stage = 2 })
  nav.replace("tracking", { id = id })
end

function advance_order(ev)
  local o, i, stage = orders.due(ev.args)
  if not o then return end
  local times = o.times or {}
  times[stage] = hhmm(clock.minutes())
  orders.set_stage(i, stage, STAGES[stage].title)
  state.set("orders." .. i .. ".times", times)
  if stage < 4 then
    timer.after(stage_delay(stage), "advance_order", { id = o.id, stage = stage + 1 })
  end
  if stage == 3 then
    orders.notify(o, "tracking", "delivery_dining", o.restaurant, o.courier .. " is on the way with your order")
  elseif stage == 4 then
    state.set("active_order", 0)
    orders.notify(o, "tracking", "delivery_dining", "Your order has arrived",
      "Order #" .. o.id .. " from " .. o.restaurant .. " was delivered. Enjoy!")
  end
end

-- ---------------------------------------------------------------- tracking

function tracking_enter(ev)
  if not find_order(ev.params and ev.params.id) then
    ui.toast("Order not found")
    nav.pop()
  end
end

function tracking_view(ev)
  local o = find_order(ev.params and ev.params.id)
  if not o then return {} end
  local eta_text, progress
  local stage = tonumber(o.stage) or 1
  local steps
  if o.status == "Cancelled" then
    -- Stage 3 of these two rows: both done, neither current.
    steps = orders.steps({
      { title = "Order placed", subtitle = o.time, icon = "receipt_long" },
      { title = "Cancelled", subtitle = "You were not charged", icon = "close" },
    }, 3)
    eta_text, progress = "This order was cancelled", 0
  else
    local times = o.times or {}
    steps = orders.steps(STAGES, stage)
    for k, st in ipairs(steps) do
      if times[k] and k <= stage then st.subtitle = times[k] .. " · " .. st.subtitle end
    end
    if stage >= 4 then
      eta_text = "Delivered at " .. (times[4] or o.eta)
    else
      eta_text = "Estimated arrival " .. o.eta
    end
    progress = ({ 0.1, 0.4, 0.75, 1.0 })[stage] or 0
  end
  return { o = o, steps = steps, eta_text = eta_text, progress = progress }
end

function call_courier(ev)
  local o = find_order(ev.params and ev.params.id)
  if type(o) == "table" then ui.toast("Calling " .. (o.courier or "courier") .. "…") end
end

function cancel_order(ev)
  local o = find_order(ev.params and ev.params.id)
  if type(o) ~= "table" then return end
  orders.confirm("Cancel this order?", "The restaurant hasn't started preparing it yet, so you won't be charged.",
    "Cancel order", "cancel_confirmed", { id = o.id }, "Keep order")
end

function cancel_confirmed(ev)
  local o, i = find_order(ev.args and ev.args.id)
  if not o or (tonumber(o.stage) or 1) > 1 then
    ui.toast("Too late to cancel: the restaurant is preparing it")
    return
  end
  state.set("orders." .. i .. ".status", "Cancelled")
  state.set("active_order", 0)
  tracking_enter({ params = { id = o.id } })
end

-- ---------------------------------------------------------------- orders

function open_order(ev) orders.open_row(ev, "tracking") end

function reorder(ev)
  local o = ev.item
  if type(o) ~= "table" then return end
  local r = find_restaurant(o.restaurant_id)
  if not r then return end
  local c = cart()
  if #c.lines > 0 and c.restaurant_id ~= r.id then
    ui.toast("Finish or clear your current cart first")
    return
  end
  c.restaurant_id, c.restaurant, c.fee = r.id, r.name, r.fee
  for _, l in ipairs(o.lines or {}) do table.insert(c.lines, l) end
  state.set("cart", c)
  nav.push("cart")
end
