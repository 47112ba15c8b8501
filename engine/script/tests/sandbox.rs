//! The sandbox stops runaway handlers with a located error and leaves the host usable.

use std::sync::Arc;

use phoneworld_script::{Effect, EventCtx, Program, ScriptHost, ScriptLimits};
use serde_json::{json, Value};

const APP: &str = "com.example.test";

fn ctx() -> EventCtx {
    EventCtx {
        state: json!({"count": 1, "items": [1, 2]}),
        system: json!({"wifi": true}),
        content: Arc::new(json!({"name": "x"})),
        now_ms: 86_400_000 + 9 * 3_600_000,
        ..EventCtx::empty(APP)
    }
}

fn host() -> ScriptHost {
    ScriptHost::new(ScriptLimits { memory_bytes: 8 << 20, instructions_per_event: 2_000_000, ..ScriptLimits::default() }).unwrap()
}

const SOURCE: &str = r#"
function bump(ev)
  state.set("count", state.get("count") + ev.by)
  state.insert("items", 3)
  nav.push("detail", { id = 7 })
  ui.toast("bumped")
end

function spin(ev)
  local n = 0
  while true do n = n + 1 end
end

function hog(ev)
  local t = {}
  local i = 0
  while true do i = i + 1; t[i] = string.rep("x", 1024) .. i end
end

function sneaky(ev)
  while true do pcall(function() while true do end end) end
end

function leak(ev)
  counter = 1
end

function escape(ev)
  return io.open("/etc/passwd")
end

function time(ev)
  state.set("stamp", os.date("%Y-%m-%d %H:%M", os.time()))
  state.set("roll", math.random(1, 6))
end

function misspelled(ev)
  ui.dialog{ titel = "Delete?", buttons = { { text = "Delete", handler = "bump" } } }
end

function misspelled_choice(ev)
  ui.dialog{ title = "Delete?", buttons = { { text = "Delete", handlr = "bump" } } }
end

function position_zero(ev)
  state.set("count", state.get("items.0"))
end
"#;

fn program() -> Program {
    Program::from_sources(APP, &[("main.lua", SOURCE)]).unwrap()
}

#[test]
fn a_handler_changes_its_context_and_queues_effects() {
    let mut host = host();
    let out = host.call(&program(), "bump", &json!({"by": 2}), ctx()).unwrap();
    assert_eq!(out.state, json!({"count": 3, "items": [1, 2, 3]}));
    assert_eq!(out.effects[0], Effect::Push { screen: "detail".into(), params: json!({"id": 7}) });
    assert_eq!(out.effects[1], Effect::Toast { text: "bumped".into() });
}

fn assert_stopped(handler: &str, needle: &str, line: u32) {
    let mut host = host();
    let err = host.call(&program(), handler, &Value::Null, ctx()).unwrap_err();
    assert_eq!(err.app, APP);
    assert_eq!(err.file, "main.lua", "{err}");
    assert!(err.message.contains(needle), "{err}");
    assert_eq!(err.line, Some(line), "{err}");
    // The host keeps working after the failure.
    let out = host.call(&program(), "bump", &json!({"by": 1}), ctx()).unwrap();
    assert_eq!(out.state["count"], json!(2));
}

#[test]
fn an_endless_loop_is_stopped_with_its_line() {
    assert_stopped("spin", "instruction budget", 11);
}

#[test]
fn pcall_cannot_swallow_the_budget() {
    assert_stopped("sneaky", "instruction budget", 21);
}

#[test]
fn unbounded_allocation_is_stopped() {
    let mut host = host();
    let err = host.call(&program(), "hog", &Value::Null, ctx()).unwrap_err();
    assert!(err.message.contains("memory") || err.message.contains("instruction budget"), "{err}");
    assert!(host.call(&program(), "bump", &json!({"by": 1}), ctx()).is_ok());
}

#[test]
fn globals_and_io_are_refused() {
    assert_stopped("leak", "keep no state", 25);
    assert_stopped("escape", "io", 29);
}

#[test]
fn an_effect_field_the_effect_does_not_know_is_refused_with_its_line_and_the_field_meant() {
    assert_stopped("misspelled", "ui.dialog: unknown field `titel`: did you mean `title`? (it takes title, text, buttons)", 38);
    assert_stopped("misspelled_choice", "each of `buttons`: unknown field `handlr`: did you mean `handler`?", 42);
}

#[test]
fn a_path_counting_from_zero_is_refused_with_its_line_and_the_position_meant() {
    assert_stopped("position_zero", "`items.0`: list positions count from 1, so `0` names no element (the first is `items.1`)", 46);
}

#[test]
fn time_and_random_are_virtual_and_seeded() {
    let mut host = host();
    let a = host.call(&program(), "time", &Value::Null, ctx()).unwrap();
    let b = host.call(&program(), "time", &Value::Null, ctx()).unwrap();
    assert_eq!(a.state["stamp"], json!("1970-01-02 09:00"));
    assert_eq!(a.state["roll"], b.state["roll"]);
}

#[test]
fn syntax_errors_name_file_and_line() {
    let err = Program::from_sources(APP, &[("main.lua", "function f(\n  x = \nend")]).unwrap_err();
    assert_eq!(err.file, "main.lua");
    assert_eq!(err.line, Some(2), "{err}");
}

#[test]
fn bytecode_and_loaders_are_absent() {
    let src = "function f(ev) state.set('kinds', {type(load), type(dofile), type(require), type(string.dump), type(debug), type(io)}) end";
    let program = Program::from_sources(APP, &[("main.lua", src)]).unwrap();
    let out = host().call(&program, "f", &Value::Null, ctx()).unwrap();
    assert_eq!(out.state["kinds"], json!(["nil", "nil", "nil", "nil", "nil", "nil"]));
}
