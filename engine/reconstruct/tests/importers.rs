//! Each importer reads its format into the canonical trace: screens, steps, actions and
//! targets as the trace recorded them.

mod common;

use common::{copy_dir, fixture, scratch};
use phoneworld_reconstruct::import::{detect, import, TraceFormat};
use phoneworld_reconstruct::{ScreenKind, Trace, TraceAction};

fn target_id(trace: &Trace, step: usize) -> String {
    trace.steps[step].target.as_ref().map(|t| t.node.resource_id.clone()).unwrap_or_default()
}

#[test]
fn uiautomator_log_with_dumps() {
    let t = import(&fixture("uiautomator"), None).unwrap();
    assert_eq!(t.source_format, "uiautomator");
    assert_eq!(t.screens.len(), 5);
    assert_eq!(t.steps.len(), 10);
    // Taps without a target are resolved by hit-testing the dump.
    assert_eq!(target_id(&t, 0), "com.example.notes:id/new_note");
    assert_eq!(target_id(&t, 4), "com.example.notes:id/settings");
    assert_eq!(t.steps[2].action, TraceAction::TypeText { text: "Milk".into() });
    assert_eq!(t.steps[0].next.as_deref(), Some("editor.xml"));
    assert_eq!(t.steps[9].next, None, "the last action has no screen after it");
    assert!(t.screens.values().all(|s| s.kind == ScreenKind::Full && s.package == "com.example.notes"));
}

#[test]
fn llamatouch_reduced_resolution_clicks_are_scaled_and_hit_tested() {
    let t = import(&fixture("llamatouch"), None).unwrap();
    assert_eq!(t.source_format, "llamatouch");
    assert_eq!((t.screens.len(), t.steps.len()), (5, 4));
    // The launcher shows over the wallpaper window: its package comes from its nodes.
    assert_eq!(t.screens["0"].package, "com.android.launcher3");
    // (67, 642) at 360x800 is (201, 1926) on the 1080x2400 screen: the Notes icon.
    let TraceAction::Tap { x, y } = t.steps[0].action else { panic!("expected a tap") };
    assert!((x - 201.0).abs() < 2.0 && (y - 1926.0).abs() < 2.0, "{x},{y}");
    assert_eq!(t.steps[0].target.as_ref().unwrap().node.text, "Notes");
    assert_eq!(target_id(&t, 1), "com.example.notes:id/new_note");
    assert_eq!(t.steps[2].action, TraceAction::TypeText { text: "Milk".into() });
    // A quarter-size screenshot keeps the hierarchy's scale.
    assert_eq!((t.screens["1"].width, t.screens["1"].height), (1080, 2400));
    assert_eq!(t.screens["1"].screenshot.as_deref(), Some("1.png"));
}

#[test]
fn droidbot_states_events_hash_only_states_and_dialogs() {
    let t = import(&fixture("droidbot"), None).unwrap();
    assert_eq!(t.source_format, "droidbot");
    assert_eq!(t.steps.len(), 12);
    assert_eq!(t.screens.len(), 7, "5 saved states and 2 known only by hash");
    let hash_only: Vec<&str> = t.screens.values().filter(|s| s.kind == ScreenKind::HashOnly).map(|s| s.id.as_str()).collect();
    assert_eq!(hash_only, vec!["e6e6e6e6e6e6e6e6", "ffffffffffffffff"]);
    // The state HOME lands on is the launcher.
    assert!(t.screens["ffffffffffffffff"].package.contains("launcher"));
    assert_eq!(t.screens["d4d4d4d4d4d4d4d4"].kind, ScreenKind::Dialog);
    assert_eq!(t.steps[0].action, TraceAction::Key { key: "home".into() });
    assert_eq!(t.steps[1].action, TraceAction::OpenApp { app: "com.example.notes".into() });
    assert_eq!(t.steps[3].action, TraceAction::TypeText { text: "Milk".into() });
    assert_eq!(target_id(&t, 3), "com.example.notes:id/note_title");
    assert!(matches!(t.steps[7].action, TraceAction::Swipe { y1, y2, .. } if y1 > y2), "scroll DOWN drags the finger up");
    assert!(matches!(t.steps[11].action, TraceAction::LongPress { .. }));
    // Targets given by the event are found in the saved hierarchy.
    assert!(t.steps[2].target.as_ref().unwrap().path.is_some());
}

#[test]
fn rico_orders_screens_by_id_and_scales_normalized_gestures() {
    let t = import(&fixture("rico"), None).unwrap();
    assert_eq!(t.source_format, "rico");
    let order: Vec<&str> = t.steps.iter().map(|s| s.screen.as_str()).collect();
    assert_eq!(order, vec!["10", "12", "15"], "ids are not contiguous; the empty last gesture is the end");
    assert_eq!(t.steps[2].next.as_deref(), Some("31"));
    assert_eq!((t.screens["10"].width, t.screens["10"].height), (1440, 2560));
    let TraceAction::Tap { x, .. } = t.steps[0].action else { panic!("expected a tap") };
    assert!((x - 870.0 * 1440.0 / 1080.0).abs() < 2.0, "{x}");
    assert_eq!(target_id(&t, 0), "com.example.notes:id/new_note");
}

#[test]
fn phoneworld_trajectories_with_and_without_xml() {
    let t = import(&fixture("phoneworld"), None).unwrap();
    assert_eq!(t.source_format, "phoneworld");
    assert_eq!(t.steps.len(), 8);
    let first = &t.screens[&t.steps[0].screen];
    assert_eq!(first.package, "com.phoneworld.launcher");
    assert_eq!(t.steps[0].action, TraceAction::OpenApp { app: "Clock".into() });
    // Steps 4.. have no XML file: their hierarchy comes from the UI element list.
    let late = &t.screens[&t.steps[5].screen];
    assert_eq!(late.activity, "com.phoneworld.clock/home");
    let mut nodes = 0;
    late.root.as_ref().unwrap().walk(&mut Vec::new(), &mut |_, _| nodes += 1);
    assert!(nodes > 10, "{nodes} nodes");
    assert_eq!(t.steps[7].next, None);
}

#[test]
fn formats_are_detected_and_droidbot_may_sit_deeper() {
    for (name, format) in [
        ("uiautomator", TraceFormat::UiAutomator),
        ("llamatouch", TraceFormat::LlamaTouch),
        ("droidbot", TraceFormat::DroidBot),
        ("rico", TraceFormat::Rico),
        ("phoneworld", TraceFormat::PhoneWorld),
    ] {
        assert_eq!(detect(&fixture(name)).unwrap().0, format, "{name}");
    }
    let dir = scratch("nested-droidbot");
    copy_dir(&fixture("droidbot"), &dir.join("output/app.apk"));
    let (format, path) = detect(&dir).unwrap();
    assert_eq!(format, TraceFormat::DroidBot);
    assert!(path.ends_with("output/app.apk"));
    // A named format is read even where detection would not look.
    assert_eq!(import(&dir, Some(TraceFormat::DroidBot)).unwrap().steps.len(), 12);
}

#[test]
fn canonical_json_round_trips() {
    let dir = scratch("canonical");
    for name in common::FORMATS {
        let trace = import(&fixture(name), None).unwrap();
        let file = dir.join(format!("{name}.json"));
        std::fs::write(&file, trace.to_json()).unwrap();
        let back = import(&file, None).unwrap();
        assert_eq!(back, trace, "{name}");
    }
}
