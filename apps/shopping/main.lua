-- Shop: catalog, search with filters and sort, product pages, cart, checkout and orders.
-- Everything mutable lives in state (cart, orders, wishlist) or locals (forms, filters).

local TAX_RATE = 0.08
local FREE_SHIPPING = 50
local STANDARD_SHIPPING = 5.99
local EXPRESS_SHIPPING = 12

-- ---------------------------------------------------------------- helpers

local money = lib.money.format
local round2 = lib.money.round2
local trim = lib.text.trim
local orders = lib.orders
local find_order = orders.find

local function products()
  return content.get("products") or {}
end

local function find_product(id) return lib.lists.by_id(products(), id) end

local function cart()
  local c = state.get("cart")
  if type(c) ~= "table" then return {} end
  return c
end

-- Items in the cart (the badge of the cart buttons), derived in the views that show it.
local function cart_count() return lib.lists.sum(cart(), "qty") end

local function line_options(size, color)
  local parts = {}
  if type(size) == "string" and size ~= "" then table.insert(parts, "Size " .. size) end
  if type(color) == "string" and color ~= "" then table.insert(parts, color) end
  return table.concat(parts, " · ")
end

local function summary(lines, shipping_mode)
  local subtotal, count = orders.subtotal(lines, "price"), lib.lists.sum(lines, "qty")
  local shipping = 0
  if shipping_mode == "express" then
    shipping = EXPRESS_SHIPPING
  elseif subtotal < FREE_SHIPPING and subtotal > 0 then
    shipping = STANDARD_SHIPPING
  end
  local tax = round2(subtotal * TAX_RATE)
  local total = round2(subtotal + shipping + tax)
  local hint = ""
  if subtotal > 0 and subtotal < FREE_SHIPPING and shipping_mode ~= "express" then
    hint = "Add " .. money(FREE_SHIPPING - subtotal) .. " more for free shipping"
  end
  return {
    count = count,
    subtotal_n = subtotal, shipping_n = shipping, tax_n = tax, total_n = total,
    subtotal = money(subtotal),
    shipping = shipping == 0 and "Free" or money(shipping),
    tax = money(tax),
    total = money(total),
    free_hint = hint,
  }
end

local function add_line(p, size, color, qty)
  orders.add_line("cart", {
    key = tostring(p.id) .. "|" .. (size or "") .. "|" .. (color or ""),
    product_id = p.id,
    name = p.name,
    brand = p.brand,
    icon = p.icon,
    size = size or "",
    color = color or "",
    options = line_options(size, color),
    price = p.price,
    price_text = p.price_text,
    qty = qty,
    total_text = money(qty * p.price),
  }, "price")
end

local function add_recent(q)
  q = trim(q)
  if q ~= "" then lib.store.remember("recent_searches", q, 6) end
end

-- ---------------------------------------------------------------- navigation

function go_back(ev) nav.pop() end
function go_home(ev) nav.home() end
function open_cart(ev) nav.push("cart") end
function open_orders(ev) nav.push("orders") end
function open_search(ev) nav.push("search", {}) end
function open_sale(ev) nav.push("search", { sale = true }) end

function open_category(ev) orders.open_row(ev, "search", "id", "category") end
function open_product(ev) orders.open_row(ev, "product") end

-- ---------------------------------------------------------------- home

function home_view(ev)
  local featured = {}
  for _, p in ipairs(products()) do
    if p.featured then table.insert(featured, p) end
  end
  return { featured = featured, cart_count = cart_count() }
end

-- ---------------------------------------------------------------- search

local SORT_LABELS = {
  relevance = "Relevance", price_asc = "Price ↑", price_desc = "Price ↓", rating = "Top rated", reviews = "Popular",
}

local function matches(p, q)
  if q == "" then return true end
  local hay = string.lower((p.name or "") .. " " .. (p.brand or "") .. " " .. (p.category or "") .. " " .. (p.description or ""))
  for word in q:gmatch("%S+") do
    if not hay:find(word, 1, true) then return false end
  end
  return true
end

function search_view(ev)
  local q = string.lower(trim(locals.get("query")))
  local category = locals.get("category") or "all"
  local price = locals.get("price") or "any"
  local rating = tonumber(locals.get("rating")) or 0
  local sale_only = locals.get("sale") == true
  local lo, hi = 0, math.huge
  if price ~= "any" then
    local a, b = tostring(price):match("^(%d+)%-(%d+)$")
    lo, hi = tonumber(a) or 0, tonumber(b) or math.huge
  end
  local out = {}
  for i, p in ipairs(products()) do
    if (category == "all" or p.category == category)
      and (p.price or 0) >= lo and (p.price or 0) < hi
      and (p.rating or 0) >= rating
      and (not sale_only or (p.old_price_text or "") ~= "")
      and matches(p, q) then
      local row = {}
      for k, v in pairs(p) do row[k] = v end
      row.order = i
      table.insert(out, row)
    end
  end
  local sort = locals.get("sort") or "relevance"
  table.sort(out, function(a, b)
    if sort == "price_asc" and a.price ~= b.price then return a.price < b.price end
    if sort == "price_desc" and a.price ~= b.price then return a.price > b.price end
    if sort == "rating" and a.rating ~= b.rating then return a.rating > b.rating end
    if sort == "reviews" and a.reviews ~= b.reviews then return a.reviews > b.reviews end
    return a.order < b.order
  end)
  local filters = 0
  if category ~= "all" then filters = filters + 1 end
  if price ~= "any" then filters = filters + 1 end
  if rating > 0 then filters = filters + 1 end
  if sale_only then filters = filters + 1 end
  return {
    results = out,
    count = #out,
    filter_count = filters,
    filters_label = filters > 0 and ("Filters (" .. filters .. ")") or "Filters",
    sort_label = SORT_LABELS[sort] or "Sort",
  }
end

function search_enter(ev)
  if not locals.get("loaded") then
    local params = ev.params or {}
    locals.set("query", type(params.query) == "string" and params.query or "")
    locals.set("category", type(params.category) == "string" and params.category or "all")
    locals.set("price", "any")
    locals.set("rating", 0)
    locals.set("sort", "relevance")
    locals.set("sale", params.sale == true)
    locals.set("show_filters", params.category ~= nil)
    locals.set("loaded", true)
  end
end

function search_submitted(ev)
  add_recent(locals.get("query"))
end

function search_cleared(ev)
  locals.set("query", "")
end

function use_recent(ev)
  if type(ev.item) ~= "string" then return end
  locals.set("query", ev.item)
  add_recent(ev.item)
end

function toggle_filters(ev)
  locals.set("show_filters", not locals.get("show_filters"))
end

-- The filter chips: each sets its filter to the chip's value.
function pick_category(ev) orders.pick(ev, "category") end
function pick_price(ev) orders.pick(ev, "price") end
function pick_rating(ev) orders.pick(ev, "rating") end

function reset_filters(ev)
  locals.set("category", "all")
  locals.set("price", "any")
  locals.set("rating", 0)
  locals.set("sale", false)
end

-- The sorts the search offers (content), in the sheet's order.
local function sorts() return (content.get("filters") or {}).sorts or {} end
function choose_sort(ev) orders.sort_sheet("Sort by", sorts()) end
function sort_picked(ev) orders.pick_sort(ev, sorts()) end

-- ---------------------------------------------------------------- product

function product_enter(ev)
  local params = ev.params or {}
  local p = find_product(params.id)
  if not p then
    ui.toast("This product is no longer available")
    nav.pop()
    return
  end
  if not locals.get("loaded") then
    locals.set("qty", 1)
    locals.set("size", "")
    local colors = p.colors or {}
    locals.set("color", colors[1] or "")
    locals.set("loaded", true)
  end
end

function product_view(ev)
  local p = find_product(ev.params and ev.params.id)
  if not p then return { cart_count = cart_count() } end
  return { p = p, wished = lib.lists.contains(state.get("wishlist"), p.id), cart_count = cart_count() }
end

function pick_size(ev)
  if type(ev.item) ~= "string" then return end
  locals.set("size", ev.item)
  locals.set("size_error", "")
end

function pick_color(ev)
  if type(ev.item) ~= "string" then return end
  locals.set("color", ev.item)
end

function qty_minus(ev) orders.qty_minus() end

function qty_plus(ev)
  if not orders.qty_plus(10) then ui.toast("Maximum 10 per order") end
end

local function add_current(ev)
  local p = find_product(ev.params and ev.params.id)
  if type(p) ~= "table" then return false end
  local sizes = p.sizes or {}
  local size = locals.get("size") or ""
  if #sizes > 0 and size == "" then
    locals.set("size_error", "Choose a size")
    ui.toast("Choose a size first")
    return false
  end
  add_line(p, size, locals.get("color") or "", tonumber(locals.get("qty")) or 1)
  return true
end

function add_to_cart(ev)
  if add_current(ev) then
    ui.snackbar{ text = "Added to cart", action = "View cart", handler = "open_cart" }
  end
end

function buy_now(ev)
  if add_current(ev) then nav.push("checkout") end
end

function toggle_wish(ev)
  local p = find_product(ev.params and ev.params.id)
  if type(p) ~= "table" then return end
  ui.toast(lib.store.toggle("wishlist", p.id) and "Saved to wishlist" or "Removed from wishlist")
end

function share_product(ev)
  local p = find_product(ev.params and ev.params.id)
  if type(p) ~= "table" then return end
  ui.share{ text = p.name .. " by " .. p.brand .. " – " .. p.price_text .. " on Shop", item = { product = p.id } }
end

-- ---------------------------------------------------------------- cart

function cart_enter(ev)
end

function cart_view(ev)
  return { sum = summary(cart(), "standard"), cart_count = cart_count() }
end

function line_plus(ev)
  if not orders.more("cart", ev.item, "price", 10) then ui.toast("Maximum 10 per order") end
end

function line_minus(ev)
  if orders.fewer("cart", ev.item, "price") then line_remove(ev) end
end

function line_remove(ev)
  local i, line = orders.line_at("cart", ev.item)
  if not i then return end
  orders.remove("cart", i, "Removed " .. (line.name or "item"), "undo_remove", { line = line, pos = i })
end

function undo_remove(ev) orders.undo_remove(ev.args, "line", "cart", "key") end

function open_line_product(ev) orders.open_row(ev, "product", "product_id", "id") end

function clear_cart(ev)
  orders.confirm("Empty cart?", "All items will be removed from your cart.", "Empty", "clear_cart_confirmed")
end

function clear_cart_confirmed(ev)
  state.set("cart", {})
end

function open_checkout(ev)
  if #cart() == 0 then
    ui.toast("Your cart is empty")
    return
  end
  nav.push("checkout")
end

-- ---------------------------------------------------------------- checkout

function checkout_enter(ev)
  if #cart() == 0 then
    nav.pop()
  elseif orders.load_form(state.get("address"), { "name", "street", "city", "zip", "phone" }) then
    locals.set("save_address", true)
    locals.set("shipping", "standard")
    locals.set("payment", state.get("payment") or "card")
  end
end

function checkout_view(ev)
  return { sum = summary(cart(), locals.get("shipping")) }
end

local PAYMENT_LABELS = { card = "Visa ending 4242", payflow = "PayFlow wallet", cod = "Cash on delivery" }

local function validate_address()
  local err = {}
  local ok = true
  local name, street, city = trim(locals.get("name")), trim(locals.get("street")), trim(locals.get("city"))
  local zip, phone = trim(locals.get("zip")), trim(locals.get("phone"))
  if #name < 2 then err.name = "Enter your full name"; ok = false end
  if #street < 5 or not street:find("%d") then err.street = "Enter a street address with a number"; ok = false end
  if #city < 2 then err.city = "Enter a city"; ok = false end
  if not zip:match("^%d%d%d%d%d$") then err.zip = "5 digits"; ok = false end
  local digits = phone:gsub("%D", "")
  if #digits < 7 or #digits > 15 then err.phone = "Enter a valid phone number"; ok = false end
  err.any = not ok
  locals.set("err", err)
  return ok, { name = name, street = street, city = city, zip = zip, phone = phone }
end

function place_order(ev)
  local lines = cart()
  if #lines == 0 then
    ui.toast("Your cart is empty")
    return
  end
  local ok, address = validate_address()
  if not ok then
    ui.toast("Check the highlighted fields")
    return
  end
  local payment = locals.get("payment") or "card"
  local sum = summary(lines, locals.get("shipping"))
  local id = tonumber(state.get("next_order")) or 10421
  local items, names = {}, {}
  for _, line in ipairs(lines) do
    table.insert(items, {
      product_id = line.product_id, name = line.name, icon = line.icon, options = line.options,
      qty = line.qty, price = line.price, total_text = line.total_text,
    })
    table.insert(names, line.name)
  end
  local express = locals.get("shipping") == "express"
  local order = {
    id = id,
    date = clock.today(),
    time = lib.dates.hhmm(clock.minutes()),
    items = items,
    count = sum.count,
    summary = table.concat(names, ", "),
    subtotal_text = sum.subtotal, shipping_text = sum.shipping, tax_text = sum.tax,
    total = sum.total_n, total_text = sum.total,
    address = address,
    payment = payment,
    payment_label = PAYMENT_LABELS[payment] or payment,
    shipping = express and "express" or "standard",
    status = "Processing",
    stage = 1,
  }
  state.insert("orders", order, 1)
  state.set("next_order", id + 1)
  state.set("cart", {})
  state.set("payment", payment)
  if locals.get("save_address") then state.set("address", address) end
  timer.after(2 * 3600000, "order_progress", { id = id, stage = 2 })
  local eta = express and "tomorrow" or "in 3–5 days"
  nav.replace("order_placed", { id = id, total = sum.total, eta = eta })
end

local STAGES = {
  { title = "Processing", subtitle = "We're preparing your items" },
  { title = "Shipped", subtitle = "Handed to the carrier" },
  { title = "Out for delivery", subtitle = "With your courier today" },
  { title = "Delivered", subtitle = "Left at your door" },
}

function order_progress(ev)
  local o, i, stage = orders.due(ev.args)
  if not o then return end
  orders.set_stage(i, stage, (STAGES[stage] or STAGES[#STAGES]).title)
  if stage < #STAGES then
    local wait = stage == 2 and 20 * 3600000 or 3 * 3600000
    timer.after(wait, "order_progress", { id = o.id, stage = stage + 1 })
  end
  if stage == 2 or stage == #STAGES then
    orders.notify(o, "order_detail", "local_shipping", stage == 2 and "Your order has shipped" or "Delivered",
      "Order #" .. o.id .. (stage == 2 and " is on its way." or " was delivered."))
  end
end

function view_placed_order(ev)
  local id = ev.params and ev.params.id
  nav.replace("order_detail", { id = id })
end

-- ---------------------------------------------------------------- orders

function open_order(ev) orders.open_row(ev, "order_detail") end

function order_enter(ev)
  if not find_order(ev.params and ev.params.id) then
    ui.toast("Order not found")
    nav.pop()
  end
end

function order_view(ev)
  local o = find_order(ev.params and ev.params.id)
  if not o then return {} end
  local steps
  if o.status == "Cancelled" then
    -- Stage 3 of these two rows: both done, neither current.
    steps = orders.steps({
      { title = "Order placed", subtitle = o.date .. " " .. (o.time or "") },
      { title = "Cancelled", subtitle = "Refund issued to " .. (o.payment_label or "your payment method") },
    }, 3)
  else
    steps = orders.steps(STAGES, tonumber(o.stage) or 1)
  end
  return { o = o, steps = steps }
end

function buy_again(ev)
  local o = find_order(ev.params and ev.params.id)
  if type(o) ~= "table" then return end
  local added = 0
  for _, item in ipairs(o.items or {}) do
    local p = find_product(item.product_id)
    if p then
      local size, color = "", ""
      local opts = item.options or ""
      size = opts:match("Size ([^·]+)") or ""
      size = trim(size)
      color = trim(opts:match("· (.+)$") or (opts:find("Size") and "" or opts))
      add_line(p, size, color, tonumber(item.qty) or 1)
      added = added + 1
    end
  end
  if added > 0 then
    ui.snackbar{ text = "Items added to your cart", action = "View cart", handler = "open_cart" }
  end
end

function cancel_order(ev)
  local o = find_order(ev.params and ev.params.id)
  if type(o) ~= "table" then return end
  orders.confirm("Cancel order #" .. o.id .. "?", "You'll get a full refund of " .. (o.total_text or "") .. ".",
    "Cancel order", "cancel_confirmed", { id = o.id }, "Keep order")
end

function cancel_confirmed(ev)
  local o, i = find_order(ev.args and ev.args.id)
  if not o or o.status ~= "Processing" then return end
  state.set("orders." .. i .. ".status", "Cancelled")
  ui.toast("Order cancelled")
  order_enter({ params = { id = o.id } })
end
