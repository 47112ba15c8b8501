//! The generated app is a real app: `phoneworld check` accepts it, the engine runs it, a
//! tap on a reconstructed widget lands on the screen the trace went to, the oracle solves
//! its tasks, and the same traces always give the same files.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{files_below, fixture, scratch, FORMATS};
use phoneworld_agents::Monkey;
use phoneworld_data::{Action, LayoutModules, LuaLibrary};
use phoneworld_phone::{check_app, project_root, Catalog, Device, DeviceConfig};
use phoneworld_reconstruct::{reconstruct, ReconOptions, Reconstruction};
use phoneworld_tasks::{evaluate, AgentKind, Suite};

/// Reconstructs a fixture into a folder of its own (`tag` keeps parallel tests apart).
fn build(tag: &str, name: &str) -> Reconstruction {
    let out = scratch(&format!("app-{tag}-{name}"));
    reconstruct(&[fixture(name)], &out, &ReconOptions::default()).unwrap()
}

fn device(out: &Path) -> Device {
    let catalog = Catalog::load_default(&[out.to_path_buf()]).unwrap();
    assert!(catalog.broken.iter().all(|(dir, _)| !dir.starts_with(out)), "{:?}", catalog.broken);
    Device::new(catalog, DeviceConfig::default()).unwrap()
}

/// Taps the element whose resource id ends with `:id/<id>` (found in the full XML tree).
fn tap_id(device: &mut Device, id: &str) {
    let xml = device.ui_xml();
    let needle = format!(":id/{id}\"");
    let at = xml.find(&needle).unwrap_or_else(|| panic!("no `{id}` on screen"));
    let bounds = &xml[at..];
    let b = &bounds[bounds.find("bounds=\"[").unwrap() + 9..];
    let nums: Vec<f64> = b[..b.find('"').unwrap()].split([',', '[', ']']).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
    device.step(&Action::Tap { x: (nums[0] + nums[2]) / 2.0, y: (nums[1] + nums[3]) / 2.0 });
}

#[test]
fn every_format_gives_an_app_that_passes_check() {
    let (modules, errors) = LayoutModules::load(&[project_root().join("layouts")]);
    assert!(errors.is_empty());
    for name in FORMATS {
        let r = build("every_format", name);
        let problems = check_app(&r.out, &modules, &LuaLibrary::default());
        assert!(problems.is_empty(), "{name}: {problems:?}");
        for file in ["app.ron", "main.lua", "reconstruction.json", "fidelity.json", "fidelity.md", "graph.json", "graph.dot"] {
            assert!(r.out.join(file).is_file(), "{name}: no {file}");
        }
    }
}

#[test]
fn the_app_runs_and_a_reconstructed_tap_lands_where_the_trace_went() {
    let r = build("the_app_runs", "uiautomator");
    assert_eq!(r.model.package, "com.example.notes");
    let ids: Vec<&str> = r.model.screens.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, vec!["notes", "edit_note", "settings"], "named after their title bars");
    assert_eq!(r.model.entry, "notes");
    let mut d = device(&r.out);
    let result = d.step(&Action::OpenApp { app: "com.example.notes".into() });
    assert!(result.ok && result.script_errors.is_empty(), "{result:?}");
    assert_eq!(d.foreground(), ("com.example.notes".to_owned(), "notes".to_owned()));
    // The observed texts are on screen, where the trace had them.
    let elements = d.ui_elements();
    let groceries = elements.iter().find(|e| e.text.as_deref() == Some("Groceries")).expect("row text");
    let b = groceries.bbox_pixels.unwrap();
    assert!((b.x_min - 48.0).abs() < 4.0 && (b.y_min - 280.0).abs() < 4.0, "{b:?}");
    tap_id(&mut d, "new_note");
    assert_eq!(d.foreground().1, "edit_note");
    d.step(&Action::Key { key: phoneworld_data::Key::Back });
    tap_id(&mut d, "settings");
    assert_eq!(d.foreground().1, "settings");
    // The text field writes app state, as the manifest declares.
    let app_ron = std::fs::read_to_string(r.out.join("app.ron")).unwrap();
    assert!(app_ron.contains("\"edit_note_note_title\": \"\""), "{app_ron}");
    assert!(app_ron.contains("\"settings_dark_mode\": false"), "{app_ron}");
}

#[test]
fn generated_tasks_pass_with_the_oracle() {
    for name in FORMATS {
        let r = build("generated_ta", name);
        let catalog = Catalog::load_default(std::slice::from_ref(&r.out)).unwrap();
        let suite = Suite::load(&r.out.join("verifiers").join(&r.suite), &catalog).unwrap();
        assert!(suite.templates.len() >= 3, "{name}: only {} tasks", suite.templates.len());
        let report = evaluate(Arc::clone(&catalog), &suite, AgentKind::Oracle, 2, None).unwrap();
        assert_eq!(report.success_rate, 1.0, "{name}: {:?}", report.failures);
        // Doing nothing must not pass them.
        let noop = evaluate(catalog, &suite, AgentKind::Noop, 1, None).unwrap();
        assert_eq!(noop.success_rate, 0.0, "{name}");
    }
    let r = build("generated_ta", "uiautomator");
    let kinds: Vec<&str> = r.tasks.iter().map(|t| t.kind.as_str()).collect();
    assert!(kinds.contains(&"navigation") && kinds.contains(&"input"), "{kinds:?}");
}

#[test]
fn fidelity_beats_the_nothing_changes_baseline() {
    for name in FORMATS {
        let r = build("fidelity_bea", name);
        let f = &r.fidelity[0];
        assert!(f.judged > 0);
        assert!(
            f.transition_accuracy > f.baseline.transition_accuracy + 0.4,
            "{name}: {} vs {}",
            f.transition_accuracy,
            f.baseline.transition_accuracy
        );
        assert_eq!(f.script_errors, 0, "{name}");
        assert_eq!(f.per_step.len(), f.steps);
        let expected = if name == "droidbot" { 0.8 } else { 0.99 };
        assert!(f.transition_accuracy >= expected, "{name}: {}", f.transition_accuracy);
        assert!(f.element_recall >= 0.8, "{name}: element recall {}", f.element_recall);
    }
    // The DroidBot fixture has a step the phone cannot reproduce: Back opening a dialog. It
    // counts as a failure. Back from the screen the toggle reached showed the notes, not the
    // settings the toggle was on: the toggle opens the notes beneath it, and Back shows them.
    let r = build("fidelity_bea", "droidbot");
    let f = &r.fidelity[0];
    assert_eq!((f.succeeded, f.judged), (11, 12));
    let failed: Vec<usize> = f.per_step.iter().filter(|s| s.ok == Some(false)).map(|s| s.step).collect();
    assert_eq!(failed, vec![4]);
    // The LlamaTouch fixture has a screenshot: the rendered screen is compared with it.
    let r = build("fidelity_bea", "llamatouch");
    assert!(r.fidelity[0].visual_similarity.is_some_and(|v| v > 0.3), "{:?}", r.fidelity[0].visual);
}

#[test]
fn the_report_is_written_as_json_and_markdown() {
    let r = build("the_report_i", "rico");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(r.out.join("fidelity.json")).unwrap()).unwrap();
    assert_eq!(json["aggregate"]["transition_accuracy"], 1.0);
    assert_eq!(json["aggregate"]["baseline"]["transition_accuracy"], 0.0);
    assert_eq!(json["traces"][0]["per_step"].as_array().unwrap().len(), 3);
    let md = std::fs::read_to_string(r.out.join("fidelity.md")).unwrap();
    assert!(md.contains("| transition accuracy |") && md.contains("100.0%"), "{md}");
    let dot = std::fs::read_to_string(r.out.join("graph.dot")).unwrap();
    assert!(dot.starts_with("digraph usage {") && dot.contains("\"main\" -> \"editor\""), "{dot}");
}

#[test]
fn the_same_traces_give_byte_identical_files() {
    for name in ["droidbot", "llamatouch"] {
        let a = scratch(&format!("det-a-{name}"));
        let b = scratch(&format!("det-b-{name}"));
        reconstruct(&[fixture(name)], &a, &ReconOptions::default()).unwrap();
        reconstruct(&[fixture(name)], &b, &ReconOptions::default()).unwrap();
        let files = files_below(&a);
        assert_eq!(files, files_below(&b));
        assert!(files.len() > 8);
        for f in files {
            assert!(std::fs::read(a.join(&f)).unwrap() == std::fs::read(b.join(&f)).unwrap(), "{name}: {} differs", f.display());
        }
    }
}

#[test]
fn the_monkey_finds_no_script_errors() {
    for name in ["droidbot", "uiautomator"] {
        let r = build("the_monkey_f", name);
        let mut d = device(&r.out);
        let mut monkey = Monkey::new(3, Some(r.model.package.clone()));
        for _ in 0..150 {
            let action = monkey.next_action(&mut d);
            let result = d.step(&action);
            assert!(result.script_errors.is_empty(), "{name}: {:?}", result.script_errors);
        }
    }
}

#[test]
fn generated_files_are_readable() {
    let r = build("generated_fi", "droidbot");
    let editor = std::fs::read_to_string(r.out.join("screens/editor.ron")).unwrap();
    // One widget per line, with the Android class and id it came from above it.
    assert!(editor.contains("// Button com.example.notes:id/save\n"), "{editor}");
    assert!(editor.lines().any(|l| l.trim_start().starts_with("Button(id: \"save\", text: \"Save\"")), "{editor}");
    assert!(editor.lines().all(|l| l.len() < 260), "long lines in {editor}");
    let lua = std::fs::read_to_string(r.out.join("main.lua")).unwrap();
    assert!(lua.contains("-- tap on `save`, seen 1 time(s)\nfunction editor__save(ev)\n  nav.push(\"main\")\nend"), "{lua}");
    // Hash-only screens say so.
    let unsaved = std::fs::read_to_string(r.out.join("screens/unsaved_e6e6e6.ron")).unwrap();
    assert!(unsaved.contains("saved no hierarchy"), "{unsaved}");
}

#[test]
fn texts_with_quotes_braces_and_newlines_stay_text() {
    let dir = scratch("hostile-texts");
    common::copy_dir(&fixture("uiautomator"), &dir);
    let list = std::fs::read_to_string(dir.join("list.xml")).unwrap();
    let list = list.replace("text=\"Groceries\"", "text=\"Say &quot;hi&quot; {now}&#10;-- ]] \\ end\"").replace(
        "class=\"android.widget.TextView\" package=\"com.example.notes\" content-desc=\"\"",
        "class=\"android.widget.TextView&#10;x\" package=\"com.example.notes\" content-desc=\"\"",
    );
    std::fs::write(dir.join("list.xml"), list).unwrap();
    let out = dir.join("app");
    let r = reconstruct(&[dir.join("actions.jsonl")], &out, &ReconOptions::default()).unwrap();
    let (modules, _) = LayoutModules::load(&[project_root().join("layouts")]);
    assert!(check_app(&out, &modules, &LuaLibrary::default()).is_empty(), "{:?}", check_app(&out, &modules, &LuaLibrary::default()));
    let mut d = device(&out);
    d.step(&Action::OpenApp { app: r.model.package.clone() });
    let texts: Vec<String> = d.ui_elements().into_iter().filter_map(|e| e.text).collect();
    assert!(texts.iter().any(|t| t == "Say \"hi\" {now}\n-- ]] \\ end"), "{texts:?}");
}

/// A uiautomator window of `com.example.files` at `window` holding `nodes` (id, class, text,
/// bounds); the window of a dialog covers part of the screen.
fn files_screen(window: [u32; 4], nodes: &[(&str, &str, &str, [u32; 4])]) -> String {
    window_xml("com.example.files", window, nodes)
}

/// A uiautomator window of `package` (see `files_screen`).
fn window_xml(package: &str, window: [u32; 4], nodes: &[(&str, &str, &str, [u32; 4])]) -> String {
    let mut xml = format!(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node index=\"0\" text=\"\" resource-id=\"\" \
         class=\"android.widget.FrameLayout\" package=\"{package}\" content-desc=\"\" clickable=\"false\" bounds=\"[{},{}][{},{}]\">",
        window[0], window[1], window[2], window[3]
    );
    for (i, (id, class, text, b)) in nodes.iter().enumerate() {
        let clickable = class.ends_with("Button");
        xml.push_str(&format!(
            "<node index=\"{i}\" text=\"{text}\" resource-id=\"{package}:id/{id}\" class=\"android.widget.{class}\" package=\"{package}\" \
             content-desc=\"\" clickable=\"{clickable}\" bounds=\"[{},{}][{},{}]\" />",
            b[0], b[1], b[2], b[3]
        ));
    }
    xml + "</node></hierarchy>"
}

/// A uiautomator trace in `dir/trace`: its screens' files, then each step's screen file and
/// action (JSON); ends with a look at `last`.
fn uiautomator_trace(dir: &Path, screens: &[(&str, String)], steps: &[(&str, &str)], last: &str) -> std::path::PathBuf {
    let trace = dir.join("trace");
    std::fs::create_dir_all(&trace).unwrap();
    for (name, xml) in screens {
        std::fs::write(trace.join(name), xml).unwrap();
    }
    let mut lines: Vec<String> =
        steps.iter().map(|(screen, action)| format!("{{\"screen\": \"{screen}\", \"action\": {action}}}")).collect();
    lines.push(format!("{{\"screen\": \"{last}\", \"action\": {{\"type\": \"wait\", \"ms\": 500}}}}"));
    std::fs::write(trace.join("actions.jsonl"), lines.join("\n") + "\n").unwrap();
    trace
}

const BACK: &str = "{\"type\": \"key\", \"key\": \"back\"}";

/// A trace of a confirmation dialog (Cancel, OK) opened by two buttons, Delete and Sign out:
/// each time its OK was used, leading to the bin after Delete and to the sign-in after Sign out;
/// Cancel never. Returns the rebuilt app's folder and its reconstruction.
fn confirmation_app(dir: &Path) -> (std::path::PathBuf, Reconstruction) {
    const FULL: [u32; 4] = [0, 0, 1080, 2400];
    let screens = [
        (
            "home.xml",
            files_screen(
                FULL,
                &[
                    ("title", "TextView", "Files", [48, 100, 600, 180]),
                    ("delete", "Button", "Delete", [60, 600, 500, 720]),
                    ("sign_out", "Button", "Sign out", [580, 600, 1020, 720]),
                ],
            ),
        ),
        (
            "confirm.xml",
            files_screen(
                [40, 900, 1040, 1400],
                &[
                    ("message", "TextView", "Are you sure?", [60, 1000, 1020, 1100]),
                    ("cancel", "Button", "Cancel", [500, 1200, 760, 1320]),
                    ("ok", "Button", "OK", [780, 1200, 1020, 1320]),
                ],
            ),
        ),
        (
            "bin.xml",
            files_screen(
                FULL,
                &[("bin_title", "TextView", "Bin", [48, 100, 600, 180]), ("restore", "Button", "Restore", [60, 600, 500, 720])],
            ),
        ),
        (
            "sign_in.xml",
            files_screen(
                FULL,
                &[("sign_in_title", "TextView", "Sign in", [48, 100, 600, 180]), ("email", "EditText", "", [60, 600, 1020, 720])],
            ),
        ),
    ];
    let (delete, sign_out, ok) = (
        "{\"type\": \"tap\", \"x\": 280.0, \"y\": 660.0}",
        "{\"type\": \"tap\", \"x\": 800.0, \"y\": 660.0}",
        "{\"type\": \"tap\", \"x\": 900.0, \"y\": 1260.0}",
    );
    let mut steps = Vec::new();
    for _ in 0..2 {
        for (opener, end) in [(delete, "bin.xml"), (sign_out, "sign_in.xml")] {
            steps.extend([("home.xml", opener), ("confirm.xml", ok), (end, BACK)]);
        }
    }
    let trace = uiautomator_trace(dir, &screens, &steps, "home.xml");
    let out = dir.join("app");
    let r = reconstruct(&[trace], &out, &ReconOptions::default()).unwrap();
    (out, r)
}

/// The confirmation's OK leads where the opener's flow goes (to the bin after Delete, to the
/// sign-in after Sign out), as the traces showed each time.
#[test]
fn a_control_leads_where_it_led_after_the_control_that_opened_its_screen() {
    let (out, r) = confirmation_app(&scratch("routes"));
    let main_lua = std::fs::read_to_string(out.join("main.lua")).unwrap();
    assert!(main_lua.contains("local opener = ev.params.opener"), "{main_lua}");
    // Every step of the trace replays: OK is right after both openers.
    let f = &r.fidelity[0];
    assert_eq!((f.succeeded, f.judged), (f.judged, 12), "{f:?}");
    let mut d = device(&out);
    d.step(&Action::OpenApp { app: "com.example.files".into() });
    let home = d.foreground().1;
    for (opener, end) in [("sign_out", "Sign in"), ("delete", "Bin"), ("sign_out", "Sign in")] {
        tap_id(&mut d, opener);
        tap_id(&mut d, "ok");
        assert!(d.ui_elements().iter().any(|e| e.text.as_deref() == Some(end)), "after `{opener}`: {:?}", d.foreground());
        d.step(&Action::Key { key: phoneworld_data::Key::Back });
        assert_eq!(d.foreground().1, home);
    }
}

/// Cancel, never used in the trace, closes the dialog onto the screen that opened it, as a
/// dialog's buttons do; nothing else changes.
#[test]
fn a_dialogs_unused_button_closes_it() {
    let (out, _) = confirmation_app(&scratch("closes"));
    let mut d = device(&out);
    d.step(&Action::OpenApp { app: "com.example.files".into() });
    let home = d.foreground().1;
    let data = phoneworld_tasks::app_data(&d);
    tap_id(&mut d, "delete");
    assert_ne!(d.foreground().1, home);
    tap_id(&mut d, "cancel");
    assert_eq!(d.foreground().1, home);
    assert_eq!(phoneworld_tasks::app_data(&d), data);
}

/// An export through another app's file picker: the menu's Export opens the picker, its Save
/// hands the file back and the app asks how to export it. Back from there, and from the picker,
/// went to the notes every time, never to the picker or the menu: both are gone once they led on.
#[test]
fn another_apps_picker_and_the_menu_that_opened_it_are_gone_once_they_led_on() {
    const FULL: [u32; 4] = [0, 0, 1080, 2400];
    let dir = scratch("handed-back");
    let screens = [
        (
            "home.xml",
            files_screen(FULL, &[("title", "TextView", "Files", [48, 100, 600, 180]), ("more", "ImageButton", "", [940, 90, 1040, 190])]),
        ),
        (
            "menu.xml",
            files_screen(
                [600, 90, 1060, 400],
                &[("title", "TextView", "Export", [620, 110, 1040, 200]), ("title", "TextView", "About", [620, 220, 1040, 310])],
            ),
        ),
        (
            "picker.xml",
            window_xml(
                "com.android.documentsui",
                FULL,
                &[("save", "Button", "Save", [780, 2200, 1020, 2320]), ("name", "EditText", "notes.txt", [60, 300, 1020, 420])],
            ),
        ),
        (
            "how.xml",
            files_screen(
                [40, 900, 1040, 1400],
                &[("message", "TextView", "Export as", [60, 1000, 1020, 1100]), ("ok", "Button", "OK", [780, 1200, 1020, 1320])],
            ),
        ),
    ];
    let (more, export, save) = (
        "{\"type\": \"tap\", \"x\": 990.0, \"y\": 140.0}",
        "{\"type\": \"tap\", \"x\": 830.0, \"y\": 155.0}",
        "{\"type\": \"tap\", \"x\": 900.0, \"y\": 2260.0}",
    );
    // Once the person backs out of the picker: to the notes, not to the menu.
    let mut steps = vec![("home.xml", more), ("menu.xml", export), ("picker.xml", BACK)];
    for _ in 0..2 {
        steps.extend([("home.xml", more), ("menu.xml", export), ("picker.xml", save), ("how.xml", BACK)]);
    }
    let trace = uiautomator_trace(&dir, &screens, &steps, "home.xml");
    let out = dir.join("app");
    let r = reconstruct(&[trace], &out, &ReconOptions::default()).unwrap();
    let f = &r.fidelity[0];
    assert_eq!((f.succeeded, f.judged), (f.judged, 11), "{f:?}");
    let mut d = device(&out);
    d.step(&Action::OpenApp { app: "com.example.files".into() });
    let home = d.foreground().1;
    tap_id(&mut d, "more");
    tap_id(&mut d, "title");
    tap_id(&mut d, "save");
    assert!(d.ui_elements().iter().any(|e| e.text.as_deref() == Some("Export as")), "{:?}", d.foreground());
    d.step(&Action::Key { key: phoneworld_data::Key::Back });
    assert_eq!(d.foreground().1, home);
}

/// A search icon that, tapped, shows a search field on the same screen (the notes list stays):
/// the rebuilt screen hides the field until the icon is tapped, and its tasks tap the icon
/// before typing.
#[test]
fn a_field_a_tap_opened_in_place_shows_after_that_tap() {
    const FULL: [u32; 4] = [0, 0, 1080, 2400];
    let notes: Vec<(&str, &str, &str, [u32; 4])> = (0..5)
        .map(|i| {
            (
                "note",
                "TextView",
                ["Groceries", "Ideas", "Trips", "Books", "Films"][i],
                [48, 400 + 200 * i as u32, 1020, 560 + 200 * i as u32],
            )
        })
        .collect();
    let screen = |searching: bool| {
        let mut nodes = vec![("title", "TextView", "Notes", [48, 100, 600, 180]), ("open_search", "ImageButton", "", [900, 90, 1020, 190])];
        if searching {
            nodes.push(("search_query", "EditText", "", [48, 200, 860, 300]));
        }
        nodes.extend(notes.iter().copied());
        files_screen(FULL, &nodes)
    };
    let search = "{\"type\": \"tap\", \"x\": 960.0, \"y\": 140.0}";
    let steps = [("list.xml", search), ("searching.xml", BACK), ("list.xml", search)];
    let dir = scratch("in_place");
    let trace = uiautomator_trace(&dir, &[("list.xml", screen(false)), ("searching.xml", screen(true))], &steps, "searching.xml");
    let out = dir.join("app");
    let r = reconstruct(&[trace], &out, &ReconOptions::default()).unwrap();
    assert_eq!(r.model.screens.iter().filter(|s| s.id != "launcher").count(), 1, "one screen, searching or not");
    let mut d = device(&out);
    d.step(&Action::OpenApp { app: "com.example.files".into() });
    assert!(!d.ui_xml().contains(":id/search_query\""), "hidden until the icon is tapped");
    tap_id(&mut d, "open_search");
    assert!(d.ui_xml().contains(":id/search_query\""), "shown once it is");
    let typing =
        r.tasks.iter().find(|t| t.id.ends_with("search_query")).unwrap_or_else(|| panic!("{:?} left out: {:?}", r.tasks, r.tasks_left_out));
    let task = std::fs::read_to_string(&typing.file).unwrap();
    assert!(task.contains("Tap(\"open_search\"), Fill(\"search_query\""), "{task}");
}

/// A touch recorded off the screen (a view scrolled out of it, as DroidBot touches) reaches
/// nothing on the phone: in self-replay the rebuilt phone stays where it is rather than having
/// the touch moved onto its navigation bar's home button.
#[test]
fn a_touch_off_the_screen_replays_as_nothing() {
    const FULL: [u32; 4] = [0, 0, 1080, 2400];
    let dir = scratch("off_screen");
    let screens = [
        (
            "home.xml",
            files_screen(FULL, &[("title", "TextView", "Files", [48, 100, 600, 180]), ("open", "Button", "Open", [60, 600, 500, 720])]),
        ),
        ("file.xml", files_screen(FULL, &[("file_title", "TextView", "Report", [48, 100, 600, 180])])),
    ];
    let (off_screen, open) = ("{\"type\": \"tap\", \"x\": 540.0, \"y\": 5000.0}", "{\"type\": \"tap\", \"x\": 280.0, \"y\": 660.0}");
    let steps = [("home.xml", off_screen), ("home.xml", open), ("file.xml", BACK), ("home.xml", off_screen)];
    let trace = uiautomator_trace(&dir, &screens, &steps, "home.xml");
    let r = reconstruct(&[trace], &dir.join("app"), &ReconOptions::default()).unwrap();
    let f = &r.fidelity[0];
    assert_eq!((f.succeeded, f.judged), (4, 4), "{f:?}");
}
