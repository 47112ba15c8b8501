//! A screen's view function derives what the screen shows from the data whenever it is drawn
//! after what it read changed; handlers only change data, and the store holds no presentation.

use phoneworld_data::Action;
use phoneworld_tests::{Harness, ScratchApp};
use serde_json::json;

const LUA: &str = r#"
function add(ev) state.insert("items", { name = "item " .. (#(state.get("items") or {}) + 1), done = false }) end
function tally_view(ev)
  local open = 0
  for _, it in ipairs(state.get("items") or {}) do if not it.done then open = open + 1 end end
  return { title = lib.text.plural(open, "open item"), rows = state.get("items") }
end
function greedy_view(ev) state.set("seen", true); return { title = "never shown" } end
function broken_view(ev) return { title = nil .. "x" } end
"#;

fn harness(view: &str) -> Harness {
    let screen = format!(
        r#"Screen(view: "{view}", root: Column(children: [
            Text(id: "title", text: "{{vm.title}}"),
            Button(text: "Add", on_tap: "add"),
            List(id: "rows", items: "{{vm.rows}}", row: Text(text: "{{item.name}}")),
        ]))"#
    );
    let app = ScratchApp::new(
        &format!("views-{view}"),
        &[
            (
                "app.ron",
                r#"App(package: "t.views", label: "Views", icon: "list", entry: "main", scripts: ["main.lua"], state: {"items": [{"name": "milk", "done": true}]})"#,
            ),
            ("main.lua", LUA),
            ("screens/main.ron", &screen),
        ],
    );
    let mut h = Harness::with_apps(std::slice::from_ref(&app.dir));
    h.device.open_screen("t.views", "main", json!({})).unwrap();
    h
}

#[test]
fn a_view_shows_what_it_derives_and_follows_the_data_a_handler_changes() {
    let mut h = harness("tally_view");
    assert!(h.find("0 open items").is_some(), "{}", h.device.ui_tree_text());
    assert!(h.find("milk").is_some());
    h.tap("Add");
    assert!(h.find("1 open item").is_some(), "{}", h.device.ui_tree_text());
    assert!(h.find("item 2").is_some());
    // Only data is stored: the title and rows the view made are nowhere in the store.
    let store = h.device.state_json().to_string();
    assert!(!store.contains("open item"), "{store}");
    assert!(h.device.view_problems().is_empty(), "{:?}", h.device.view_problems());
}

#[test]
fn a_view_that_writes_or_fails_shows_nothing_and_says_why() {
    let mut h = harness("greedy_view");
    assert!(h.find("never shown").is_none());
    assert_eq!(h.app_state("t.views").get("seen"), None, "a view's writes are not kept");
    let problems = h.device.view_problems();
    assert!(problems.iter().any(|p| p.contains("view function `greedy_view` may only read")), "{problems:?}");
    // The screen still works: a handler changes data as before.
    h.tap("Add");
    assert_eq!(h.app_state("t.views")["items"].as_array().map(Vec::len), Some(2));

    let mut h = harness("broken_view");
    let problems = h.device.view_problems();
    assert!(problems.iter().any(|p| p.contains("main.lua:9") && p.contains("attempt to concatenate")), "{problems:?}");
    assert!(h.act(Action::Tap { x: 10.0, y: 10.0 }).step > 0);
}

/// A view's answer is kept while what it read stays the same: it must still follow the clock
/// as finely as it reads it, the field being typed and data an edit changes in place.
#[test]
fn a_kept_view_follows_the_clock_the_field_being_typed_and_the_data() {
    let lua = r#"
function clock_view(ev)
  return { minute = "minute " .. clock.minutes(), echo = "typed " .. (locals.get("q") or ""), note = "note " .. (state.get("note") or "") }
end
"#;
    let screen = r#"Screen(view: "clock_view", root: Column(children: [
        Text(id: "minute", text: "{vm.minute}"),
        TextField(id: "q", value: "local.q", hint: "Query"),
        Text(id: "echo", text: "{vm.echo}"),
        TextField(id: "note", value: "state.note", hint: "Note"),
        Text(id: "shown_note", text: "{vm.note}"),
    ]))"#;
    let app = ScratchApp::new(
        "views-kept",
        &[
            (
                "app.ron",
                r#"App(package: "t.kept", label: "Kept", icon: "list", entry: "main", scripts: ["main.lua"], state: {"note": ""})"#,
            ),
            ("main.lua", lua),
            ("screens/main.ron", screen),
        ],
    );
    let mut h = Harness::with_apps(std::slice::from_ref(&app.dir));
    h.device.open_screen("t.kept", "main", json!({})).unwrap();
    let minute = |h: &mut Harness| h.device.ui_elements().into_iter().find_map(|e| e.text.filter(|t| t.starts_with("minute ")));
    let first = minute(&mut h).expect("the minute is shown");
    h.act(Action::Wait { ms: 61_000 });
    let later = minute(&mut h).expect("the minute is shown");
    assert_ne!(first, later, "a view reading the clock shows the minute after a minute passed");

    h.tap("Query").type_text("abc");
    assert!(h.find("typed abc").is_some(), "{}", h.device.ui_tree_text());
    h.tap("Note").type_text("milk");
    assert!(h.find("note milk").is_some(), "data written in place by a field: {}", h.device.ui_tree_text());
}

#[test]
fn the_email_inbox_is_a_view_its_rows_are_not_stored() {
    let mut h = Harness::new(1);
    h.open("Email");
    assert!(h.find("Inbox").is_some(), "{}", h.device.ui_tree_text());
    assert!(h.elements().iter().any(|e| e.text.as_deref().is_some_and(|t| t.ends_with("unread"))), "the count line");
    let store = h.device.state_json();
    let screens = store["session"]["tasks"]["com.phoneworld.email"].to_string();
    assert!(!screens.contains("count_text") && !screens.contains("snippet"), "{screens}");
}
