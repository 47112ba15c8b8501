//! List rows kept from one compose to the next are the rows a fresh build makes: a row that
//! read the state is built again when that value changes, a toggled row when its item
//! changes, and the others are reused.

use phoneworld_tests::{Harness, ScratchApp};
use serde_json::json;

const SCREEN: &str = r#"Screen(root: Column(children: [
    Button(text: "Shout", on_tap: "shout"),
    List(id: "rows", items: "{state.items}", row: Row(children: [
        Text(text: "{state.loud ? item.loud : item.name}"),
        Switch(value: "item.on", on_change: "noop", content_desc: "{item.name} switch"),
    ])),
    List(id: "plain", items: "{state.items}", row: Text(text: "plain {item.name}")),
]))"#;

const APP: &str = r#"App(package: "t.rows", label: "Rows", icon: "list", entry: "main", scripts: ["main.lua"],
    state: {"loud": false, "items": [
        {"name": "milk", "loud": "MILK", "on": false},
        {"name": "eggs", "loud": "EGGS", "on": true},
        {"name": "tea", "loud": "TEA", "on": false},
    ]})"#;

const LUA: &str = r#"
function shout(ev) state.set("loud", not state.get("loud")) end
function noop(ev) end
"#;

/// The texts and checked states the screen shows.
fn shown(h: &mut Harness) -> Vec<(String, Option<bool>)> {
    h.elements()
        .into_iter()
        .map(|e| (format!("{}|{}", e.text.unwrap_or_default(), e.content_description.unwrap_or_default()), e.is_checked))
        .collect()
}

#[test]
fn kept_rows_follow_the_state_they_read_and_their_items() {
    let app = ScratchApp::new("kept-rows", &[("app.ron", APP), ("main.lua", LUA), ("screens/main.ron", SCREEN)]);
    let mut h = Harness::with_apps(std::slice::from_ref(&app.dir));
    h.device.open_screen("t.rows", "main", json!({})).unwrap();
    let mut fresh = Harness::with_apps(std::slice::from_ref(&app.dir));
    fresh.device.open_screen("t.rows", "main", json!({})).unwrap();
    assert!(h.find("milk").is_some() && h.find("plain tea").is_some());
    assert_eq!(h.device.kept_rows(), 6, "both lists' rows are kept");
    for step in ["eggs switch", "Shout", "milk switch", "Shout", "tea switch"] {
        h.tap(step);
        fresh.tap(step);
        fresh.device.clear_caches();
        assert_eq!(shown(&mut h), shown(&mut fresh), "after tapping {step}");
        assert_eq!(h.device.kept_rows(), 6, "after tapping {step}");
    }
    // The last Shout turned the rows quiet again; the toggles stuck.
    assert!(h.find("milk").is_some() && h.find("MILK").is_none());
    let checked = |h: &mut Harness, name: &str| h.find(&format!("{name} switch")).and_then(|e| e.is_checked);
    assert_eq!((checked(&mut h, "milk"), checked(&mut h, "eggs"), checked(&mut h, "tea")), (Some(true), Some(false), Some(true)));
    h.tap("Shout");
    assert!(h.find("MILK").is_some() && h.find("TEA").is_some(), "rows that read state.loud were built again");
}
