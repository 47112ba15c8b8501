function add(ev)
  local count = state.get("count") + 1
  state.set("count", count)
  state.insert("history", "Added one at " .. os.date("%H:%M"), 1)
end

function confirm_reset(ev)
  ui.dialog{
    title = "Reset the tally?",
    text = "The count goes back to zero.",
    buttons = { { text = "Cancel" }, { text = "Reset", handler = "reset" } },
  }
end

function reset(ev)
  state.set("count", 0)
  ui.toast("Tally reset")
end
