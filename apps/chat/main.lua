-- Chatly: chats, contacts, Moments feed, the mini-app container, profile and wallet.
-- Mini-apps reach Chatly only through the services its manifest declares (host.profile,
-- host.pay, host.share_to_chat), implemented at the end of this file.

local SELF = "com.phoneworld.chat"
local REPLIES = { "👍", "Sounds good!", "Haha 😄", "Got it, thanks!", "Let me check and get back to you", "Sure!" }

-- ---------------------------------------------------------------- helpers

local money = lib.money.format
local round2 = lib.money.round2
local trim = lib.text.trim
local orders = lib.orders
local function now_hhmm() return lib.dates.hhmm(clock.minutes()) end
local function now_stamp() return clock.today() .. " " .. now_hhmm() end

local function chats() return lib.store.list("chats") end
local function find_chat(id) return lib.lists.find(chats(), "id", id) end
local function mini_info(package) return lib.lists.find(content.get("mini_apps"), "package", package) end

-- Adds a message to the chat at position `i`.
local function post(i, from, text)
  state.insert("chats." .. i .. ".messages", { from = from, text = text, time = now_hhmm() })
end

local function chat_rows()
  local pinned, rest = {}, {}
  for _, c in ipairs(chats()) do
    local msgs = c.messages or {}
    local last = msgs[#msgs]
    local snippet = ""
    if type(last) == "table" then
      snippet = (last.from == "me" and "You: " or "") .. tostring(last.text or "")
    end
    local row = { id = c.id, name = c.name, snippet = snippet, time = last and last.time or "", unread = tonumber(c.unread) or 0 }
    if c.pinned then table.insert(pinned, row) else table.insert(rest, row) end
  end
  for _, r in ipairs(rest) do table.insert(pinned, r) end
  return pinned
end

local function recent_minis()
  local out = {}
  for _, pkg in ipairs(state.get("recent_minis") or {}) do
    local m = mini_info(pkg)
    if m then table.insert(out, m) end
  end
  return out
end

local function wallet_balance()
  return tonumber(state.get("wallet.balance")) or 0
end

-- Puts a wallet transaction first in the wallet's history, numbered and stamped now: the transaction.
local function record_tx(tx)
  tx.id = string.format("T%04d", #(state.get("wallet.transactions") or {}) + 1)
  tx.time = now_stamp()
  state.insert("wallet.transactions", tx, 1)
  return tx
end

-- A payment of Chatly's own (a transfer, a top up, a withdrawal).
local function add_wallet_tx(merchant, amount, note, kind)
  record_tx({ merchant = merchant, amount = round2(amount), note = note or "", app = SELF, kind = kind })
end

-- ---------------------------------------------------------------- home

function home_view(ev)
  local contacts = {}
  local list = state.get("contacts") or {}
  local sorted = {}
  for _, c in ipairs(list) do table.insert(sorted, c) end
  table.sort(sorted, function(a, b) return tostring(a.name) < tostring(b.name) end)
  local last = nil
  for _, c in ipairs(sorted) do
    local letter = string.upper(tostring(c.name):sub(1, 1))
    table.insert(contacts, { id = c.id, name = c.name, status = c.status, header = letter ~= last and letter or "" })
    last = letter
  end
  local recent = recent_minis()
  return {
    chat_rows = chat_rows(),
    contact_rows = contacts,
    recent_minis = recent,
    recent_count = #recent,
    balance_text = money(wallet_balance()),
  }
end

function home_enter(ev)
  if locals.get("tab") == nil then locals.set("tab", 0) end
end

function open_chat(ev) orders.open_row(ev, "thread") end

function chat_menu(ev)
  local row = ev.item
  if type(row) ~= "table" then return end
  local c = find_chat(row.id)
  if not c then return end
  ui.sheet{
    title = c.name,
    options = {
      { text = c.pinned and "Unpin" or "Pin to top", icon = "push_pin", handler = "toggle_pin", args = { id = c.id } },
      { text = "Mark as read", icon = "mark_chat_read", handler = "mark_read", args = { id = c.id } },
      { text = "Delete chat", icon = "delete", handler = "delete_chat", args = { id = c.id } },
    },
  }
end

-- Switches the true/false `field` of the entry `e` at position `i` (as find_chat and find_contact
-- give them) of the state list at `path`; nothing without an entry.
local function flip(path, field, e, i)
  if e then state.set(path .. "." .. i .. "." .. field, not e[field]) end
end

function toggle_pin(ev) flip("chats", "pinned", find_chat(ev.args and ev.args.id)) end

function mark_read(ev)
  local _, i = find_chat(ev.args and ev.args.id)
  if i then state.set("chats." .. i .. ".unread", 0) end
end

function delete_chat(ev)
  local c, i = find_chat(ev.args and ev.args.id)
  if not c then return end
  orders.remove("chats", i, "Chat deleted", "restore_chat", { chat = c, pos = i })
end

function restore_chat(ev) orders.undo_remove(ev.args, "chat", "chats", "id") end

function new_chat(ev)
  locals.set("tab", 1)
  ui.toast("Pick a contact to chat with")
end

function open_contact(ev) orders.open_row(ev, "contact") end

function open_feed(ev) nav.push("feed") end
function open_mini_apps(ev) nav.push("mini_apps") end
function open_wallet(ev) nav.push("wallet") end
function edit_profile(ev) nav.push("profile_edit") end
function go_back(ev) nav.pop() end

function scan(ev)
  ui.dialog{ title = "Scan", text = "Point your camera at a Chatly QR code. (The camera isn't available on this device.)", buttons = { { text = "OK" } } }
end

-- ---------------------------------------------------------------- thread

function thread_view(ev)
  local c = find_chat(ev.params and ev.params.id)
  if not c then return {} end
  local msgs = {}
  for _, m in ipairs(c.messages or {}) do
    local meta = tostring(m.time or "")
    if m.via then
      local info = mini_info(m.via)
      meta = meta .. " · via " .. (info and info.name or "mini-app")
    end
    if m.from ~= "me" and c.name ~= m.from then meta = tostring(m.from) .. " · " .. meta end
    table.insert(msgs, { from = m.from, text = m.text, meta = meta })
  end
  return { messages = msgs, name = c.name }
end

function thread_enter(ev)
  local id = ev.params and ev.params.id
  local c, i = find_chat(id)
  if not c then
    nav.pop()
    return
  end
  -- Which chat is open, for a reply arriving while it is.
  locals.set("chat", id)
  if (tonumber(c.unread) or 0) > 0 then state.set("chats." .. i .. ".unread", 0) end
  if locals.get("draft") == nil then locals.set("draft", "") end
end

function send_message(ev)
  local id = ev.params and ev.params.id
  local text = trim(locals.get("draft"))
  if text == "" then return end
  local c, i = find_chat(id)
  if not c then return end
  post(i, "me", text)
  locals.set("draft", "")
  -- One-to-one chats answer after a short while.
  for _, p in ipairs(state.get("contacts") or {}) do
    if p.chat == id then
      local n = (tonumber(state.get("next_msg")) or 1)
      state.set("next_msg", n + 1)
      timer.after(30000, "auto_reply", { id = id, text = REPLIES[(n % #REPLIES) + 1], from = p.name })
      break
    end
  end
end

function auto_reply(ev)
  local args = ev.args or {}
  local c, i = find_chat(args.id)
  if not c then return end
  post(i, args.from or c.name, args.text or "👍")
  if locals.get("chat") ~= args.id then
    state.set("chats." .. i .. ".unread", (tonumber(c.unread) or 0) + 1)
    if state.get("settings.notifications") ~= false then
      ui.notify{ title = c.name, text = args.text or "", icon = "chat", screen = "thread", params = { id = c.id } }
    end
  end
end

function message_menu(ev)
  local m = ev.item
  if type(m) ~= "table" then return end
  ui.sheet{ title = "Message", options = { { text = "Copy", icon = "content_copy", handler = "copy_message", args = { text = m.text } } } }
end

function copy_message(ev)
  clipboard.set(tostring(ev.args and ev.args.text or ""))
  ui.toast("Copied")
end

function thread_menu(ev)
  local id = ev.params and ev.params.id
  ui.sheet{
    title = (find_chat(id) or {}).name or "Chat",
    options = {
      { text = "Clear chat history", icon = "delete_sweep", handler = "clear_history", args = { id = id } },
      { text = "Open mini-apps", icon = "apps", handler = "open_mini_apps" },
    },
  }
end

function clear_history(ev)
  local _, i = find_chat(ev.args and ev.args.id)
  if i then state.set("chats." .. i .. ".messages", {}) end
end

function attach_menu(ev)
  local id = ev.params and ev.params.id
  ui.sheet{
    title = "Send",
    options = {
      { text = "Money from wallet ($5.00)", icon = "payments", handler = "send_money", args = { id = id, amount = 5 } },
      { text = "Money from wallet ($20.00)", icon = "payments", handler = "send_money", args = { id = id, amount = 20 } },
      { text = "Mini-app", icon = "apps", handler = "open_mini_apps" },
    },
  }
end

function send_money(ev)
  local args = ev.args or {}
  local c, i = find_chat(args.id)
  local amount = tonumber(args.amount) or 0
  if not c or amount <= 0 then return end
  if wallet_balance() < amount then
    ui.toast("Not enough balance: top up your wallet")
    return
  end
  state.set("wallet.balance", round2(wallet_balance() - amount))
  add_wallet_tx("Sent to " .. c.name, amount, "Transfer")
  post(i, "me", "💸 Sent " .. money(amount))
end

-- ---------------------------------------------------------------- contacts

local function find_contact(id) return lib.lists.find(state.get("contacts"), "id", id) end

function contact_enter(ev)
  if not find_contact(ev.params and ev.params.id) then nav.pop() end
end

function contact_view(ev)
  local p = find_contact(ev.params and ev.params.id)
  if not p then return {} end
  local posts = {}
  for _, post in ipairs(state.get("feed") or {}) do
    if post.author == p.name then table.insert(posts, post) end
  end
  return { c = p, posts = posts }
end

function toggle_star(ev) flip("contacts", "starred", find_contact(ev.params and ev.params.id)) end

local function chat_for(p, i)
  if p.chat and p.chat ~= "" and find_chat(p.chat) then return p.chat end
  local id = "c_" .. p.id
  state.insert("chats", { id = id, name = p.name, color = "#78909C", unread = 0, pinned = false, messages = {} }, 1)
  state.set("contacts." .. i .. ".chat", id)
  return id
end

function message_contact(ev)
  local p, i = find_contact(ev.params and ev.params.id)
  if not p then return end
  nav.push("thread", { id = chat_for(p, i) })
end

function call_contact(ev)
  local p = find_contact(ev.params and ev.params.id)
  if type(p) == "table" then ui.toast("Voice call with " .. p.name .. " – ringing…") end
end

-- Money goes through the chat too.
function transfer_contact(ev) message_contact(ev) end

-- ---------------------------------------------------------------- feed

local function find_post(id) return lib.lists.find(state.get("feed"), "id", id) end

function toggle_like(ev)
  local post, i = find_post(ev.item and ev.item.id)
  if not post then return end
  local liked = not post.liked
  state.set("feed." .. i .. ".liked", liked)
  state.set("feed." .. i .. ".likes", math.max(0, (tonumber(post.likes) or 0) + (liked and 1 or -1)))
end

function comment_post(ev)
  if type(ev.item) ~= "table" then return end
  locals.set("dialog", "comment")
  locals.set("dialog_post", ev.item.id)
  locals.set("dialog_text", "")
end

function new_post(ev)
  locals.set("dialog", "post")
  locals.set("dialog_text", "")
end

function dialog_cancel(ev)
  locals.set("dialog", "")
end

function dialog_confirm(ev)
  local text = trim(locals.get("dialog_text"))
  local mode = locals.get("dialog")
  if text == "" then
    ui.toast("Write something first")
    return
  end
  local me = state.get("profile.name") or "Me"
  if mode == "post" then
    state.insert("feed", { id = lib.lists.next_id(state.get("feed")), author = me, text = text, time = "Just now", likes = 0, liked = false, comments = {} }, 1)
  else
    local post, i = find_post(locals.get("dialog_post"))
    if post then state.insert("feed." .. i .. ".comments", { author = me, text = text }) end
  end
  locals.set("dialog", "")
  locals.set("dialog_text", "")
end

-- ---------------------------------------------------------------- mini-apps

function minis_view(ev)
  local q = string.lower(trim(locals.get("query")))
  local out = {}
  for _, m in ipairs(content.get("mini_apps") or {}) do
    local hay = string.lower(m.name .. " " .. m.desc .. " " .. m.category)
    if q == "" or hay:find(q, 1, true) then table.insert(out, m) end
  end
  return { results = out, recent = recent_minis() }
end

function minis_enter(ev)
  if locals.get("query") == nil then locals.set("query", "") end
end
function minis_clear(ev)
  locals.set("query", "")
end

function launch_mini(ev)
  local m = ev.item
  if type(m) ~= "table" or not m.package then return end
  lib.store.remember("recent_minis", m.package, 8)
  host.open(m.package)
end

function forget_mini(ev)
  local m = ev.item
  if type(m) ~= "table" then return end
  local list = state.get("recent_minis") or {}
  for i = #list, 1, -1 do
    if list[i] == m.package then state.remove("recent_minis", i) end
  end
end

-- ---------------------------------------------------------------- wallet

function wallet_view(ev)
  local out = {}
  for _, t in ipairs(state.get("wallet.transactions") or {}) do
    local credit = t.kind == "topup"
    local info = mini_info(t.app)
    table.insert(out, {
      merchant = t.merchant or "Payment",
      time = t.time or "",
      note = (t.note or "") .. ((info and t.note ~= "") and (" · " .. info.name) or (info and info.name or "")),
      amount_text = (credit and "+" or "−") .. money(t.amount),
      credit = credit,
      icon = credit and "south_west" or (info and info.icon or "north_east"),
    })
  end
  return { balance_text = money(wallet_balance()), txs = out }
end

function top_up(ev)
  local options = {}
  for _, amount in ipairs({ 20, 50, 100 }) do
    table.insert(options, { text = money(amount), icon = "add", handler = "top_up_amount", args = { amount = amount } })
  end
  ui.sheet{ title = "Top up from Bank ••4821", options = options }
end

function top_up_amount(ev)
  local amount = tonumber(ev.args and ev.args.amount) or 0
  if amount <= 0 then return end
  state.set("wallet.balance", round2(wallet_balance() + amount))
  add_wallet_tx("Top up from Bank ••4821", amount, "Top up", "topup")
  ui.toast("Added " .. money(amount) .. " to your wallet")
end

function withdraw(ev)
  local bal = wallet_balance()
  if bal <= 0 then
    ui.toast("Your balance is $0.00")
    return
  end
  ui.dialog{
    title = "Withdraw " .. money(bal) .. "?",
    text = "The full balance will be sent to Bank ••4821 within 1 business day.",
    buttons = { { text = "Cancel" }, { text = "Withdraw", handler = "withdraw_confirmed" } },
  }
end

function withdraw_confirmed(ev)
  local bal = wallet_balance()
  if bal <= 0 then return end
  state.set("wallet.balance", 0)
  add_wallet_tx("Withdrawal to Bank ••4821", bal, "Withdraw")
end

-- ---------------------------------------------------------------- profile

function profile_enter(ev) orders.load_form(state.get("profile"), { "name", "phone", "status" }) end

function save_profile(ev)
  local name, phone = trim(locals.get("name")), trim(locals.get("phone"))
  local err, ok = {}, true
  if #name < 2 then err.name = "Enter your name"; ok = false end
  local digits = phone:gsub("%D", "")
  if #digits < 7 or #digits > 15 or phone:find("[^%d%s%+%-%(%)]") then err.phone = "Enter a valid phone number"; ok = false end
  locals.set("err", err)
  if not ok then return end
  local initials = {}
  for w in name:gmatch("%S+") do
    if #initials < 2 then table.insert(initials, string.upper(w:sub(1, 1))) end
  end
  state.set("profile.name", name)
  state.set("profile.phone", phone)
  state.set("profile.status", trim(locals.get("status")))
  state.set("profile.avatar", table.concat(initials))
  ui.toast("Profile saved")
  nav.pop()
end

-- ---------------------------------------------------------------- share target

function receive_share(ev)
  local args = ev.args or {}
  local text = trim(tostring(args.text or ""))
  if text == "" then text = "Shared from " .. tostring(args.from or "an app") end
  nav.push("share_pick", { text = text })
end

function share_view(ev)
  return { chat_rows = chat_rows() }
end

function share_to(ev)
  local row = ev.item
  local text = ev.params and ev.params.text
  local c, i = find_chat(row and row.id)
  if not c or type(text) ~= "string" then return end
  post(i, "me", text)
  ui.toast("Sent to " .. c.name)
  nav.replace("thread", { id = c.id })
end

-- ---------------------------------------------------------------- services for mini-apps

-- host.pay, once the user confirms on the payment sheet: pay from the wallet. The mini-app
-- learns what this returns: whether it was paid, why not, and the transaction.
function pay_for_mini_app(ev)
  local args = ev.args or {}
  local amount = tonumber(args.amount)
  if not amount or amount <= 0 or amount ~= amount then
    return { paid = false, reason = "invalid amount" }
  end
  local balance = wallet_balance()
  if balance + 1e-9 < amount then
    ui.toast("Payment failed: insufficient balance")
    return { paid = false, reason = "insufficient balance" }
  end
  state.set("wallet.balance", round2(balance - amount))
  local tx = record_tx({ merchant = tostring(args.merchant or ""), amount = amount, note = tostring(args.note or ""), app = tostring(args.app or "") })
  return { paid = true, reason = "", transaction = tx }
end

-- host.share_to_chat, once the user picks a chat (`ev.args.chat`: its position in the list).
function send_for_mini_app(ev)
  local args = ev.args or {}
  local i = tonumber(args.chat)
  local c = i and (state.get("chats") or {})[i]
  if type(c) ~= "table" then return end
  local messages = c.messages or {}
  table.insert(messages, { from = "me", text = tostring(args.text or ""), time = now_hhmm(), via = tostring(args.app or "") })
  state.set("chats." .. i .. ".messages", messages)
  ui.toast("Sent to " .. tostring(c.name or "chat"))
end
