//! Well-defined no-ops: an action that cannot apply changes nothing, returns `ok == false`
//! with a note saying why, and the phone keeps working afterwards.

mod common;

use common::*;
use phoneworld_data::{Action, Key};
use phoneworld_tests::Harness;
use serde_json::Value;

/// Applies `action`, asserts it was a no-op whose note contains `why`, and that nothing the
/// user can see or the apps keep changed.
fn assert_noop(h: &mut Harness, action: Action, why: &str) {
    let apps_before = h.device.store().apps.clone();
    let system_before = h.device.store().system.clone();
    let foreground_before = h.device.foreground();
    let tasks_before = h.device.store().session.tasks.clone();
    let r = h.act(action.clone()).clone();
    assert!(!r.ok, "{action:?} should be a no-op");
    let note = r.note.clone().unwrap_or_default();
    assert!(note.contains(why), "{action:?}: note {note:?} does not say {why:?}");
    assert_eq!(h.device.store().apps, apps_before, "{action:?} changed app data");
    assert_eq!(h.device.store().system, system_before, "{action:?} changed system settings");
    assert_eq!(h.device.foreground(), foreground_before, "{action:?} moved the phone");
    assert_eq!(h.device.store().session.tasks, tasks_before, "{action:?} changed the back stacks");
}

/// The phone still does what a user asks.
fn still_works(h: &mut Harness) {
    h.key(Key::Home);
    // Start Settings afresh (it may have been left on another screen).
    h.device.step(&Action::CloseApp { app: "Settings".into() });
    h.open("Settings");
    h.tap("Display");
    assert_eq!(screen(h), "display");
    h.tap("Dark theme");
    assert_eq!(h.system("dark_theme"), Value::Bool(true));
}

#[test]
fn tap_outside_the_screen() {
    let mut h = Harness::new(2);
    h.open("Settings");
    for (x, y) in [(-5.0, 100.0), (1080.0, 100.0), (500.0, 2400.0), (500.0, -1.0), (5000.0, 5000.0)] {
        assert_noop(&mut h, Action::Tap { x, y }, "outside the screen");
    }
    assert_noop(&mut h, Action::LongPress { x: -1.0, y: 10.0, ms: 800 }, "outside the screen");
    assert_noop(&mut h, Action::Swipe { x1: 2000.0, y1: 10.0, x2: 0.0, y2: 10.0, ms: 300 }, "outside the screen");
    assert_noop(&mut h, Action::Drag { x1: 500.0, y1: 9999.0, x2: 0.0, y2: 0.0, ms: 800 }, "outside the screen");
    still_works(&mut h);
}

#[test]
fn tap_on_nothing() {
    let mut h = Harness::new(2);
    h.open("Settings");
    h.tap("Display");
    // The "Brightness 60%" caption is plain text.
    let caption = h.expect("Brightness 60%");
    let (x, y) = center(&caption);
    assert_noop(&mut h, Action::Tap { x, y }, "nothing to tap");
    assert_noop(&mut h, Action::LongPress { x, y, ms: 800 }, "nothing to long-press");
    still_works(&mut h);
}

#[test]
fn unknown_key_fails_to_parse() {
    let err = Action::from_json(r#"{"type":"key","key":"volume_up"}"#).unwrap_err().to_string();
    assert!(err.contains("volume_up"), "the error names the bad value: {err}");
    let err = Action::from_json(r#"{"type":"teleport","x":1,"y":2}"#).unwrap_err().to_string();
    assert!(err.contains("teleport"), "{err}");
    let err = Action::from_json(r#"{"type":"tap","x":1,"y":2,"z":3}"#).unwrap_err().to_string();
    assert!(err.contains('z'), "unknown fields are refused: {err}");
    // A known key with nothing to do is a no-op step.
    let mut h = Harness::new(2);
    h.open("Settings");
    assert_noop(&mut h, Action::Key { key: Key::Menu }, "no menu key");
    still_works(&mut h);
}

#[test]
fn back_on_the_home_screen() {
    let mut h = Harness::new(2);
    assert_noop(&mut h, Action::Key { key: Key::Back }, "already on the home screen");
    still_works(&mut h);
}

#[test]
fn typing_with_no_focused_field() {
    let mut h = Harness::new(2);
    assert_noop(&mut h, Action::TypeText { text: "hello".into(), clear: false }, "no text field has focus");
    h.open("Clock");
    h.tap("Add alarm");
    assert_noop(&mut h, Action::TypeText { text: "hello".into(), clear: true }, "no text field has focus");
    assert_noop(&mut h, Action::Key { key: Key::Enter }, "no text field has focus");
    assert_noop(&mut h, Action::Key { key: Key::Delete }, "no text field has focus");
    // Focus, then lose it with back: typing is a no-op again.
    tap_id(&mut h, "label");
    h.type_text("ok");
    h.key(Key::Back);
    assert_noop(&mut h, Action::TypeText { text: "more".into(), clear: false }, "no text field has focus");
    h.tap("Save");
    assert!(h.app_state(CLOCK)["alarms"].as_array().unwrap().iter().any(|a| a["label"] == "ok"));
    still_works(&mut h);
}

#[test]
fn opening_an_app_that_is_not_installed() {
    let mut h = Harness::new(2);
    assert_noop(&mut h, Action::OpenApp { app: "Camera".into() }, "no installed app `Camera`");
    h.open("Clock");
    assert_noop(&mut h, Action::OpenApp { app: "com.example.nothing".into() }, "no installed app");
    still_works(&mut h);
}

#[test]
fn closing_an_app_that_is_not_running() {
    let mut h = Harness::new(2);
    assert_noop(&mut h, Action::CloseApp { app: "Clock".into() }, "com.phoneworld.clock is not running");
    assert_noop(&mut h, Action::CloseApp { app: "Camera".into() }, "no installed app `Camera`");
    // Once running, closing it works; closing it again is a no-op.
    h.open("Clock");
    let r = h.act(Action::CloseApp { app: "Clock".into() }).clone();
    assert!(r.ok, "{:?}", r.note);
    assert_eq!(h.device.foreground().0, "com.phoneworld.launcher");
    assert_noop(&mut h, Action::CloseApp { app: "Clock".into() }, "is not running");
    still_works(&mut h);
}

#[test]
fn scrolling_what_does_not_scroll() {
    let mut h = Harness::new(2);
    h.open("Settings");
    h.tap("Network & internet");
    // Five networks fit on screen.
    let list = h.expect("Library Guest");
    let (x, y) = center(&list);
    assert_noop(&mut h, Action::Swipe { x1: x, y1: y, x2: x, y2: y - 400.0, ms: 300 }, "nothing to scroll");
    // The launcher has a single page.
    h.key(Key::Home);
    assert_noop(&mut h, Action::Swipe { x1: 900.0, y1: 1200.0, x2: 100.0, y2: 1200.0, ms: 300 }, "no other launcher page");
    still_works(&mut h);
}

#[test]
fn dialog_is_modal() {
    // While a dialog is up, the screen under it cannot be operated: a tap there dismisses
    // the dialog and does nothing else.
    let mut h = Harness::new(2);
    h.open("Settings");
    h.tap("Network & internet");
    h.tap("Airplane mode");
    let before = h.device.store().system.clone();
    h.tap_at(540.0, 330.0); // where the Wi-Fi switch is, under the scrim
    assert_eq!(h.device.store().system, before, "the Wi-Fi switch under the dialog was not toggled");
    assert!(h.find("Turn on airplane mode?").is_none());
    still_works(&mut h);
}
