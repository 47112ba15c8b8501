-- Handlers change the data; main_view derives what the screen shows from it.
local plural, hhmm = lib.text.plural, lib.dates.hhmm

function add(ev)
  state.set("count", state.get("count") + 1)
  state.insert("history", clock.minutes(), 1)
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
  state.set("history", {})
  ui.toast("Tally reset")
end

function main_view(ev)
  local rows = {}
  for _, minutes in ipairs(lib.store.list("history")) do
    table.insert(rows, "Added one at " .. hhmm(minutes))
  end
  return { rows = rows, summary = plural(#rows, "tap") .. " so far" }
end
