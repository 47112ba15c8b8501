//! A hostile app (`tests/fixtures/hostile`) and hostile actions against a whole phone: every
//! step returns, the clock never runs backwards, what a device holds stays bounded, and an app
//! that tries every known trick leaves every other app exactly as it would have been.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use phoneworld_data::{Action, MAX_ACTION_MS};
use phoneworld_phone::limits::{MAX_APP_DATA_BYTES, MAX_BACK_STACK, MAX_TIMERS_PER_STEP};
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig, StepResult};

const HOSTILE: &str = "com.phoneworld.test.hostile";

/// Settings, Clock and the hostile app.
fn catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    Arc::clone(CATALOG.get_or_init(|| {
        let root = project_root();
        let hostile = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile");
        Catalog::load(&[root.join("apps/settings"), root.join("apps/clock"), hostile], &[root.join("layouts")]).expect("apps load")
    }))
}

fn device() -> Device {
    Device::new(catalog(), DeviceConfig::default()).unwrap()
}

fn tap_label(device: &mut Device, label: &str) -> StepResult {
    let element =
        device.ui_elements().into_iter().find(|e| e.text.as_deref() == Some(label)).unwrap_or_else(|| panic!("no {label:?} on screen"));
    let b = element.bbox_pixels.expect("pixels");
    device.step(&Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 })
}

fn open_hostile() -> Device {
    let mut device = device();
    device.step(&Action::OpenApp { app: "Hostile".into() });
    device
}

fn errors(result: &StepResult) -> String {
    result.script_errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_timer_that_rearms_itself_cannot_hold_a_step() {
    let mut device = open_hostile();
    let mut clock = device.store().session.clock_ms;
    let first = tap_label(&mut device, "Storm");
    assert!(errors(&first).contains(&format!("more than {MAX_TIMERS_PER_STEP} timers fired in one step")), "{}", errors(&first));
    for _ in 0..3 {
        let result = device.step(&Action::Wait { ms: 1000 });
        assert!(result.clock_ms > clock, "the clock moves on");
        clock = result.clock_ms;
        assert_eq!(device.store().session.timers.len(), 1, "one storm timer pending, not thousands");
    }
    // The phone still answers.
    assert_eq!(tap_label(&mut device, "Count").script_errors.len(), 1, "the storm goes on, the tap works");
    assert_eq!(device.store().apps[HOSTILE]["count"], 1);
}

#[test]
fn the_handlers_of_one_step_share_one_budget() {
    let mut device = open_hostile();
    let result = tap_label(&mut device, "Burn");
    assert!(errors(&result).contains("used its whole budget"), "{}", errors(&result));
    let burned = |d: &Device| d.store().apps[HOSTILE]["burned"].as_i64().unwrap_or(0);
    let after_first = burned(&device);
    assert!((1..20).contains(&after_first), "{after_first} of 20 ran in the first step");
    // The others run in the next steps, none lost.
    for _ in 0..10 {
        device.step(&Action::Wait { ms: 100 });
    }
    assert_eq!(burned(&device), 20);
    assert!(device.store().session.timers.is_empty());
}

#[test]
fn durations_have_a_maximum_and_the_clock_never_runs_backwards() {
    for ms in [u64::MAX, 1 << 63, i64::MAX as u64 + 1, MAX_ACTION_MS + 1] {
        let mut device = device();
        let before = device.store().session.clock_ms;
        for action in [
            Action::Wait { ms },
            Action::LongPress { x: 540.0, y: 1200.0, ms },
            Action::Swipe { x1: 540.0, y1: 1800.0, x2: 540.0, y2: 600.0, ms },
            Action::Drag { x1: 540.0, y1: 1800.0, x2: 540.0, y2: 600.0, ms },
        ] {
            let result = device.step(&action);
            assert!(result.note.as_deref().is_some_and(|n| n.contains("longer than the limit")), "{result:?}");
        }
        assert_eq!(device.store().session.clock_ms, before + 4 * 500, "each no-op costs one action");
    }
    let mut device = device();
    let before = device.store().session.clock_ms;
    assert!(device.step(&Action::Wait { ms: MAX_ACTION_MS }).ok);
    assert_eq!(device.store().session.clock_ms, before + MAX_ACTION_MS as i64);
}

#[test]
fn huge_texts_are_refused_not_laid_out() {
    let mut device = open_hostile();
    let field = device.ui_elements().into_iter().find(|e| e.hint_text.as_deref() == Some("Note")).expect("the note field");
    let b = field.bbox_pixels.expect("pixels");
    device.step(&Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 });
    let result = device.step(&Action::TypeText { text: "x".repeat(10_000_000), clear: false });
    assert!(result.note.as_deref().is_some_and(|n| n.contains("longer than the limit")), "{result:?}");
    // Within the action limit, but the field holds 10,000 characters at most.
    assert!(device.step(&Action::TypeText { text: "y".repeat(9_000), clear: false }).ok);
    let result = device.step(&Action::TypeText { text: "y".repeat(2_000), clear: false });
    assert!(result.note.as_deref().is_some_and(|n| n.contains("at most 10000 characters")), "{result:?}");
    assert_eq!(device.store().apps[HOSTILE]["note"].as_str().map(str::len), Some(9_000));
    let _ = device.frame_hash();
}

#[test]
fn app_data_cannot_grow_without_bound() {
    let mut device = open_hostile();
    let mut refused = None;
    for tap in 0..6 {
        let result = tap_label(&mut device, "Grow");
        if !result.script_errors.is_empty() {
            refused = Some((tap, errors(&result)));
            break;
        }
    }
    let (tap, error) = refused.expect("growth was refused");
    assert!(error.contains(&format!("over the limit of {MAX_APP_DATA_BYTES}")), "{error}");
    assert_eq!(tap, 2, "two 3 MB strings fit in 8 MiB, a third does not");
    assert_eq!(device.store().apps[HOSTILE]["blob"].as_array().map(Vec::len), Some(2));
    // A device restored from a snapshot knows nothing of the bounds, and still refuses.
    let mut restored = Device::restore(catalog(), &device.snapshot(), DeviceConfig::default().limits).unwrap();
    assert!(errors(&tap_label(&mut restored, "Grow")).contains("over the limit"));
}

#[test]
fn the_back_stack_has_a_maximum() {
    let mut device = open_hostile();
    let result = tap_label(&mut device, "Deep");
    assert!(errors(&result).contains(&format!("back stack already holds {MAX_BACK_STACK} screens")), "{}", errors(&result));
    assert_eq!(device.store().session.tasks[HOSTILE].len(), MAX_BACK_STACK);
}

fn app_hash(device: &Device, package: &str) -> String {
    blake3::hash(device.store().apps[package].to_string().as_bytes()).to_hex().to_string()
}

/// Clock and Settings driven through the same steps, returning what they showed and held.
fn drive_others(device: &mut Device) -> Vec<String> {
    let mut seen = Vec::new();
    for action in [
        r#"{"type":"open_app","app":"Clock"}"#,
        r#"{"type":"tap","x":540,"y":2200}"#,
        r#"{"type":"swipe","x1":540,"y1":1800,"x2":540,"y2":800}"#,
        r#"{"type":"key","key":"back"}"#,
        r#"{"type":"open_app","app":"Settings"}"#,
        r#"{"type":"tap","x":540,"y":700}"#,
        r#"{"type":"key","key":"home"}"#,
    ] {
        device.step(&Action::from_json(action).unwrap());
        seen.push(format!(
            "{} {} {} {}",
            device.frame_hash(),
            app_hash(device, "com.phoneworld.clock"),
            app_hash(device, "com.phoneworld.settings"),
            device.store().session.clock_ms
        ));
    }
    seen
}

#[test]
fn an_app_trying_every_trick_changes_nothing_for_the_others() {
    // With the tricks played first...
    let mut tricked = open_hostile();
    for _ in 0..3 {
        let result = tap_label(&mut tricked, "Tricks");
        assert!(result.script_errors.is_empty(), "{}", errors(&result));
    }
    // ...its own state outside the store never survived an event...
    assert_eq!(tricked.store().apps[HOSTILE]["hidden"], serde_json::json!({"hidden": 1, "cached": 1}));
    tricked.step(&Action::Key { key: phoneworld_data::Key::Home });
    // ...and against the same number of plain steps, the other apps are the same, pixel for pixel.
    let mut plain = open_hostile();
    for _ in 0..3 {
        plain.step(&Action::Wait { ms: 500 });
    }
    plain.step(&Action::Key { key: phoneworld_data::Key::Home });
    assert_eq!(drive_others(&mut tricked), drive_others(&mut plain));
}
