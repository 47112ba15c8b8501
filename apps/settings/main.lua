-- Settings: handlers. Lua keeps nothing between events; all data lives in state / locals / system.

local find_by = lib.lists.find
local contains = lib.lists.contains
local trim = lib.text.trim
local confirm = lib.orders.confirm

local function start_scan()
  locals.set("scan_until", clock.now() + 2500)
end

-- The network list scans while Wi-Fi is on.
local function scan_if_on()
  if system.get("wifi") then start_scan() end
end

-- ---------------------------------------------------------------- main list

function search_settings(ev)
  ui.toast("Search is not available")
end

function open_network(ev) nav.push("network") end
function open_bluetooth(ev) nav.push("bluetooth") end
function open_display(ev) nav.push("display") end
function open_sound(ev) nav.push("sound") end
function open_about(ev) nav.push("about") end
function open_feedback(ev) nav.push("feedback") end

function open_developer(ev)
  ui.toast("Developer options are on")
end

-- ---------------------------------------------------------------- network

function network_enter(ev) scan_if_on() end
function rescan(ev) scan_if_on() end

function wifi_changed(ev)
  if ev.value then
    start_scan()
  else
    state.set("connected_network", "")
  end
end

function airplane_changed(ev)
  if ev.value then
    -- Ask first; the switch stays off until confirmed.
    system.set("airplane_mode", false)
    confirm("Turn on airplane mode?", "Wi-Fi, Bluetooth and mobile data will be turned off.", "Turn on", "airplane_confirmed")
  else
    ui.toast("Airplane mode off")
  end
end

function airplane_confirmed(ev)
  system.set("airplane_mode", true)
  system.set("wifi", false)
  system.set("bluetooth", false)
  state.set("connected_network", "")
  ui.toast("Airplane mode on")
end

local function connect(ssid)
  state.set("connected_network", ssid)
  local saved = state.get("saved_networks") or {}
  if not contains(saved, ssid) then
    state.insert("saved_networks", ssid)
  end
  ui.toast("Connected to " .. ssid)
end

-- A secured network not saved yet asks for its password first.
local function join(ssid, secured)
  if secured and not contains(state.get("saved_networks"), ssid) then
    nav.push("wifi_password", { ssid = ssid })
  else
    connect(ssid)
  end
end

function network_tap(ev)
  local net = ev.item
  if type(net) ~= "table" or not net.ssid then return end
  if net.ssid == state.get("connected_network") then
    confirm(net.ssid, "Connected · Signal " .. tostring(net.signal or ""), "Disconnect", "disconnect_network",
      { ssid = net.ssid }, "Close")
    return
  end
  join(net.ssid, net.secured)
end

function network_menu(ev)
  local net = ev.item
  if type(net) ~= "table" or not net.ssid then return end
  local options = {
    { text = "Connect", icon = "wifi", handler = "connect_network", args = { ssid = net.ssid } },
  }
  if contains(state.get("saved_networks"), net.ssid) then
    table.insert(options, { text = "Forget", icon = "delete", handler = "forget_network", args = { ssid = net.ssid } })
  end
  ui.sheet{ title = net.ssid, options = options }
end

function connect_network(ev)
  local ssid = ev.args and ev.args.ssid
  if not ssid then return end
  local net = find_by(content.get("networks"), "ssid", ssid)
  join(ssid, net and net.secured)
end

function disconnect_network(ev)
  state.set("connected_network", "")
  ui.toast("Disconnected")
end

function forget_network(ev)
  local ssid = ev.args and ev.args.ssid
  if not ssid then return end
  lib.collections.remove_value("saved_networks", ssid)
  if state.get("connected_network") == ssid then
    state.set("connected_network", "")
  end
  ui.toast("Forgot " .. ssid)
end

-- ---------------------------------------------------------------- Wi-Fi password

function connect_with_password(ev)
  local params = ev.params or {}
  local ssid = params.ssid
  if not ssid then nav.pop() return end
  local password = locals.get("password") or ""
  if #password < 8 then
    locals.set("error", "Password must be at least 8 characters")
    return
  end
  local net = find_by(content.get("networks"), "ssid", ssid)
  if net and net.password ~= "" and net.password ~= password then
    locals.set("error", "Incorrect password")
    return
  end
  locals.set("error", "")
  if not system.get("wifi") then system.set("wifi", true) end
  connect(ssid)
  nav.pop()
end

function cancel_password(ev)
  nav.pop()
end

-- ---------------------------------------------------------------- Bluetooth

function bluetooth_changed(ev)
  if not ev.value then
    state.set("bt_connected", "")
  end
end

-- Connects the paired device `name` ("" disconnects), saying so in `toast`.
local function set_device(name, toast)
  state.set("bt_connected", name)
  ui.toast(toast)
end

function device_tap(ev)
  local dev = ev.item
  if type(dev) ~= "table" or not dev.name then return end
  if state.get("bt_connected") == dev.name then
    set_device("", "Disconnected from " .. dev.name)
  else
    set_device(dev.name, "Connected to " .. dev.name)
  end
end

function device_menu(ev)
  local dev = ev.item
  if type(dev) ~= "table" or not dev.name then return end
  local connected = state.get("bt_connected") == dev.name
  ui.sheet{
    title = dev.name,
    options = {
      connected
        and { text = "Disconnect", icon = "bluetooth_disabled", handler = "device_disconnect", args = { name = dev.name } }
        or { text = "Connect", icon = "bluetooth_connected", handler = "device_connect", args = { name = dev.name } },
      { text = "Rename", icon = "edit", handler = "device_rename" , args = { name = dev.name } },
    },
  }
end

function device_connect(ev)
  local name = ev.args and ev.args.name
  if name then set_device(name, "Connected to " .. name) end
end

function device_disconnect(ev) set_device("", "Disconnected") end

function device_rename(ev)
  ui.toast("Renaming paired devices is not supported")
end

function pair_new_device(ev)
  ui.snackbar{ text = "No new devices found nearby", action = "Retry", handler = "pair_new_device" }
end

-- ---------------------------------------------------------------- Display

function dark_theme_changed(ev)
  ui.toast(ev.value and "Dark theme on" or "Dark theme off")
end

function font_changed(ev)
  ui.toast("Font size changed")
end

-- A sheet to pick one of `values`, `current` checked; a pick runs `handler` with the value as
-- the arg `key`.
local function choice_sheet(title, values, current, handler, key)
  local options = {}
  for _, v in ipairs(values) do
    table.insert(options, {
      text = v,
      icon = (v == current) and "radio_button_checked" or "radio_button_unchecked",
      handler = handler,
      args = { [key] = v },
    })
  end
  ui.sheet{ title = title, options = options }
end

local TIMEOUTS = { "15 seconds", "30 seconds", "1 minute", "2 minutes", "5 minutes", "10 minutes" }

function choose_timeout(ev)
  choice_sheet("Screen timeout", TIMEOUTS, state.get("screen_timeout"), "set_timeout", "value")
end

function set_timeout(ev)
  local v = ev.args and ev.args.value
  if v then state.set("screen_timeout", v) end
end

function change_wallpaper(ev)
  ui.toast("Wallpaper picker is not available")
end

-- ---------------------------------------------------------------- Sound

function ring_volume_changed(ev)
  if ev.value == 0 then
    ui.toast("Ringer silenced")
  end
end

function mute_ringer(ev)
  state.set("ring_volume", 0)
  ui.snackbar{ text = "Ringer muted", action = "Undo", handler = "unmute_ringer" }
end

function unmute_ringer(ev)
  state.set("ring_volume", 70)
end

function toggle_dnd(ev)
  local on = not state.get("dnd")
  state.set("dnd", on)
  ui.toast(on and "Do Not Disturb on" or "Do Not Disturb off")
end

function choose_ringtone(ev)
  choice_sheet("Phone ringtone", content.get("ringtones") or {}, system.get("ringtone"), "set_ringtone", "name")
end

function set_ringtone(ev)
  local name = ev.args and ev.args.name
  if not name then return end
  system.set("ringtone", name)
  ui.toast("Ringtone set to " .. name)
end

-- ---------------------------------------------------------------- About phone

function about_enter(ev)
  if locals.get("name") == nil then
    locals.set("name", state.get("device_name") or "")
  end
end

function name_edited(ev)
  if locals.get("error") and locals.get("error") ~= "" then
    locals.set("error", "")
  end
end

function reset_device_name(ev)
  locals.set("name", state.get("device_name") or "")
  locals.set("error", "")
end

-- The text of the screen's field `key`, trimmed; nil, with `message` as the screen's error, when
-- it is blank.
local function filled(key, message)
  local text = trim(locals.get(key))
  if text == "" then
    locals.set("error", message)
    return nil
  end
  return text
end

function save_device_name(ev)
  local name = filled("name", "Enter a device name")
  if not name then return end
  if #name > 32 then
    locals.set("error", "Use at most 32 characters")
    return
  end
  if name == state.get("device_name") then
    locals.set("error", "")
    ui.toast("Name unchanged")
    return
  end
  locals.set("error", "")
  confirm("Rename device?", "Other devices will see your phone as \"" .. name .. "\".", "Rename", "rename_confirmed",
    { name = name })
end

function rename_confirmed(ev)
  local name = ev.args and ev.args.name
  if not name or name == "" then return end
  state.set("device_name", name)
  locals.set("name", name)
  ui.toast("Device name saved")
end

function copy_device_info(ev)
  local phone = content.get("phone") or {}
  clipboard.set((state.get("device_name") or "") .. ", " .. tostring(phone.model or "") ..
    ", Android " .. tostring(phone.android_version or "") .. ", build " .. tostring(phone.build_number or ""))
  ui.toast("Copied to clipboard")
end

function build_number_tap(ev)
  if state.get("developer_mode") then
    ui.toast("You are already a developer")
    return
  end
  local taps = (state.get("build_taps") or 0) + 1
  state.set("build_taps", taps)
  if taps >= 7 then
    state.set("developer_mode", true)
    ui.toast("You are now a developer!")
  elseif taps >= 3 then
    ui.toast("You are now " .. (7 - taps) .. " steps away from being a developer")
  end
end

-- ---------------------------------------------------------------- Feedback

function send_feedback(ev)
  local text = filled("text", "Write something first")
  if not text then return end
  state.insert("feedback", { text = text, logs = locals.get("include_logs") == true, at = clock.now() })
  locals.set("text", "")
  locals.set("error", "")
  ui.toast("Thanks for your feedback")
  nav.pop()
end
