-- Bank: PIN / fingerprint sign-in, accounts, seeded statements, transfers, payees and cards.

-- ---------------------------------------------------------------- helpers

local round2 = lib.money.round2

-- Statements show amounts without their sign (see `signed`).
local money = lib.money.grouped

local function signed(n)
  n = tonumber(n) or 0
  return (n >= 0 and "+" or "−") .. money(n)
end

local trim = lib.text.trim
local orders = lib.orders

local function days_ago(n) return lib.dates.add_days(clock.today(), -n) end

local function account(id) return lib.lists.find(state.get("accounts"), "id", id) end

local function set_balance(id, balance)
  local a, i = account(id)
  if not a then return end
  balance = round2(balance)
  state.set("accounts." .. i .. ".balance", balance)
  state.set("accounts." .. i .. ".balance_text", money(balance))
  state.set("total_text", money(lib.lists.sum(state.get("accounts"), "balance")))
end

local function new_tx(merchant, category, icon, amount, date, note)
  local id = tonumber(state.get("next_tx")) or 1
  state.set("next_tx", id + 1)
  return {
    id = id, merchant = merchant, category = category, icon = icon, amount = round2(amount),
    amount_text = signed(amount), date = date, note = note or "",
  }
end

-- An account number typed in the form field `key`, without spaces; whether it has 8-12 digits.
local function typed_account(key) return (trim(locals.get(key)):gsub("%s", "")) end
local function valid_account(acct) return acct:match("^%d+$") and #acct >= 8 and #acct <= 12 end

local function add_payee(name, bank, acct)
  local id = tonumber(state.get("next_payee")) or 1
  state.insert("payees", { id = id, name = name, bank = bank, account = acct, masked = "•••• " .. acct:sub(-4) })
  state.set("next_payee", id + 1)
end

local function require_signin()
  if not state.get("signed_in") then
    nav.replace("signin")
    return false
  end
  return true
end

-- ---------------------------------------------------------------- install

function seed_bank(ev)
  local merchants = content.get("merchants") or {}
  local chk, sav = {}, {}
  local chk_balance = 1800 + math.random(0, 2400) + math.random(0, 99) / 100
  local sav_balance = 6000 + math.random(0, 9000) + math.random(0, 99) / 100
  local start_chk = chk_balance
  -- 45 days of history, newest first.
  for day = 0, 44 do
    local date = days_ago(day)
    local count = math.random(0, 2)
    for _ = 1, count do
      if #merchants > 0 then
        local m = merchants[math.random(1, #merchants)]
        local lo, hi = tonumber(m.min) or 5, tonumber(m.max) or 50
        local amount = round2(lo + (hi - lo) * math.random(0, 100) / 100)
        table.insert(chk, new_tx(m.name, m.category, m.icon, -amount, date, ""))
        start_chk = start_chk + amount
      end
    end
    if day % 14 == 3 then
      local pay = 2450 + math.random(0, 6) * 25
      table.insert(chk, new_tx("Acme Robotics Payroll", "Income", "payments", pay, date, "Salary"))
      start_chk = start_chk - pay
    end
    if day % 30 == 1 then
      table.insert(sav, new_tx("Interest earned", "Interest", "trending_up", round2(sav_balance * 0.0034), date, ""))
    end
    if day % 15 == 7 then
      local amt = 100 * math.random(1, 4)
      table.insert(chk, new_tx("To High-Yield Savings", "Transfer", "swap_horiz", -amt, date, "Auto-save"))
      table.insert(sav, new_tx("From Everyday Checking", "Transfer", "swap_horiz", amt, date, "Auto-save"))
    end
  end
  state.set("transactions", { chk = chk, sav = sav })
  set_balance("chk", chk_balance)
  set_balance("sav", sav_balance)
end

-- ---------------------------------------------------------------- sign in

function signin_enter(ev)
  if state.get("signed_in") then
    nav.replace("home")
    return
  end
  if locals.get("pin") == nil then locals.set("pin", "") end
end

function pin_key(ev)
  local digit = type(ev.id) == "string" and ev.id:match("^pin_(%d)$")
  if not digit then return end
  local pin = locals.get("pin") or ""
  if #pin >= 4 then return end
  pin = pin .. digit
  locals.set("pin", pin)
  locals.set("error", "")
  if #pin == 4 then pin_done(ev) end
end

function pin_delete(ev)
  local pin = locals.get("pin") or ""
  locals.set("pin", pin:sub(1, -2))
end

function pin_done(ev)
  local pin = locals.get("pin") or ""
  if #pin < 4 then
    locals.set("error", "Enter all 4 digits")
    return
  end
  if pin ~= state.get("pin") then
    local tries = (tonumber(locals.get("tries")) or 0) + 1
    locals.set("tries", tries)
    locals.set("pin", "")
    locals.set("error", "Incorrect PIN" .. (tries >= 3 and ". Use your fingerprint or reset your PIN." or ""))
    return
  end
  state.set("signed_in", true)
  nav.replace("home")
end

function biometric_signin(ev)
  state.set("signed_in", true)
  ui.toast("Fingerprint recognized")
  nav.replace("home")
end

function forgot_pin(ev)
  ui.dialog{
    title = "Reset your PIN",
    text = "Call us at 1-800-555-0199 or visit a branch with a photo ID to reset your PIN.",
    buttons = { { text = "OK" } },
  }
end

function sign_out(ev)
  orders.confirm("Sign out?", "You'll need your PIN or fingerprint to sign in again.", "Sign out", "sign_out_confirmed")
end

function sign_out_confirmed(ev)
  state.set("signed_in", false)
  nav.replace("signin")
end

-- ---------------------------------------------------------------- home and accounts

function home_enter(ev)
  require_signin()
end

function home_view(ev)
  local name = state.get("customer") or ""
  local recent = {}
  for i, t in ipairs((state.get("transactions") or {}).chk or {}) do
    if i > 5 then break end
    t.account = "chk"
    table.insert(recent, t)
  end
  return { first_name = name:match("^(%S+)") or name, recent = recent }
end

function open_account(ev) orders.open_row(ev, "account") end
function open_checking(ev) nav.push("account", { id = "chk" }) end
function open_transfer(ev) nav.push("transfer", {}) end
function open_payees(ev) nav.push("payees") end
function open_cards(ev) nav.push("cards") end

function open_transfer_from(ev)
  nav.push("transfer", { from = ev.params and ev.params.id })
end

local FILTERS = {
  { label = "All", value = "all" }, { label = "In", value = "in", icon = "south_west" }, { label = "Out", value = "out", icon = "north_east" },
}

function account_view(ev)
  local a = account(ev.params and ev.params.id)
  if not a then return {} end
  local filter = locals.get("filter") or "all"
  local out, in_sum, out_sum = {}, 0, 0
  for _, t in ipairs((state.get("transactions") or {})[a.id] or {}) do
    local amt = tonumber(t.amount) or 0
    if amt > 0 then in_sum = in_sum + amt else out_sum = out_sum - amt end
    if filter == "all" or (filter == "in" and amt > 0) or (filter == "out" and amt < 0) then
      t.account = a.id
      table.insert(out, t)
    end
  end
  return { a = a, txs = out, in_text = money(in_sum), out_text = money(out_sum), filters = FILTERS }
end

function account_enter(ev)
  if not require_signin() then return end
  local id = ev.params and ev.params.id
  if not account(id) then
    nav.pop()
    return
  end
  if not locals.get("filter") then locals.set("filter", "all") end
end

function pick_filter(ev) orders.pick(ev, "filter") end

function show_transaction(ev)
  local t = ev.item
  if type(t) ~= "table" then return end
  local lines = {
    "Amount: " .. (t.amount_text or ""),
    "Date: " .. (t.date or ""),
    "Category: " .. (t.category or ""),
    "Reference: TX" .. string.format("%06d", tonumber(t.id) or 0),
  }
  if t.note and t.note ~= "" then table.insert(lines, "Memo: " .. t.note) end
  ui.dialog{ title = t.merchant or "Transaction", text = table.concat(lines, "\n"), buttons = { { text = "Close" } } }
end

-- ---------------------------------------------------------------- transfer

-- Where money from `from` can go: the other own account, the payees, a new recipient.
local function targets_from(from)
  local targets = {}
  local other = from == "chk" and "sav" or "chk"
  local oa = account(other)
  if oa then table.insert(targets, { key = "acct:" .. other, name = oa.name, detail = "Your account · " .. oa.number }) end
  for _, p in ipairs(state.get("payees") or {}) do
    table.insert(targets, { key = "payee:" .. p.id, name = p.name, detail = p.bank .. " · " .. p.masked })
  end
  table.insert(targets, { key = "new", name = "New recipient", detail = "Enter name and account number" })
  return targets
end

function transfer_view(ev)
  local chk, sav = account("chk"), account("sav")
  return {
    targets = targets_from(locals.get("from") or "chk"),
    chk_text = chk and chk.balance_text or "",
    sav_text = sav and sav.balance_text or "",
  }
end

function transfer_enter(ev)
  if not require_signin() then return end
  if not locals.get("loaded") then
    local params = ev.params or {}
    locals.set("from", (params.from == "sav") and "sav" or "chk")
    local to = ""
    if params.payee then to = "payee:" .. tostring(params.payee) end
    locals.set("to", to)
    locals.set("amount", "")
    locals.set("memo", "")
    locals.set("new_name", "")
    locals.set("new_account", "")
    locals.set("save_payee", true)
    locals.set("err", {})
    locals.set("loaded", true)
  end
end

function from_changed(ev)
  local to = locals.get("to") or ""
  if to == "acct:" .. (locals.get("from") or "") then locals.set("to", "") end
end

function pick_target(ev)
  if type(ev.item) == "table" and ev.item.key then locals.set("to", ev.item.key) end
end

function amount_changed(ev)
  local err = locals.get("err") or {}
  if err.amount then
    err.amount = nil
    locals.set("err", err)
  end
end

local function set_amount(v)
  locals.set("amount", tostring(v))
  amount_changed()
end
function amt_20(ev) set_amount(20) end
function amt_50(ev) set_amount(50) end
function amt_100(ev) set_amount(100) end
function amt_250(ev) set_amount(250) end

local function parse_amount(text)
  text = trim(text):gsub("[$,]", "")
  if not text:match("^%d+%.?%d?%d?$") and not text:match("^%.%d%d?$") then return nil end
  return tonumber(text)
end

function review_transfer(ev)
  local from = locals.get("from") or "chk"
  local a = account(from)
  if not a then return end
  local err = {}
  local ok = true
  local to = locals.get("to") or ""
  local to_name, to_detail = nil, ""
  if to == "" then
    ui.toast("Choose who to send money to")
    ok = false
  elseif to == "new" then
    local name = trim(locals.get("new_name"))
    local acct = typed_account("new_account")
    if #name < 2 then err.new_name = "Enter the recipient's name"; ok = false end
    if not valid_account(acct) then err.new_account = "Account numbers have 8–12 digits"; ok = false end
    to_name, to_detail = name, "•••• " .. acct:sub(-4)
  else
    for _, t in ipairs(targets_from(locals.get("from") or "chk")) do
      if t.key == to then to_name, to_detail = t.name, t.detail end
    end
    if not to_name then ui.toast("Choose who to send money to"); ok = false end
  end
  local amount = parse_amount(locals.get("amount"))
  if not amount or amount <= 0 then
    err.amount = "Enter an amount greater than $0"
    ok = false
  elseif amount > (tonumber(a.balance) or 0) then
    err.amount = "Amount is more than your available balance (" .. a.balance_text .. ")"
    ok = false
  elseif amount > 10000 then
    err.amount = "Transfers are limited to $10,000 a day"
    ok = false
  end
  locals.set("err", err)
  if not ok then return end
  ui.dialog{
    title = "Send " .. money(amount) .. "?",
    text = "From " .. a.name .. " (" .. a.number .. ")\nTo " .. to_name .. " (" .. to_detail .. ")" ..
      (trim(locals.get("memo")) ~= "" and ("\nMemo: " .. trim(locals.get("memo"))) or ""),
    buttons = {
      { text = "Cancel" },
      { text = "Send", handler = "transfer_confirmed", args = { from = from, to = to, amount = amount, name = to_name } },
    },
  }
end

function transfer_confirmed(ev)
  local args = ev.args or {}
  local a = account(args.from)
  local amount = tonumber(args.amount)
  if not a or not amount or amount <= 0 or amount > (tonumber(a.balance) or 0) then
    ui.toast("Transfer failed: check the amount")
    return
  end
  local memo = trim(locals.get("memo"))
  local txs = state.get("transactions") or {}
  -- Each side of the transfer: first in its account's statement, the balance moved by `amount`.
  local function book(acc, who, icon, amount)
    txs[acc.id] = txs[acc.id] or {}
    table.insert(txs[acc.id], 1, new_tx(who, "Transfer", icon, amount, clock.today(), memo))
    set_balance(acc.id, (tonumber(acc.balance) or 0) + amount)
  end
  book(a, "To " .. tostring(args.name), "north_east", -amount)
  local target = tostring(args.to or ""):match("^acct:(%a+)$")
  local b = target and account(target)
  if b then book(b, "From " .. a.name, "south_west", amount) end
  state.set("transactions", txs)
  if args.to == "new" and locals.get("save_payee") then
    add_payee(trim(locals.get("new_name")), "Other bank", typed_account("new_account"))
  end
  ui.toast("Sent " .. money(amount) .. " to " .. tostring(args.name))
  nav.pop()
end

-- ---------------------------------------------------------------- payees

function pay_payee(ev) orders.open_row(ev, "transfer", "id", "payee") end

function delete_payee(ev)
  local p = ev.item
  if type(p) ~= "table" then return end
  orders.confirm("Delete " .. (p.name or "payee") .. "?", "You can add them again later.", "Delete", "delete_payee_confirmed", { id = p.id })
end

function delete_payee_confirmed(ev)
  local p, i = lib.lists.find(state.get("payees"), "id", ev.args and ev.args.id)
  if not p then return end
  orders.remove("payees", i, "Payee deleted", "restore_payee", { payee = p, pos = i })
end

function restore_payee(ev) orders.undo_remove(ev.args, "payee", "payees", "id") end

function open_add_payee(ev) nav.push("add_payee") end

function add_payee_enter(ev)
  if not require_signin() then return end
  if locals.get("err") == nil then locals.set("err", {}) end
end

function cancel_add_payee(ev) nav.pop() end

function save_payee(ev)
  local name, bank = trim(locals.get("name")), trim(locals.get("bank"))
  local acct, confirm = typed_account("account"), typed_account("confirm")
  local err, ok = {}, true
  if #name < 2 then err.name = "Enter a name"; ok = false end
  if #bank < 2 then err.bank = "Enter the bank name"; ok = false end
  if not valid_account(acct) then err.account = "Use 8–12 digits"; ok = false end
  if ok and confirm ~= acct then err.confirm = "Account numbers don't match"; ok = false end
  if ok then
    for _, p in ipairs(state.get("payees") or {}) do
      if p.account == acct then err.account = "You already have this payee (" .. p.name .. ")"; ok = false end
    end
  end
  locals.set("err", err)
  if not ok then return end
  add_payee(name, bank, acct)
  ui.toast("Payee added")
  nav.pop()
end

-- ---------------------------------------------------------------- cards

function freeze_changed(ev)
  local c = ev.item
  if type(c) ~= "table" then return end
  if ev.value then
    ui.toast((c.name or "Card") .. " frozen")
  else
    ui.toast((c.name or "Card") .. " unfrozen")
  end
end

function limit_changed(ev)
  local c = ev.item
  if type(c) ~= "table" then return end
  -- the switch / slider already wrote the value; nothing else to store
end
