//! DroidTask folders: DroidBot's `click`/`set_text` events, and each human demonstration
//! (`taskN.yaml`) becoming a task of the rebuilt app with the person's sentence.

mod common;

use std::path::Path;

use common::scratch;
use phoneworld_data::{Action, Key};
use phoneworld_reconstruct::import::{detect, import_all, TraceFormat};
use phoneworld_reconstruct::{reconstruct, ReconOptions, TraceAction};
use serde_json::{json, Value};

const PKG: &str = "org.example.alarms";

/// A DroidBot view: `[temp_id, parent, class, id, text, bounds, clickable, checkable, checked]`.
#[allow(clippy::too_many_arguments, reason = "one row of a table of views")]
fn view(id: usize, parent: i64, class: &str, rid: &str, text: &str, b: [i64; 4], clickable: bool, checked: Option<bool>) -> Value {
    json!({
        "temp_id": id, "parent": parent, "children": [], "class": class,
        "resource_id": if rid.is_empty() { Value::Null } else { json!(format!("{PKG}:id/{rid}")) },
        "text": if text.is_empty() { Value::Null } else { json!(text) }, "content_description": null,
        "bounds": [[b[0], b[1]], [b[2], b[3]]], "clickable": clickable, "checkable": checked.is_some(),
        "checked": checked.unwrap_or(false), "editable": class.ends_with("EditText"), "scrollable": false,
        "enabled": true, "visible": true, "package": PKG,
    })
}

fn write_state(dir: &Path, tag: &str, hash: &str, activity: &str, mut views: Vec<Value>) {
    // Children lists from the parents.
    for i in 0..views.len() {
        let parent = views[i]["parent"].as_i64().unwrap();
        if parent >= 0 {
            views[parent as usize]["children"].as_array_mut().unwrap().push(json!(i));
        }
    }
    let state = json!({ "tag": tag, "state_str": hash, "foreground_activity": format!("{PKG}/{activity}"), "views": views });
    std::fs::write(dir.join(format!("states/state_{tag}.json")), state.to_string()).unwrap();
}

/// The home screen's state, `launcher`, where the recordings start.
fn write_launcher(dir: &Path) {
    let home = json!({ "tag": "00", "state_str": "launcher", "foreground_activity": "com.google.android.apps.nexuslauncher/.NexusLauncherActivity",
        "views": [{ "temp_id": 0, "parent": -1, "children": [], "class": "android.widget.FrameLayout", "bounds": [[0, 0], [1080, 2280]],
            "visible": true, "package": "com.google.android.apps.nexuslauncher" }] });
    std::fs::write(dir.join("states/state_00.json"), home.to_string()).unwrap();
}

/// A fresh, empty DroidBot recording folder (`states/`, `events/`).
fn empty_recording(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("states")).unwrap();
    std::fs::create_dir_all(dir.join("events")).unwrap();
    dir
}

/// A fresh DroidBot recording folder whose first state is the home screen.
fn recording(name: &str) -> std::path::PathBuf {
    let dir = empty_recording(name);
    write_launcher(&dir);
    dir
}

/// Rebuilds `dir` into `<name>-out`; the text of its one demonstration task.
fn only_demonstration(dir: std::path::PathBuf, name: &str) -> (phoneworld_reconstruct::Reconstruction, String) {
    let out = scratch(&format!("{name}-out"));
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, ..ReconOptions::default() }).unwrap();
    let demos: Vec<_> = r.tasks.iter().filter(|t| t.kind == "demonstration").collect();
    assert_eq!(demos.len(), 1, "left out: {:?}", r.tasks_left_out);
    let task = std::fs::read_to_string(&demos[0].file).unwrap();
    (r, task)
}

fn write_event(dir: &Path, tag: &str, start: &str, stop: &str, event: Value) {
    let e = json!({ "tag": tag, "start_state": start, "stop_state": stop, "event": event });
    std::fs::write(dir.join(format!("events/event_{tag}.json")), e.to_string()).unwrap();
}

/// An alarm app: a main screen with a Settings button, and a settings screen whose row
/// holds a checkbox and whose name field takes text. Recorded twice toggled, once named.
fn droidtask_folder(name: &str) -> std::path::PathBuf {
    let dir = empty_recording(name);
    let root = |id| view(id, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None);
    write_state(
        &dir,
        "01",
        "main",
        ".MainActivity",
        vec![
            root(0),
            view(1, 0, "android.widget.TextView", "title", "Alarms", [40, 80, 600, 200], false, None),
            view(2, 0, "android.widget.Button", "settings", "Settings", [700, 80, 1040, 200], true, None),
            view(3, 0, "android.widget.TextView", "next_alarm", "Next alarm 07:00", [40, 400, 1040, 520], false, None),
        ],
    );
    let settings = |tag: &str, hash: &str, vibrate: bool| {
        write_state(
            &dir,
            tag,
            hash,
            ".SettingsActivity",
            vec![
                root(0),
                view(1, 0, "android.widget.TextView", "settings_title", "Settings", [40, 80, 600, 200], false, None),
                view(2, 0, "android.widget.RelativeLayout", "vibrate_holder", "", [0, 300, 1080, 460], true, None),
                view(3, 2, "android.widget.CheckBox", "vibrate", "Vibrate on alarm", [60, 320, 1020, 440], false, Some(vibrate)),
                view(4, 0, "android.widget.EditText", "alarm_name", "Alarm name", [60, 520, 1020, 640], true, None),
            ],
        )
    };
    settings("02", "settings_off", false);
    settings("03", "settings_on", true);
    let click = |rid: &str, text: &str, b: [i64; 4]| json!({ "event_type": "click", "view": view(0, -1, "android.view.View", rid, text, b, true, None), "x": null, "y": null });
    write_event(&dir, "10", "launcher", "main", json!({ "event_type": "intent", "intent": format!("am start {PKG}/.MainActivity") }));
    write_event(&dir, "11", "main", "settings_off", click("settings", "Settings", [700, 80, 1040, 200]));
    write_event(&dir, "12", "settings_off", "settings_on", click("vibrate_holder", "", [0, 300, 1080, 460]));
    write_event(&dir, "13", "settings_on", "settings_off", click("vibrate_holder", "", [0, 300, 1080, 460]));
    let set_text = json!({ "event_type": "set_text", "text": "Gym",
        "view": view(0, -1, "android.widget.EditText", "alarm_name", "Alarm name", [60, 520, 1020, 640], true, None) });
    write_event(&dir, "14", "settings_off", "settings_off", set_text);
    write_event(&dir, "15", "settings_off", "main", json!({ "event_type": "key", "name": "BACK" }));
    write_event(&dir, "16", "main", "settings_off", click("settings", "Settings", [700, 80, 1040, 200]));
    // DroidBot was stopped while writing this one.
    std::fs::write(dir.join("events/event_17.json"), "").unwrap();
    let main_html = "<p id=0>Alarms</p>\n<button id=1>Settings</button>\n<p id=2>Next alarm 07:00</p>\n<button id=3>go back</button>";
    let settings_html = |on: bool| {
        format!(
            "<p id=0>Settings</p>\n<checkbox id=1 checked={}>Vibrate on alarm</checkbox>\n<input id=2>Alarm name</input>\n<button id=3>go back</button>",
            if on { "True" } else { "False" }
        )
    };
    let record = |state: &str, choice: i64, input: &str, hashes: &[&str]| json!({ "State": state, "Choice": choice, "Input": input, "state_str": hashes, "new_state_str": "elsewhere" });
    let task = |n: usize, name: &str, records: Vec<Value>| {
        let yaml = serde_json::to_string(&json!({ "task_name": name, "step_num": records.len(), "records": records })).unwrap();
        // JSON is YAML: the importer reads both the same.
        std::fs::write(dir.join(format!("task{n}.yaml")), yaml).unwrap();
    };
    task(
        1,
        "turn on vibration for alarms",
        vec![
            record(main_html, 1, "null", &["main"]),
            record(&settings_html(false), 1, "null", &["settings_off"]),
            record(&settings_html(true), -1, "null", &["settings_on"]),
        ],
    );
    task(
        2,
        "name the alarm Gym",
        vec![
            record(main_html, 1, "null", &["main"]),
            record(&settings_html(false), 2, "Gym", &["settings_off"]),
            record(&settings_html(false), -1, "null", &["settings_off"]),
        ],
    );
    // The chosen element is on no saved screen: left out, with a note.
    task(3, "snooze for ten minutes", vec![record("<button id=0>Snooze</button>", 0, "null", &["main"])]);
    dir
}

#[test]
fn a_droidtask_folder_is_its_recording_and_one_trace_per_demonstration() {
    let dir = droidtask_folder("import");
    assert_eq!(detect(&dir).unwrap().0, TraceFormat::DroidTask);
    let traces = import_all(&dir, None).unwrap();
    assert_eq!(traces.len(), 3, "the recording and two demonstrations");
    let log = &traces[0];
    assert!(log.instruction.is_none());
    assert!(matches!(log.steps[1].action, TraceAction::Tap { .. }), "`click` is a tap");
    assert!(matches!(&log.steps[4].action, TraceAction::TypeText { text } if text == "Gym"));
    assert!(log.notes.iter().any(|n| n.contains("empty event file") && n.contains("event_17.json")), "{:?}", log.notes);
    assert!(log.notes.iter().any(|n| n.contains("task3.yaml") && n.contains("Snooze")), "{:?}", log.notes);
    let demo = &traces[1];
    assert_eq!(demo.instruction.as_deref(), Some("turn on vibration for alarms"));
    assert_eq!(demo.steps.len(), 2);
    // The checkbox itself, as DroidBot records a click on a checkbox row.
    assert_eq!(demo.steps[1].target.as_ref().unwrap().node.short_id(), "vibrate");
    assert_eq!(demo.steps[1].next.as_deref(), Some("settings_on"));
}

#[test]
fn each_demonstration_becomes_a_proven_task_with_the_persons_sentence() {
    let dir = droidtask_folder("tasks");
    let out = scratch("droidtask-out");
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, ..ReconOptions::default() }).unwrap();
    let demos: Vec<_> = r.tasks.iter().filter(|t| t.kind == "demonstration").collect();
    assert_eq!(demos.len(), 2, "{:?} left out: {:?}", r.tasks, r.tasks_left_out);
    let toggle = std::fs::read_to_string(&demos[0].file).unwrap();
    assert!(toggle.contains("instruction: \"turn on vibration for alarms\""), "{toggle}");
    // The screen it ended on and the checkbox as the last screen showed it.
    assert!(toggle.contains("Screen(app: \"org.example.alarms\", screen: \"settings\")"), "{toggle}");
    assert!(toggle.contains("_vibrate\", value: true)"), "{toggle}");
    let named = std::fs::read_to_string(&demos[1].file).unwrap();
    assert!(named.contains("Fill(\"alarm_name\", \"Gym\")") && named.contains("value: \"Gym\")"), "{named}");
    // The one whose element is on no screen is reported, not written.
    assert!(r.summary()["notes"].to_string().contains("task3.yaml"));
}

#[test]
fn a_broken_demonstration_file_is_named_with_its_line() {
    let dir = droidtask_folder("broken");
    std::fs::write(dir.join("task2.yaml"), "task_name: x\nrecords:\n  - Choice: [unclosed\n").unwrap();
    let e = import_all(&dir, None).unwrap_err().to_string();
    assert!(e.contains("task2.yaml:3"), "{e}");
}

/// DroidTask's recorder starts each session from the same data: after the app is killed and
/// started again, the checkbox turned on in the first session shows off again.
#[test]
fn data_the_recording_saw_reset_at_each_start_resets_when_the_rebuilt_app_starts() {
    let dir = empty_recording("restart");
    let root = |id| view(id, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None);
    let main = vec![root(0), view(1, 0, "android.widget.Button", "settings", "Settings", [700, 80, 1040, 200], true, None)];
    write_state(&dir, "01", "main", ".MainActivity", main);
    for (tag, hash, on) in [("02", "settings_off", false), ("03", "settings_on", true)] {
        let views =
            vec![root(0), view(1, 0, "android.widget.CheckBox", "vibrate", "Vibrate on alarm", [60, 320, 1020, 440], true, Some(on))];
        write_state(&dir, tag, hash, ".SettingsActivity", views);
    }
    let click = |rid: &str, text: &str, b: [i64; 4]| json!({ "event_type": "click", "view": view(0, -1, "android.view.View", rid, text, b, true, None), "x": null, "y": null });
    let start = json!({ "event_type": "intent", "intent": format!("am start {PKG}/.MainActivity") });
    let settings = click("settings", "Settings", [700, 80, 1040, 200]);
    let vibrate = click("vibrate", "Vibrate on alarm", [60, 320, 1020, 440]);
    let events = [
        ("10", "launcher", "main", start.clone()),
        ("11", "main", "settings_off", settings.clone()),
        ("12", "settings_off", "settings_on", vibrate),
        ("13", "settings_on", "main", json!({ "event_type": "key", "name": "BACK" })),
        ("14", "main", "launcher", json!({ "event_type": "kill_app", "stop_intent": format!("am force-stop {PKG}") })),
        ("15", "launcher", "main", start),
        ("16", "main", "settings_off", settings),
        ("17", "settings_off", "main", json!({ "event_type": "key", "name": "BACK" })),
    ];
    for (tag, from, to, event) in events {
        write_event(&dir, tag, from, to, event);
    }
    let out = scratch("restart-out");
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, visual: false, ..ReconOptions::default() }).unwrap();
    let memory = &r.fidelity[0].memory;
    assert_eq!((memory.reproduced, memory.changed_revisits), (1, 1), "{:#?}", r.fidelity[0].per_step);

    // On the rebuilt app: turned on, it stays on while the app runs, and is off after a restart.
    let catalog = phoneworld_phone::Catalog::load_default(std::slice::from_ref(&out)).unwrap();
    let mut phone = phoneworld_phone::Device::new(catalog, phoneworld_phone::DeviceConfig::default()).unwrap();
    let vibrate_on = |phone: &mut phoneworld_phone::Device| {
        let e = phone.ui_elements().into_iter().find(|e| e.text.as_deref() == Some("Vibrate on alarm")).expect("the checkbox");
        e.is_checked == Some(true)
    };
    let open_settings = |phone: &mut phoneworld_phone::Device| {
        phone.step(&Action::OpenApp { app: PKG.into() });
        let tap = common::tap_text(phone, "Settings");
        phone.step(&tap);
    };
    open_settings(&mut phone);
    assert!(!vibrate_on(&mut phone));
    let tap = common::tap_text(&mut phone, "Vibrate on alarm");
    phone.step(&tap);
    phone.step(&Action::Key { key: Key::Back });
    let tap = common::tap_text(&mut phone, "Settings");
    phone.step(&tap);
    assert!(vibrate_on(&mut phone), "kept while the app runs");
    phone.step(&Action::CloseApp { app: PKG.into() });
    open_settings(&mut phone);
    assert!(!vibrate_on(&mut phone), "a new start begins from the first data");
}

/// A screen with three tabs whose two lists look alike: each tab is a screen of its own (the
/// same button adds a contact on one and a group on the other), a tab the recording never
/// tapped from there still leads to its screen, and the app opens on the tab it was left on,
/// as the recording showed after each restart.
#[test]
fn each_tab_is_a_screen_every_tab_leads_to_its_own_and_the_app_reopens_on_the_last() {
    let dir = empty_recording("tabs");
    let root = |id| view(id, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None);
    let tabs = ["Contacts", "Groups", "Favorites"];
    let tab_screen = |selected: usize, row: &str| {
        let mut views = vec![root(0)];
        for (i, label) in tabs.iter().enumerate() {
            let x = 360 * i as i64;
            let mut holder =
                view(views.len(), 0, "android.widget.LinearLayout", "tab_item_holder", "", [x, 2000, x + 360, 2160], true, None);
            let mut text = view(
                views.len() + 1,
                views.len() as i64,
                "android.widget.TextView",
                "tab_item_label",
                label,
                [x, 2080, x + 360, 2140],
                false,
                None,
            );
            if i == selected {
                holder["selected"] = json!(true);
                text["selected"] = json!(true);
            }
            views.extend([holder, text]);
        }
        views.push(view(views.len(), 0, "android.widget.TextView", "item_name", row, [40, 300, 1040, 420], true, None));
        views.push(view(views.len(), 0, "android.widget.ImageButton", "fab", "", [880, 1800, 1040, 1960], true, None));
        views
    };
    write_state(&dir, "01", "contacts", ".MainActivity", tab_screen(0, "Alice"));
    write_state(&dir, "02", "groups", ".MainActivity", tab_screen(1, "Family"));
    write_state(&dir, "03", "favorites", ".MainActivity", tab_screen(2, "Bob"));
    write_launcher(&dir);
    let click = |rid: &str, text: &str, b: [i64; 4]| json!({ "event_type": "click", "view": view(0, -1, "android.view.View", rid, text, b, true, None), "x": null, "y": null });
    let tab = |i: i64| click("tab_item_holder", "", [360 * i, 2000, 360 * i + 360, 2160]);
    let start = json!({ "event_type": "intent", "intent": format!("am start {PKG}/.MainActivity") });
    let kill = json!({ "event_type": "kill_app", "stop_intent": format!("am force-stop {PKG}") });
    let events = [
        ("10", "launcher", "contacts", start.clone()),
        ("11", "contacts", "groups", tab(1)),
        ("12", "groups", "launcher", kill.clone()),
        ("13", "launcher", "groups", start.clone()),
        ("14", "groups", "favorites", tab(2)),
        ("15", "favorites", "launcher", kill),
        ("16", "launcher", "favorites", start),
    ];
    for (tag, from, to, event) in events {
        write_event(&dir, tag, from, to, event);
    }
    let out = scratch("tabs-out");
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, visual: false, ..ReconOptions::default() }).unwrap();
    let app_screens = r.model.screens.iter().filter(|s| s.activity.ends_with("MainActivity")).count();
    assert_eq!(app_screens, 3, "one screen per tab: {:?}", r.model.screens.iter().map(|s| &s.id).collect::<Vec<_>>());
    assert_eq!(r.fidelity[0].transition_accuracy, 1.0, "{:#?}", r.fidelity[0].per_step);

    let catalog = phoneworld_phone::Catalog::load_default(std::slice::from_ref(&out)).unwrap();
    let mut phone = phoneworld_phone::Device::new(catalog, phoneworld_phone::DeviceConfig::default()).unwrap();
    let shows = |phone: &mut phoneworld_phone::Device, text: &str| common::texts(phone).contains(text);
    phone.step(&Action::OpenApp { app: PKG.into() });
    assert!(shows(&mut phone, "Alice"), "the first start opens on the first tab");
    // Favorites → Contacts was never tapped in the recording.
    let tap = common::tap_text(&mut phone, "Favorites");
    phone.step(&tap);
    assert!(shows(&mut phone, "Bob"));
    let tap = common::tap_text(&mut phone, "Contacts");
    phone.step(&tap);
    assert!(shows(&mut phone, "Alice"), "every tab leads to its own screen");
    let tap = common::tap_text(&mut phone, "Groups");
    phone.step(&tap);
    phone.step(&Action::CloseApp { app: PKG.into() });
    phone.step(&Action::OpenApp { app: PKG.into() });
    assert!(shows(&mut phone, "Family"), "the app opens on the tab it was left on");
}

/// Contacts picked with a dialog's checkboxes show in the group its OK leads back to, as the
/// recording showed after the OK (and not before).
#[test]
fn items_picked_in_a_dialog_show_on_the_screen_its_confirm_leads_to() {
    let dir = empty_recording("picks");
    let root = |id| view(id, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None);
    let group = |members: &[&str]| {
        let mut views =
            vec![root(0), view(1, 0, "android.widget.Button", "add_members", "Add contacts", [40, 2000, 1040, 2120], true, None)];
        for (i, name) in members.iter().enumerate() {
            let y = 300 + 160 * i as i64;
            views.push(view(views.len(), 0, "android.widget.TextView", "member_name", name, [40, y, 1040, y + 120], true, None));
        }
        views
    };
    let dialog = |checked: [bool; 2]| {
        let mut views = vec![root(0)];
        for (i, name) in ["Alice", "Bob"].into_iter().enumerate() {
            let y = 600 + 160 * i as i64;
            let row = views.len();
            views.push(view(row, 0, "android.widget.LinearLayout", "contact_row", "", [40, y, 1040, y + 140], true, None));
            views.push(view(row + 1, row as i64, "android.widget.TextView", "contact_name", name, [60, y, 800, y + 140], false, None));
            views.push(view(
                row + 2,
                row as i64,
                "android.widget.CheckBox",
                "contact_checkbox",
                "",
                [880, y, 1020, y + 140],
                true,
                Some(checked[i]),
            ));
        }
        views.push(view(views.len(), 0, "android.widget.Button", "ok", "OK", [700, 1000, 1040, 1120], true, None));
        views
    };
    write_state(&dir, "01", "group_empty", ".GroupActivity", group(&[]));
    write_state(&dir, "02", "pick_none", ".GroupActivity", dialog([false, false]));
    write_state(&dir, "03", "pick_bob", ".GroupActivity", dialog([false, true]));
    write_state(&dir, "04", "group_bob", ".GroupActivity", group(&["Bob"]));
    let click = |rid: &str, text: &str, b: [i64; 4]| json!({ "event_type": "click", "view": view(0, -1, "android.view.View", rid, text, b, true, None), "x": null, "y": null });
    let events = [
        ("10", "launcher", "group_empty", json!({ "event_type": "intent", "intent": format!("am start {PKG}/.GroupActivity") })),
        ("11", "group_empty", "pick_none", click("add_members", "Add contacts", [40, 2000, 1040, 2120])),
        ("12", "pick_none", "pick_bob", click("contact_checkbox", "", [880, 760, 1020, 900])),
        ("13", "pick_bob", "group_bob", click("ok", "OK", [700, 1000, 1040, 1120])),
    ];
    for (tag, from, to, event) in events {
        write_event(&dir, tag, from, to, event);
    }
    let out = scratch("picks-out");
    reconstruct(&[dir], &out, &ReconOptions { overwrite: true, visual: false, ..ReconOptions::default() }).unwrap();
    let main_lua = std::fs::read_to_string(out.join("main.lua")).unwrap();
    assert!(main_lua.contains("-- picked: it shows on"), "{main_lua}");

    let catalog = phoneworld_phone::Catalog::load_default(std::slice::from_ref(&out)).unwrap();
    let mut phone = phoneworld_phone::Device::new(catalog, phoneworld_phone::DeviceConfig::default()).unwrap();
    phone.step(&Action::OpenApp { app: PKG.into() });
    assert!(!common::texts(&mut phone).contains("Bob"), "nobody in the group at first");
    let tap = common::tap_text(&mut phone, "Add contacts");
    phone.step(&tap);
    let boxes: Vec<_> = phone.ui_elements().into_iter().filter(|e| e.is_checkable == Some(true)).collect();
    let bob = common::tap_on(&mut phone, "Bob's checkbox", |e| {
        e.is_checkable == Some(true) && e.bbox.is_some_and(|b| b.y_min > boxes[0].bbox.unwrap().y_min)
    });
    phone.step(&bob);
    let tap = common::tap_text(&mut phone, "OK");
    phone.step(&tap);
    let shown = common::texts(&mut phone);
    assert!(shown.contains("Bob") && !shown.contains("Alice"), "the one picked shows: {shown:?}");
}

/// A menu's item closes the menu as it opens its screen, and a prompt's OK closes the prompt
/// back to the screen that opened it: Back afterwards goes where the recording's Back went,
/// not to the menu or the prompt.
#[test]
fn a_dialog_closes_when_its_control_leads_on() {
    let dir = empty_recording("dialogs");
    let full = |id| view(id, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None);
    let floating = |id| view(id, -1, "android.widget.FrameLayout", "", "", [300, 700, 1040, 1300], false, None);
    let dialog_state = |tag: &str, hash: &str, activity: &str, views: Vec<Value>| {
        write_state(&dir, tag, hash, activity, views);
        // The screen's size, which a floating window does not give.
        let file = dir.join(format!("states/state_{tag}.json"));
        let mut state: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        state["width"] = json!(1080);
        state["height"] = json!(2280);
        std::fs::write(file, state.to_string()).unwrap();
    };
    write_launcher(&dir);
    let button = |id, parent, rid: &str, text: &str, b| view(id, parent, "android.widget.Button", rid, text, b, true, None);
    dialog_state(
        "01",
        "main",
        ".MainActivity",
        vec![
            full(0),
            view(1, 0, "android.widget.TextView", "home", "Home", [40, 80, 600, 200], false, None),
            button(2, 0, "more", "More", [900, 80, 1040, 200]),
        ],
    );
    dialog_state(
        "02",
        "menu",
        ".MainActivity",
        vec![
            floating(0),
            button(1, 0, "menu_settings", "Settings", [320, 720, 1020, 860]),
            button(2, 0, "menu_about", "About", [320, 880, 1020, 1020]),
        ],
    );
    dialog_state(
        "03",
        "settings",
        ".SettingsActivity",
        vec![
            full(0),
            view(1, 0, "android.widget.TextView", "settings_title", "Settings", [40, 80, 600, 200], false, None),
            button(2, 0, "reset", "Reset", [40, 400, 1040, 520]),
        ],
    );
    dialog_state(
        "04",
        "confirm",
        ".SettingsActivity",
        vec![
            floating(0),
            view(1, 0, "android.widget.TextView", "message", "Reset all settings?", [320, 720, 1020, 860], false, None),
            button(2, 0, "ok", "OK", [700, 1100, 1020, 1260]),
        ],
    );
    let click = |rid: &str, text: &str, b: [i64; 4]| json!({ "event_type": "click", "view": view(0, -1, "android.view.View", rid, text, b, true, None), "x": null, "y": null });
    let back = json!({ "event_type": "key", "name": "BACK" });
    let events = [
        ("10", "launcher", "main", json!({ "event_type": "intent", "intent": format!("am start {PKG}/.MainActivity") })),
        ("11", "main", "menu", click("more", "More", [900, 80, 1040, 200])),
        ("12", "menu", "settings", click("menu_settings", "Settings", [320, 720, 1020, 860])),
        ("13", "settings", "confirm", click("reset", "Reset", [40, 400, 1040, 520])),
        ("14", "confirm", "settings", click("ok", "OK", [700, 1100, 1020, 1260])),
        ("15", "settings", "main", back),
    ];
    for (tag, from, to, event) in events {
        write_event(&dir, tag, from, to, event);
    }
    let out = scratch("dialogs-out");
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, visual: false, ..ReconOptions::default() }).unwrap();
    assert_eq!(r.fidelity[0].transition_accuracy, 1.0, "{:#?}", r.fidelity[0].per_step);

    let catalog = phoneworld_phone::Catalog::load_default(std::slice::from_ref(&out)).unwrap();
    let mut phone = phoneworld_phone::Device::new(catalog, phoneworld_phone::DeviceConfig::default()).unwrap();
    phone.step(&Action::OpenApp { app: PKG.into() });
    for text in ["More", "Settings", "Reset", "OK"] {
        let tap = common::tap_text(&mut phone, text);
        phone.step(&tap);
    }
    assert!(common::texts(&mut phone).contains("Reset"), "OK went back to the settings");
    phone.step(&Action::Key { key: Key::Back });
    let shown = common::texts(&mut phone);
    assert!(shown.contains("Home") && !shown.contains("About"), "Back skips the menu and the prompt: {shown:?}");
}

/// A record of a screen scrolled by the person names both states; the top one still holds the
/// row scrolled into view, squeezed to nothing at the scroll view's edge. The tap is on the
/// state that shows it, after a swipe there, as the person did.
#[test]
fn a_row_scrolled_into_view_is_tapped_on_the_state_that_shows_it() {
    let dir = recording("scrolled_row");
    let settings = |tag: &str, hash: &str, mms: [i64; 4]| {
        let rows = vec![
            view(0, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None),
            view(1, 0, "android.widget.TextView", "settings_title", "Settings", [40, 80, 600, 200], false, None),
            view(2, 0, "android.widget.CheckBox", "send_mms", "Send long messages as MMS", mms, true, Some(false)),
        ];
        write_state(&dir, tag, hash, ".SettingsActivity", rows);
    };
    // At the top the row is below the fold: Android reports it with its bottom above its top.
    settings("01", "top", [60, 2200, 1020, 2100]);
    settings("02", "scrolled", [60, 1600, 1020, 1760]);
    write_event(&dir, "10", "launcher", "top", json!({ "event_type": "intent", "intent": format!("am start {PKG}/.SettingsActivity") }));
    let html = "<p id=0>Settings</p>\n<checkbox id=1 checked=False>Send long messages as MMS</checkbox>\n<button id=2>go back</button>";
    let record = json!({ "State": html, "Choice": 1, "Input": "null", "state_str": ["top", "scrolled"], "new_state_str": "elsewhere" });
    let yaml = serde_json::to_string(&json!({ "task_name": "send long messages as MMS", "step_num": 1, "records": [record] })).unwrap();
    std::fs::write(dir.join("task1.yaml"), yaml).unwrap();
    let traces = import_all(&dir, None).unwrap();
    let demo = &traces[1];
    assert_eq!(demo.steps.len(), 2, "a swipe to the row, then the tap: {:?}", demo.steps);
    assert!(matches!(demo.steps[0].action, TraceAction::Swipe { .. }));
    assert_eq!((demo.steps[0].screen.as_str(), demo.steps[0].next.as_deref()), ("top", Some("scrolled")));
    let tap = &demo.steps[1];
    assert_eq!(tap.screen, "scrolled");
    assert_eq!(tap.target.as_ref().unwrap().node.bounds, [60, 1600, 1020, 1760]);
}

#[test]
fn a_demonstration_that_goes_on_in_an_app_this_one_opened_is_a_task_there() {
    let dir = recording("through_dialer");
    let root = |id| view(id, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None);
    write_state(
        &dir,
        "01",
        "contacts",
        ".MainActivity",
        vec![root(0), view(1, 0, "android.widget.Button", "call_bob", "Call Bob", [40, 300, 1040, 420], true, None)],
    );
    // The dialer is another app: its views and activity are its own.
    let dialer = |tag: &str, hash: &str, activity: &str, label: &str, rid: &str| {
        let mut views = vec![root(0), view(1, 0, "android.widget.Button", rid, label, [40, 1800, 1040, 1960], true, None)];
        for v in &mut views {
            v["package"] = json!("org.example.dialer");
            if !v["resource_id"].is_null() {
                v["resource_id"] = json!(format!("org.example.dialer:id/{rid}"));
            }
        }
        write_state(&dir, tag, hash, activity, views);
        let path = dir.join(format!("states/state_{tag}.json"));
        let state =
            std::fs::read_to_string(&path).unwrap().replace(&format!("{PKG}/{activity}"), &format!("org.example.dialer/{activity}"));
        std::fs::write(path, state).unwrap();
    };
    dialer("02", "dial", ".DialActivity", "Call", "dial");
    dialer("03", "in_call", ".InCallActivity", "Hang up", "hang_up");
    let click = |rid: &str, text: &str, b: [i64; 4]| json!({ "event_type": "click", "view": view(0, -1, "android.view.View", rid, text, b, true, None), "x": null, "y": null });
    write_event(&dir, "10", "launcher", "contacts", json!({ "event_type": "intent", "intent": format!("am start {PKG}/.MainActivity") }));
    write_event(&dir, "11", "contacts", "dial", click("call_bob", "Call Bob", [40, 300, 1040, 420]));
    write_event(&dir, "12", "dial", "in_call", click("dial", "Call", [40, 1800, 1040, 1960]));
    let record = |html: &str, choice: i64, hash: &str| json!({ "State": html, "Choice": choice, "Input": "null", "state_str": [hash], "new_state_str": "elsewhere" });
    let records = vec![
        record("<button id=0>Call Bob</button>\n<button id=1>go back</button>", 0, "contacts"),
        record("<button id=0>Call</button>\n<button id=1>go back</button>", 0, "dial"),
        record("<button id=0>Hang up</button>\n<button id=1>go back</button>", -1, "in_call"),
    ];
    let yaml = serde_json::to_string(&json!({ "task_name": "call Bob", "step_num": 3, "records": records })).unwrap();
    std::fs::write(dir.join("task1.yaml"), yaml).unwrap();
    let (_, task) = only_demonstration(dir, "through_dialer");
    // It ends on the dialer's in-call screen, rebuilt inside the app, through its Call button.
    assert!(task.contains("screen: \"dialer_in_call\")"), "{task}");
    assert!(task.contains("Tap(\"call_bob\"), Tap(\"dial\")"), "{task}");
}

/// A settings page edge to edge: its last row is drawn behind the phone's navigation bar, and
/// Android reports that row's checkbox as not visible. DroidBot's state hash leaves out what
/// is checked, so the state saved under the hash of the page after the tap shows the box
/// unchecked; the demonstration's rendering shows it checked. The rebuilt page scrolls to the
/// row, the task taps it there, and checks the box as the person saw it.
#[test]
fn a_row_behind_the_navigation_bar_is_scrolled_to_and_its_box_checked_as_the_person_saw_it() {
    let dir = recording("under_the_bar");
    let mut views = vec![
        view(0, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None),
        view(1, 0, "android.widget.ScrollView", "settings_scroll", "", [0, 300, 1080, 2280], false, None),
        view(2, 1, "android.widget.LinearLayout", "settings_holder", "", [0, 300, 1080, 2280], false, None),
        view(3, 2, "android.widget.RelativeLayout", "counter_holder", "", [0, 1900, 1080, 2060], true, None),
        view(4, 3, "android.widget.CheckBox", "counter", "Show a character counter", [60, 1915, 1020, 2045], false, Some(false)),
        view(5, 2, "android.widget.RelativeLayout", "accents_holder", "", [0, 2133, 1080, 2280], true, None),
        view(6, 5, "android.widget.CheckBox", "accents", "Remove accents when sending", [60, 2155, 1020, 2280], false, Some(false)),
    ];
    views[1]["scrollable"] = json!(true);
    views[6]["visible"] = json!(false);
    write_state(&dir, "01", "settings", ".SettingsActivity", views);
    write_event(
        &dir,
        "10",
        "launcher",
        "settings",
        json!({ "event_type": "intent", "intent": format!("am start {PKG}/.SettingsActivity") }),
    );
    let html = |on: bool| {
        let on = if on { "True" } else { "False" };
        format!("<checkbox id=0 checked=False>Show a character counter</checkbox>\n<checkbox id=1 checked={on}>Remove accents when sending</checkbox>\n<button id=2>go back</button>")
    };
    let record = |html: String, choice: i64| json!({ "State": html, "Choice": choice, "Input": "null", "state_str": ["settings"], "new_state_str": "elsewhere" });
    let yaml = serde_json::to_string(
        &json!({ "task_name": "remove accents when sending", "step_num": 2, "records": [record(html(false), 1), record(html(true), -1)] }),
    )
    .unwrap();
    std::fs::write(dir.join("task1.yaml"), yaml).unwrap();

    let traces = import_all(&dir, None).unwrap();
    let tap = &traces[1].steps[0];
    let after = &traces[1].screens[tap.next.as_deref().unwrap()];
    let mut shown = None;
    after.root.as_ref().unwrap().walk(&mut Vec::new(), &mut |_, n| {
        if n.short_id() == "accents" {
            shown = Some(n.checked);
        }
    });
    assert_eq!(shown, Some(true), "the screen after the tap is the one the rendering shows");

    let (r, task) = only_demonstration(dir, "under_the_bar");
    assert!(task.contains("ScrollTap(\"accents\")"), "{task}");
    assert!(task.contains("_accents\", value: true)"), "{task}");
    assert_eq!(r.fidelity[1].transition_accuracy, 1.0, "{:#?}", r.fidelity[1].per_step);
}

#[test]
fn a_message_typed_and_sent_is_checked_where_it_was_saved_with_the_keyboard_out_of_the_way() {
    let dir = recording("typed_and_sent");
    let thread = |tag: &str, hash: &str, field: &str, sent: bool| {
        let mut views = vec![
            view(0, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None),
            view(1, 0, "android.widget.TextView", "thread_title", "Bob", [40, 80, 600, 200], false, None),
            view(2, 0, "android.widget.EditText", "message", field, [40, 2100, 820, 2220], true, None),
            view(3, 0, "android.widget.Button", "send", "SMS", [840, 2100, 1040, 2220], true, None),
        ];
        if sent {
            views.push(view(4, 0, "android.widget.TextView", "bubble", "Hi Bob", [300, 300, 1040, 400], false, None));
        }
        write_state(&dir, tag, hash, ".ThreadActivity", views);
    };
    thread("01", "thread_empty", "Type a message", false);
    thread("02", "thread_typed", "Hi Bob", false);
    thread("03", "thread_sent", "Type a message", true);
    write_event(
        &dir,
        "10",
        "launcher",
        "thread_empty",
        json!({ "event_type": "intent", "intent": format!("am start {PKG}/.ThreadActivity") }),
    );
    let field = view(0, -1, "android.widget.EditText", "message", "Type a message", [40, 2100, 820, 2220], true, None);
    write_event(&dir, "11", "thread_empty", "thread_typed", json!({ "event_type": "set_text", "text": "Hi Bob", "view": field }));
    let send = view(0, -1, "android.widget.Button", "send", "SMS", [840, 2100, 1040, 2220], true, None);
    write_event(&dir, "12", "thread_typed", "thread_sent", json!({ "event_type": "click", "view": send, "x": null, "y": null }));
    let html = |field: &str, sent: bool| {
        let bubble = if sent { "<p id=1>Hi Bob</p>\n" } else { "" };
        let n = usize::from(sent);
        format!(
            "<p id=0>Bob</p>\n{bubble}<input id={}>{field}</input>\n<button id={}>SMS</button>\n<button id={}>go back</button>",
            n + 1,
            n + 2,
            n + 3
        )
    };
    let record = |html: String, choice: i64, input: &str, hash: &str| json!({ "State": html, "Choice": choice, "Input": input, "state_str": [hash], "new_state_str": "elsewhere" });
    let records = [
        record(html("Type a message", false), 1, "Hi Bob", "thread_empty"),
        record(html("Hi Bob", false), 2, "null", "thread_typed"),
        record(html("Type a message", true), -1, "null", "thread_sent"),
    ];
    let yaml = serde_json::to_string(&json!({ "task_name": "send Bob 'Hi Bob'", "step_num": 3, "records": records })).unwrap();
    std::fs::write(dir.join("task1.yaml"), yaml).unwrap();

    // Proven: the send button under the rebuilt keyboard is tapped once the keyboard is down,
    // and the text it cleared from the field is checked where sending kept it.
    let (_, task) = only_demonstration(dir, "typed_and_sent");
    assert!(task.contains("Fill(\"message\", \"Hi Bob\"), Back, Tap(\"send\")"), "{task}");
    assert!(task.contains("message__saved\", value: \"Hi Bob\")"), "{task}");
}

/// A messenger page whose Send the rebuilt app cannot tell from nothing (it stays, and what it
/// sent is shown nowhere the traces saw); the person, who came from the list, was taken back
/// to it once the message went. Back presses after the solution reach the list, but they do
/// without the tap on Send too: such a task would pass without sending, so it is not mended
/// (the real Contacts' group message, whose Send the rebuilt app records, is: real_traces.rs).
#[test]
fn back_presses_do_not_mend_a_demonstration_whose_last_tap_they_make_needless() {
    let dir = recording("went_back");
    let root = |id| view(id, -1, "android.widget.FrameLayout", "", "", [0, 0, 1080, 2280], false, None);
    write_state(
        &dir,
        "01",
        "list",
        ".MainActivity",
        vec![root(0), view(1, 0, "android.widget.Button", "compose", "Write to Bob", [40, 300, 1040, 420], true, None)],
    );
    // The page: the messages sent so far above the field.
    let compose = |tag: &str, hash: &str, typed: &str, sent: &[&str]| {
        let field = if typed.is_empty() { "Message" } else { typed };
        let mut views = vec![
            root(0),
            view(1, 0, "android.widget.EditText", "message", field, [40, 1600, 1040, 1720], true, None),
            view(2, 0, "android.widget.Button", "send", "Send", [40, 1800, 1040, 1920], true, None),
        ];
        for (k, text) in sent.iter().enumerate() {
            let y = 300 + 140 * k as i64;
            views.push(view(3 + k, 0, "android.widget.TextView", "bubble", text, [40, y, 1040, y + 120], false, None));
        }
        write_state(&dir, tag, hash, ".ComposeActivity", views);
    };
    compose("02", "compose", "", &[]);
    compose("04", "compose_hi", "Hi", &[]);
    compose("05", "sent_hi", "", &["Hi"]);
    compose("06", "compose_yo", "Yo", &["Hi"]);
    compose("07", "sent_yo", "", &["Hi", "Yo"]);
    let click = |rid: &str, text: &str, b: [i64; 4]| json!({ "event_type": "click", "view": view(0, -1, "android.view.View", rid, text, b, true, None), "x": null, "y": null });
    let send = json!({ "event_type": "click", "view": view(0, -1, "android.widget.Button", "send", "Send", [40, 1800, 1040, 1920], true, None), "x": null, "y": null });
    write_event(&dir, "10", "launcher", "list", json!({ "event_type": "intent", "intent": format!("am start {PKG}/.MainActivity") }));
    write_event(&dir, "11", "list", "compose", click("compose", "Write to Bob", [40, 300, 1040, 420]));
    let type_in = |text: &str| {
        json!({ "event_type": "set_text", "text": text,
        "view": view(0, -1, "android.widget.EditText", "message", "Message", [40, 1600, 1040, 1720], true, None) })
    };
    write_event(&dir, "12", "compose", "compose_hi", type_in("Hi"));
    write_event(&dir, "13", "compose_hi", "sent_hi", send.clone());
    write_event(&dir, "14", "sent_hi", "compose_yo", type_in("Yo"));
    write_event(&dir, "15", "compose_yo", "sent_yo", send);
    let record = |html: &str, choice: i64, input: &str, hash: &str| json!({ "State": html, "Choice": choice, "Input": input, "state_str": [hash], "new_state_str": "elsewhere" });
    let list_html = "<button id=0>Write to Bob</button>\n<button id=1>go back</button>";
    let compose_html = "<input id=0>Message</input>\n<button id=1>Send</button>\n<button id=2>go back</button>";
    let records = vec![
        record(list_html, 0, "null", "list"),
        record(compose_html, 0, "See you", "compose"),
        record(compose_html, 1, "null", "compose"),
        record(list_html, -1, "null", "list"),
    ];
    let yaml = serde_json::to_string(&json!({ "task_name": "tell Bob see you", "step_num": 4, "records": records })).unwrap();
    std::fs::write(dir.join("task1.yaml"), yaml).unwrap();
    let out = scratch("went_back-out");
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, ..ReconOptions::default() }).unwrap();
    assert!(r.tasks.iter().all(|t| t.kind != "demonstration"), "{:?}", r.tasks);
    let left: Vec<String> = r.tasks_left_out.iter().map(|t| t["reason"].to_string()).collect();
    assert!(left.iter().any(|why| why.contains("success[0] does not hold: Screen")), "{left:?}");
}
