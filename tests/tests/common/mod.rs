//! Small helpers shared by the integration tests: finding elements by resource id or content
//! description, and touching an element found some other way.
#![allow(dead_code)]

use phoneworld_data::{Action, UiElement};
use phoneworld_tests::Harness;

pub(crate) const CLOCK: &str = "com.phoneworld.clock";
pub(crate) const SETTINGS: &str = "com.phoneworld.settings";

pub(crate) fn center(e: &UiElement) -> (f64, f64) {
    let b = e.bbox_pixels.expect("pixel box");
    ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)
}

/// The first element matching `pred`, or a panic showing the screen.
pub(crate) fn expect_where(h: &mut Harness, what: &str, pred: impl Fn(&UiElement) -> bool) -> UiElement {
    match h.elements().into_iter().find(|e| pred(e)) {
        Some(e) => e,
        None => panic!("no element {what} on screen:\n{}", h.device.ui_tree_text()),
    }
}

/// The element whose resource id is `<package>:id/<id>`.
pub(crate) fn by_id(h: &mut Harness, id: &str) -> UiElement {
    let suffix = format!(":id/{id}");
    expect_where(h, &format!("#{id}"), |e| e.resource_id.as_deref().is_some_and(|r| r.ends_with(&suffix)))
}

/// The element whose content description is exactly `desc` (text is ignored).
pub(crate) fn by_desc(h: &mut Harness, desc: &str) -> UiElement {
    expect_where(h, &format!("desc={desc:?}"), |e| e.content_description.as_deref() == Some(desc))
}

pub(crate) fn tap_el(h: &mut Harness, e: &UiElement) {
    let (x, y) = center(e);
    let r = h.act(Action::Tap { x, y }).clone();
    assert!(r.ok, "tap on {:?}/{:?} did nothing: {:?}", e.text, e.content_description, r.note);
}

pub(crate) fn tap_id(h: &mut Harness, id: &str) {
    let e = by_id(h, id);
    tap_el(h, &e);
}

pub(crate) fn tap_desc(h: &mut Harness, desc: &str) {
    let e = by_desc(h, desc);
    tap_el(h, &e);
}

pub(crate) fn long_press_el(h: &mut Harness, e: &UiElement) {
    let (x, y) = center(e);
    let r = h.act(Action::LongPress { x, y, ms: 800 }).clone();
    assert!(r.ok, "long press on {:?}/{:?} did nothing: {:?}", e.text, e.content_description, r.note);
}

/// Swipes down from the status bar: the notification shade opens.
pub(crate) fn open_shade(h: &mut Harness) {
    let r = h.act(Action::Swipe { x1: 540.0, y1: 10.0, x2: 540.0, y2: 1500.0, ms: 300 }).clone();
    assert!(r.ok, "shade swipe: {:?}", r.note);
}

pub(crate) fn wait(h: &mut Harness, ms: u64) {
    h.act(Action::Wait { ms });
}

/// Clock: start the default 5 minute timer and wait until it posts its notification.
pub(crate) fn finish_timer(h: &mut Harness) {
    h.open("Clock");
    h.tap("Timer");
    h.tap("Start");
    wait(h, 301_000);
    assert_eq!(h.device.store().session.notifications.len(), 1, "the finished timer posts a notification");
}

pub(crate) fn screen(h: &Harness) -> String {
    h.device.foreground().1
}

pub(crate) fn on_screen(h: &mut Harness, label: &str) -> bool {
    h.find(label).is_some()
}
