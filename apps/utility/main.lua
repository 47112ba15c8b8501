-- Utilities (Chatly mini-app): bills, pay with Chatly Pay, payment history, account numbers.

local IDS = { "electricity", "water", "gas", "internet" }

local money = lib.money.format
local trim = lib.text.trim
local orders = lib.orders

local function find_bill(id) return lib.lists.find(content.get("providers"), "id", id) end

-- The account number saved for a bill ("" when none) and its payment record (nil when unpaid).
local function account_of(b) return (state.get("accounts") or {})[b.id] or "" end
local function payment_of(b) return (state.get("paid") or {})[b.id] end

local function holder()
  local p = host.profile() or {}
  return tostring(p.name or "you")
end

local days_between = lib.dates.days_between

function go_back(ev) nav.pop() end
function open_history(ev) nav.push("history") end
function open_accounts(ev) nav.push("accounts") end

function bills_view(ev)
  local paid = state.get("paid") or {}
  local accounts = state.get("accounts") or {}
  local out, due, count = {}, 0, 0
  for _, b in ipairs(content.get("providers") or {}) do
    local left = days_between(clock.today(), b.due)
    local is_paid = paid[b.id] ~= nil
    local text
    if is_paid then
      text = "Paid"
    elseif left < 0 then
      text = "Overdue by " .. (-left) .. " days"
    elseif left == 0 then
      text = "Due today"
    else
      text = "Due in " .. left .. " days"
    end
    if not is_paid then
      due = due + b.amount
      count = count + 1
    end
    table.insert(out, {
      id = b.id, name = b.name, provider = b.provider, icon = b.icon, amount_text = money(b.amount),
      paid = is_paid, soon = left <= 5, state_text = text, account = accounts[b.id] or "",
    })
  end
  return { name = holder(), bills = out, due_text = money(due), due_count = count }
end

function open_bill(ev) orders.open_row(ev, "bill") end

function bill_enter(ev)
  if not find_bill(ev.params and ev.params.id) then nav.pop() end
end

function bill_view(ev)
  local b = find_bill(ev.params and ev.params.id)
  if not b then return {} end
  b.amount_text = money(b.amount)
  local diff = (tonumber(b.amount) or 0) - (tonumber(b.prev) or 0)
  local change_text = "Same as last period"
  if math.abs(diff) >= 0.005 then
    change_text = (diff > 0 and "Up " or "Down ") .. money(math.abs(diff)) .. " from last period"
  end
  return {
    b = b,
    name = holder(),
    account = account_of(b),
    paid = payment_of(b),
    prev_text = money(b.prev),
    change_text = change_text,
  }
end

function pay_bill(ev)
  local b = find_bill(ev.params and ev.params.id)
  if type(b) ~= "table" then return end
  if payment_of(b) then
    ui.toast("This bill is already paid")
    return
  end
  local account = account_of(b)
  if account == "" then
    orders.confirm("Account number needed", "Add your " .. b.provider .. " account number before paying.", "Add now", "open_accounts")
    return
  end
  host.pay{ amount = b.amount, merchant = b.provider, note = b.name .. " bill · " .. account, handler = "bill_paid", args = { id = b.id } }
end

function bill_paid(ev)
  local args = ev.args or {}
  if not orders.paid(args) then return end
  local b = find_bill(args.id)
  if not b then return end
  local tx = type(args.transaction) == "table" and args.transaction or {}
  local record = { date = clock.today(), ref = tx.id or "", amount = b.amount }
  state.set("paid." .. b.id, record)
  local id = tonumber(state.get("next_payment")) or 1
  state.set("next_payment", id + 1)
  state.insert("payments", { id = id, bill = b.id, provider = b.provider, amount = b.amount, amount_text = money(b.amount), date = clock.today(), ref = tx.id or "", icon = b.icon }, 1)
  ui.toast(b.name .. " bill paid")
end

function accounts_enter(ev) orders.load_form(state.get("accounts"), IDS) end

function save_accounts(ev)
  local err, ok, values = {}, true, {}
  for _, id in ipairs(IDS) do
    local v = string.upper(trim(locals.get(id)))
    if v ~= "" and (not v:match("^[%u%d%-]+$") or #v < 5 or #v > 16 or not v:find("%d")) then
      err[id] = "5–16 letters, digits or dashes"
      ok = false
    end
    values[id] = v
  end
  locals.set("err", err)
  if not ok then return end
  state.set("accounts", values)
  ui.toast("Account numbers saved")
  nav.pop()
end
