//! Seeded interruptions: one screen per kind (heads-up banner, permission dialog, review card,
//! update sheet, low-battery alert), what each button, Back and a tap outside do, and that
//! they are phone state like any other: deterministic, snapshotted and restored.

use phoneworld_data::{Action, Key};
use phoneworld_phone::interruptions::{Planned, Shown};
use phoneworld_phone::{Device, InterruptionKind, InterruptionSetting};
use phoneworld_tests::{assert_screen, catalog, Harness};

/// `app` in front, then `kind` arrives after the next action (a wait).
fn interrupted(app: &str, kind: InterruptionKind) -> Harness {
    let mut h = Harness::new(3);
    h.open(app);
    h.device.schedule_interruptions(&[Planned { step: 1, kind, variant: 7 }]);
    h.act(Action::Wait { ms: 500 });
    h
}

fn shown(h: &Harness) -> Option<Shown> {
    h.device.store().session.interruptions.shown.clone()
}

fn last_choice(h: &Harness) -> String {
    h.device.store().session.interruptions.log.last().map(|l| l.choice.clone()).unwrap_or_default()
}

#[test]
fn a_heads_up_banner_from_another_app_then_the_shade_keeps_it() {
    let mut h = interrupted("Clock", InterruptionKind::Notification);
    assert_screen!(h, "interruption_heads_up");
    let banner = h.expect("heads_up");
    assert_eq!(banner.is_clickable, Some(true));
    let n = h.device.store().session.notifications.last().cloned().expect("posted");
    assert_ne!(n.app, "com.phoneworld.clock", "a notification comes from another app");
    // The banner is not modal: the clock stays usable, and swiping the banner up puts it away.
    let b = banner.bbox_pixels.unwrap();
    let (x, y) = ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0);
    let r = h.act(Action::Swipe { x1: x, y1: y, x2: x, y2: y - 300.0, ms: 200 }).clone();
    assert!(r.ok, "{:?}", r.note);
    assert!(h.find("heads_up").is_none());
    assert_eq!(last_choice(&h), "swiped");
    assert_eq!(h.device.store().session.notifications.last(), Some(&n), "still in the shade");
}

#[test]
fn a_heads_up_banner_goes_away_by_itself() {
    let mut h = interrupted("Clock", InterruptionKind::Notification);
    for _ in 0..12 {
        h.act(Action::Wait { ms: 500 });
    }
    assert!(h.find("heads_up").is_none());
    assert!(h.device.store().session.interruptions.heads_up.is_none());
}

#[test]
fn the_location_permission_dialog_of_maps() {
    let mut h = interrupted("Maps", InterruptionKind::Permission);
    assert_screen!(h, "interruption_permission");
    h.expect("Allow Maps to access this device's location?");
    // Modal: the map beneath is out of the tree, a tap outside is ignored, typing too.
    assert!(h.elements().iter().all(|e| e.package_name.as_deref() != Some("com.phoneworld.maps")));
    let r = h.act(Action::Tap { x: 540.0, y: 300.0 }).clone();
    assert!(!r.ok && shown(&h).is_some(), "{:?}", r.note);
    let r = h.act(Action::TypeText { text: "x".into(), clear: false }).clone();
    assert_eq!(r.note.as_deref(), Some("a dialog covers the screen: answer it first"));
    h.tap("While using the app");
    assert!(shown(&h).is_none());
    let grants = &h.device.store().session.interruptions.permissions;
    assert_eq!(grants.get("com.phoneworld.maps/location").map(String::as_str), Some("while_using"));
    // Asked once: the same app never asks again.
    h.device.schedule_interruptions(&[Planned { step: 1, kind: InterruptionKind::Permission, variant: 0 }]);
    h.act(Action::Wait { ms: 500 });
    assert!(shown(&h).is_none());
}

#[test]
fn back_denies_a_permission_request() {
    let mut h = interrupted("Notes", InterruptionKind::Permission);
    h.expect("Allow Notes to send you notifications?");
    h.key(Key::Back);
    assert!(shown(&h).is_none());
    assert_eq!(h.device.foreground().0, "com.phoneworld.notes", "Back closed the dialog, not the app");
    let grants = &h.device.store().session.interruptions.permissions;
    assert_eq!(grants.get("com.phoneworld.notes/notifications").map(String::as_str), Some("denied"));
}

#[test]
fn the_rate_this_app_card() {
    let mut h = interrupted("Weather", InterruptionKind::RateApp);
    assert_screen!(h, "interruption_rate_app");
    h.expect("Enjoying Weather?");
    h.tap("Rate 4 stars");
    assert_eq!(last_choice(&h), "rated_4");
    h.expect("Thanks for your feedback!");
}

#[test]
fn the_app_update_sheet_closes_on_not_now_or_a_tap_outside() {
    let mut h = interrupted("Calendar", InterruptionKind::AppUpdate);
    assert_screen!(h, "interruption_app_update");
    h.expect("Update available");
    h.tap("Not now");
    assert_eq!(last_choice(&h), "not_now");
    let mut h = interrupted("Calendar", InterruptionKind::AppUpdate);
    h.tap_at(540.0, 400.0);
    assert!(shown(&h).is_none());
    assert_eq!(last_choice(&h), "outside");
}

#[test]
fn the_low_battery_dialog_and_battery_saver() {
    let mut h = interrupted("Settings", InterruptionKind::LowBattery);
    assert_screen!(h, "interruption_low_battery");
    h.expect("15% remaining");
    h.expect("Battery 15 percent");
    h.tap("Battery Saver");
    assert!(shown(&h).is_none());
    h.expect("Battery Saver on");
    assert!(h.device.store().session.interruptions.battery_saver);
    assert_eq!(h.system("battery_saver"), serde_json::Value::Null, "no system setting (app data) changes");
}

#[test]
fn an_app_prompt_waits_for_an_app_and_leaves_with_it() {
    let mut h = Harness::new(1);
    h.device.schedule_interruptions(&[Planned { step: 1, kind: InterruptionKind::RateApp, variant: 0 }]);
    h.act(Action::Wait { ms: 500 });
    assert!(shown(&h).is_none(), "the launcher asks nothing");
    h.open("Clock");
    assert_eq!(shown(&h), Some(Shown::RateApp { app: "com.phoneworld.clock".into() }));
    h.key(Key::Home);
    assert!(shown(&h).is_none());
    assert_eq!(last_choice(&h), "left_app");
}

/// Seeded steps: the same seed twice gives the same frames, through an interruption.
#[test]
fn same_seed_same_frames_through_interruptions() {
    let setting = InterruptionSetting::parse("notification@1,low_battery@2,permission@4").unwrap();
    let run = || {
        let mut device = Device::new(catalog(), phoneworld_phone::DeviceConfig { seed: 11, ..Default::default() }).unwrap();
        device.schedule_interruptions(&setting.plan(11, 20));
        let actions = [
            Action::OpenApp { app: "Maps".into() },
            Action::Wait { ms: 500 },
            Action::Key { key: Key::Back },
            Action::Wait { ms: 500 },
            Action::Tap { x: 540.0, y: 1200.0 },
        ];
        actions.iter().map(|a| (device.step(a).ok, device.frame_hash())).collect::<Vec<_>>()
    };
    let first = run();
    assert_eq!(first, run());
    let oks: Vec<bool> = first.iter().map(|(ok, _)| *ok).collect();
    // The tap lands on the permission dialog that arrived after step 4, off its buttons.
    assert_eq!(oks, [true, true, true, true, false], "{first:?}");
    let distinct: std::collections::BTreeSet<&String> = first[..4].iter().map(|(_, f)| f).collect();
    assert_eq!(distinct.len(), 4, "banner, low battery, its dismissal and the permission dialog: {first:?}");
    assert_eq!(first[3].1, first[4].1, "the blocked tap changed nothing");
}

/// A snapshot taken while a dialog shows restores it, and the episode continues identically.
#[test]
fn snapshot_and_restore_in_the_middle_of_an_interruption() {
    let mut h = interrupted("Maps", InterruptionKind::Permission);
    h.device.schedule_interruptions(&[Planned { step: 2, kind: InterruptionKind::Notification, variant: 3 }]);
    let bytes = h.device.snapshot();
    let mut restored = Device::restore(catalog(), &bytes, Default::default()).unwrap();
    assert_eq!(restored.frame_hash(), h.device.frame_hash());
    assert_eq!(restored.shown_interruption(), h.device.shown_interruption());
    let deny = h.expect("Don't allow");
    let b = deny.bbox_pixels.unwrap();
    let rest =
        [Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 }, Action::Wait { ms: 500 }, Action::Wait { ms: 500 }];
    for action in &rest {
        h.device.step(action);
        restored.step(action);
        assert_eq!(restored.frame_hash(), h.device.frame_hash(), "after {action:?}");
        assert_eq!(restored.state_hash(), h.device.state_hash());
    }
    assert!(h.find("heads_up").is_some(), "the pending notification arrived in both");
}

/// Version 3 snapshots carry interruptions; version 2 ones (from before) still restore.
#[test]
fn snapshots_of_the_previous_version_restore_and_older_ones_are_named() {
    let mut h = Harness::new(2);
    h.open("Clock");
    let mut bytes = h.device.snapshot();
    assert_eq!(&bytes[8..12], &3u32.to_le_bytes());
    bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
    let mut old = Device::restore(catalog(), &bytes, Default::default()).expect("a version 2 snapshot restores");
    assert_eq!(old.frame_hash(), h.device.frame_hash());
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    let err = Device::restore(catalog(), &bytes, Default::default()).unwrap_err().to_string();
    assert!(err.contains("format version 1 at offset 8; this build reads versions 2 to 3"), "{err}");
}
