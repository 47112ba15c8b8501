-- Settings: handlers. Lua keeps nothing between events; all data lives in state / locals / system.

local find_by = lib.lists.find
local contains = lib.lists.contains
local trim = lib.text.trim

local function start_scan()
  locals.set("scan_until", clock.now() + 2500)
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

function network_enter(ev)
  if system.get("wifi") then start_scan() end
end

function rescan(ev)
  if system.get("wifi") then
    start_scan()
  end
end

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
    ui.dialog{
      title = "Turn on airplane mode?",
      text = "Wi-Fi, Bluetooth and mobile data will be turned off.",
      buttons = {
        { text = "Cancel" },
        { text = "Turn on", handler = "airplane_confirmed" },
      },
    }
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

function network_tap(ev)
  local net = ev.item
  if type(net) ~= "table" or not net.ssid then return end
  if net.ssid == state.get("connected_network") then
    ui.dialog{
      title = net.ssid,
      text = "Connected · Signal " .. tostring(net.signal or ""),
      buttons = {
        { text = "Close" },
        { text = "Disconnect", handler = "disconnect_network", args = { ssid = net.ssid } },
      },
    }
    return
  end
  if net.secured and not contains(state.get("saved_networks"), net.ssid) then
    nav.push("wifi_password", { ssid = net.ssid })
  else
    connect(net.ssid)
  end
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
  if net and net.secured and not contains(state.get("saved_networks"), ssid) then
    nav.push("wifi_password", { ssid = ssid })
  else
    connect(ssid)
  end
end

function disconnect_network(ev)
  state.set("connected_network", "")
  ui.toast("Disconnected")
end

function forget_network(ev)
  local ssid = ev.args and ev.args.ssid
  if not ssid then return end
  local saved = state.get("saved_networks") or {}
  for i = #saved, 1, -1 do
    if saved[i] == ssid then state.remove("saved_networks", i) end
  end
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

function device_tap(ev)
  local dev = ev.item
  if type(dev) ~= "table" or not dev.name then return end
  if state.get("bt_connected") == dev.name then
    state.set("bt_connected", "")
    ui.toast("Disconnected from " .. dev.name)
  else
    state.set("bt_connected", dev.name)
    ui.toast("Connected to " .. dev.name)
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
  if not name then return end
  state.set("bt_connected", name)
  ui.toast("Connected to " .. name)
end

function device_disconnect(ev)
  state.set("bt_connected", "")
  ui.toast("Disconnected")
end

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

local TIMEOUTS = { "15 seconds", "30 seconds", "1 minute", "2 minutes", "5 minutes", "10 minutes" }

function choose_timeout(ev)
  local current = state.get("screen_timeout")
  local options = {}
  for _, t in ipairs(TIMEOUTS) do
    table.insert(options, {
      text = t,
      icon = (t == current) and "radio_button_checked" or "radio_button_unchecked",
      handler = "set_timeout",
      args = { value = t },
    })
  end
  ui.sheet{ title = "Screen timeout", options = options }
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
  local current = system.get("ringtone")
  local options = {}
  for _, name in ipairs(content.get("ringtones") or {}) do
    table.insert(options, {
      text = name,
      icon = (name == current) and "radio_button_checked" or "radio_button_unchecked",
      handler = "set_ringtone",
      args = { name = name },
    })
  end
  ui.sheet{ title = "Phone ringtone", options = options }
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

function save_device_name(ev)
  local name = trim(locals.get("name"))
  if name == "" then
    locals.set("error", "Enter a device name")
    return
  end
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
  ui.dialog{
    title = "Rename device?",
    text = "Other devices will see your phone as \"" .. name .. "\".",
    buttons = {
      { text = "Cancel" },
      { text = "Rename", handler = "rename_confirmed", args = { name = name } },
    },
  }
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
  local text = trim(locals.get("text"))
  if text == "" then
    locals.set("error", "Write something first")
    return
  end
  state.insert("feedback", { text = text, logs = locals.get("include_logs") == true, at = clock.now() })
  locals.set("text", "")
  locals.set("error", "")
  ui.toast("Thanks for your feedback")
  nav.pop()
end
