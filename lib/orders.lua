-- Carts, orders and payments, as the shopping apps keep them (Food, Shop, Coffee and the Chatly
-- mini-apps; Bank, Chatly and Browser use the list helpers too): cart lines merged by key and
-- their quantities, what a cart comes to, order stages moved on by timers and the steps a tracker
-- shows, checkout forms, a payment's answer, and the rows, sorts, confirmations and Undo of the
-- lists the user changes.
local M = {}

-- ---------------------------------------------------------------- cart lines
-- A cart is a state list at `path` ("cart", or "cart.lines" in Food) of lines with a `key` (the
-- product and its options: two lines with the same key are one), a `qty`, a unit price in the
-- field `price` names ("unit", "price") and `total_text`.

-- The line `item` (a row of the cart list) stands for: its position, the line and its quantity
-- (1 when it has none); nil when the cart holds no such line.
function M.line_at(path, item)
  if type(item) ~= "table" then return nil end
  local line, i = lib.lists.find(state.get(path), "key", item.key)
  if not line then return nil end
  return i, line, tonumber(line.qty) or 1
end

-- Sets the quantity of the line at position `i` of the cart, and its total.
function M.set_qty(path, i, line, qty, price)
  state.set(path .. "." .. i .. ".qty", qty)
  state.set(path .. "." .. i .. ".total_text", lib.money.format(qty * (tonumber(line[price]) or 0)))
end

-- Adds `line` to the cart, or adds its `qty` to the line with the same key.
function M.add_line(path, line, price)
  local merged = false
  for i, old in ipairs(lib.store.list(path)) do
    if old.key == line.key then
      M.set_qty(path, i, old, (tonumber(old.qty) or 0) + line.qty, price)
      merged = true
    end
  end
  if not merged then state.insert(path, line) end
end

-- One more of the line `item` stands for: false when it has `max` already (nothing changes).
function M.more(path, item, price, max)
  local i, line, qty = M.line_at(path, item)
  if not i then return true end
  if qty + 1 > max then return false end
  M.set_qty(path, i, line, qty + 1, price)
  return true
end

-- One fewer of the line `item` stands for: true when it is the last one (nothing changes: the
-- caller removes the line its own way).
function M.fewer(path, item, price)
  local i, line, qty = M.line_at(path, item)
  if not i then return false end
  if qty <= 1 then return true end
  M.set_qty(path, i, line, qty - 1, price)
  return false
end

-- The quantity a product page picks (the screen's local `qty`, 1 when unset): one fewer, not
-- below 1.
function M.qty_minus()
  local q = tonumber(locals.get("qty")) or 1
  if q > 1 then locals.set("qty", q - 1) end
end

-- One more: false when it is `max` already (nothing changes).
function M.qty_plus(max)
  local q = tonumber(locals.get("qty")) or 1
  if q >= max then return false end
  locals.set("qty", q + 1)
  return true
end

-- What the lines come to: unit price (the field `price`) times quantity, rounded to cents.
function M.subtotal(lines, price)
  local sum = 0
  for _, l in ipairs(lines or {}) do sum = sum + (tonumber(l[price]) or 0) * (tonumber(l.qty) or 0) end
  return lib.money.round2(sum)
end

-- The lines in a few words, for an order or a payment: "2× Latte, 1× Bagel".
function M.summary(lines)
  local names = {}
  for _, l in ipairs(lines or {}) do table.insert(names, l.qty .. "× " .. l.name) end
  return table.concat(names, ", ")
end

-- ---------------------------------------------------------------- orders
-- Orders are the state list "orders" of tables with an `id`, a `stage` (1 when placed) and the
-- `status` the stage shows ("Cancelled" stops them).

-- The order with that id (7 or "7"), and its position.
function M.find(id)
  return lib.lists.by_id(state.get("orders"), id)
end

-- The stage a timer moves an order to (`args.id`, `args.stage`): the order, its position and the
-- stage; nil when the order is gone or cancelled, or is at that stage or later already.
function M.due(args)
  args = args or {}
  local o, i = M.find(args.id)
  local stage = tonumber(args.stage)
  if not o or not stage or o.status == "Cancelled" then return nil end
  if (tonumber(o.stage) or 1) >= stage then return nil end
  return o, i, stage
end

-- Moves the order at position `i` to `stage`, showing `status`.
function M.set_stage(i, stage, status)
  state.set("orders." .. i .. ".stage", stage)
  state.set("orders." .. i .. ".status", status)
end

-- The rows of an order tracker, one a stage of `stages` ({ title =, subtitle =, icon = }): those
-- before `stage` done (all of them once the last is reached), the one at `stage` current. A
-- `stage` past the last marks every row done and none current.
function M.steps(stages, stage)
  local steps = {}
  for k, st in ipairs(stages) do
    table.insert(steps, {
      title = st.title, subtitle = st.subtitle, icon = st.icon,
      done = k < stage or stage == #stages, current = k == stage, last = k == #stages,
    })
  end
  return steps
end

-- Tells the user how order `o` is doing: a notification that opens `screen` on it.
function M.notify(o, screen, icon, title, text)
  ui.notify{ title = title, text = text, icon = icon, screen = screen, params = { id = o.id } }
end

-- A checkout (or any) form opened: once per screen (the local `loaded`), its fields (locals named
-- as in `fields`) filled from `record` ("" for one it lacks) and its errors (`err`) cleared;
-- false when it was loaded already (the caller sets the rest of the form when true).
function M.load_form(record, fields)
  if locals.get("loaded") then return false end
  record = record or {}
  for _, f in ipairs(fields) do locals.set(f, record[f] or "") end
  locals.set("err", {})
  locals.set("loaded", true)
  return true
end

-- Whether a mini-app's `host.pay` came back paid (`args` of its handler); when not, a toast says
-- why ("Payment cancelled", "Payment failed: insufficient balance").
function M.paid(args)
  if args.paid then return true end
  ui.toast(args.reason == "cancelled" and "Payment cancelled" or ("Payment failed: " .. tostring(args.reason)))
  return false
end

-- ---------------------------------------------------------------- lists the user taps, sorts and changes

-- Opens `screen` on the row tapped (`ev.item`: a product, an order, a station): the row's `field`
-- ("id" when nil) becomes the screen's parameter `param` (named `field` too when nil). A row
-- without that field opens nothing.
function M.open_row(ev, screen, field, param)
  field = field or "id"
  local row = ev.item
  if type(row) == "table" and row[field] ~= nil then nav.push(screen, { [param or field] = row[field] }) end
end

-- A chip or a row picked (`ev.item`): the screen's local `key` becomes its `field` ("value" when
-- nil).
function M.pick(ev, key, field)
  if type(ev.item) == "table" then locals.set(key, ev.item[field or "value"]) end
end

-- The sheet that picks how a list is sorted: a radio option for each of `sorts` ({ label =,
-- value = }), the screen's local `sort` checked; a pick runs the app's `sort_picked`.
function M.sort_sheet(title, sorts)
  local options = {}
  for _, s in ipairs(sorts) do
    table.insert(options, {
      text = s.label, handler = "sort_picked", args = { value = s.value },
      icon = locals.get("sort") == s.value and "radio_button_checked" or "radio_button_unchecked",
    })
  end
  ui.sheet{ title = title, options = options }
end

-- What `sort_picked` does: the screen's local `sort` becomes the value picked, one of `sorts`.
function M.pick_sort(ev, sorts)
  local v = ev.args and ev.args.value
  if v ~= nil and lib.lists.find(sorts, "value", v) then locals.set("sort", v) end
end

-- A dialog that asks before `handler` runs (with `args`): the buttons `no` ("Cancel" when nil),
-- which only closes it, and `yes`.
function M.confirm(title, text, yes, handler, args, no)
  ui.dialog{ title = title, text = text, buttons = { { text = no or "Cancel" }, { text = yes, handler = handler, args = args } } }
end

-- Removes the entry at position `i` of the state list at `path`, with a snackbar `text` whose
-- Undo runs the handler `undo` with `args` (the entry and its position, for put_back).
function M.remove(path, i, text, undo, args)
  state.remove(path, i)
  ui.snackbar{ text = text, action = "Undo", handler = undo, args = args }
end

-- Undo of a removal: puts `entry` back into the state list at `path` at its old position `pos`
-- (at the end when the list is shorter now).
function M.put_back(path, entry, pos)
  local list = lib.store.list(path)
  state.insert(path, entry, math.min(math.max(tonumber(pos) or 1, 1), #list + 1))
end

-- The Undo handler of `remove`: puts `args[key]` (the entry removed) back at `args.pos`, unless
-- the list holds an entry with the same `field` again; true when it did.
function M.undo_remove(args, key, path, field)
  local entry = args and args[key]
  if type(entry) ~= "table" or lib.lists.find(state.get(path), field, entry[field]) then return false end
  M.put_back(path, entry, args.pos)
  return true
end

return M
