//! Bad input gives an error naming the file and the line or field; nothing panics, even
//! on truncated or corrupted files of every format.

mod common;

use std::path::Path;

use common::{copy_dir, files_below, fixture, scratch};
use phoneworld_data::Rng;
use phoneworld_reconstruct::import::{import, TraceFormat};

fn error_of(path: &Path) -> String {
    match import(path, None) {
        Ok(t) => panic!("{} imported ({} steps) but should not", path.display(), t.steps.len()),
        Err(e) => e.to_string(),
    }
}

/// A copy of a fixture to break.
fn broken(name: &str, case: &str) -> std::path::PathBuf {
    let dir = scratch(&format!("{name}-{case}"));
    copy_dir(&fixture(name), &dir);
    dir
}

#[test]
fn missing_paths_and_unknown_formats() {
    let e = error_of(Path::new("/no/such/trace"));
    assert!(e.contains("/no/such/trace") && e.contains("no such file"), "{e}");
    let dir = scratch("not-a-trace");
    std::fs::write(dir.join("readme.txt"), "hello").unwrap();
    let e = error_of(&dir);
    assert!(e.contains("not a known trace"), "{e}");
    let e = TraceFormat::parse("appium").unwrap_err().to_string();
    assert!(e.contains("appium") && e.contains("droidbot") && e.contains("rico"), "{e}");
}

#[test]
fn truncated_droidbot_event_names_file_and_line() {
    let dir = broken("droidbot", "truncated");
    let file = dir.join("events/event_2024-01-01_110003.json");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, &text[..text.len() / 2]).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("event_2024-01-01_110003.json:") && e.contains("EOF"), "{e}");
}

#[test]
fn unknown_droidbot_event_type_names_the_field() {
    let dir = broken("droidbot", "event-type");
    let file = dir.join("events/event_2024-01-01_110002.json");
    let text = std::fs::read_to_string(&file).unwrap().replace("\"touch\"", "\"teleport\"");
    std::fs::write(&file, text).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("event_2024-01-01_110002.json") && e.contains("event.event_type") && e.contains("teleport"), "{e}");
}

#[test]
fn droidbot_bounds_that_do_not_parse_name_the_node() {
    let dir = broken("droidbot", "bounds");
    let file = dir.join("states/state_2024-01-01_100000.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    v["views"][3]["bounds"] = serde_json::json!("[0,0][10,10]");
    std::fs::write(&file, v.to_string()).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("state_2024-01-01_100000.json") && e.contains("views[3].bounds"), "{e}");
}

#[test]
fn uiautomator_bad_bounds_and_bad_actions_name_file_and_line() {
    let dir = broken("uiautomator", "bounds");
    let file = dir.join("settings.xml");
    let text = std::fs::read_to_string(&file).unwrap().replacen("bounds=\"[48,300][1032,420]\"", "bounds=\"[48,300][wide,420]\"", 1);
    std::fs::write(&file, text).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("settings.xml:1") && e.contains("bounds") && e.contains("wide"), "{e}");

    let dir = broken("uiautomator", "action");
    let file = dir.join("actions.jsonl");
    let text = std::fs::read_to_string(&file).unwrap().replacen("\"type\": \"key\"", "\"type\": \"shake\"", 1);
    std::fs::write(&file, text).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("actions.jsonl:7") && e.contains("action"), "{e}");

    let dir = broken("uiautomator", "xml");
    std::fs::write(dir.join("editor.xml"), "<?xml version='1.0'?><hierarchy><node bounds=\"[0,0][1,1]\">").unwrap();
    let e = error_of(&dir);
    assert!(e.contains("editor.xml:1") && e.contains("malformed XML"), "{e}");
}

#[test]
fn llamatouch_unknown_action_names_the_line() {
    let dir = broken("llamatouch", "action");
    let file = dir.join("eventStructs.txt");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text = text.replacen("[Input] Milk", "[Shake] twice", 1);
    std::fs::write(&file, text).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("eventStructs.txt:3") && e.contains("[Shake]"), "{e}");
}

#[test]
fn rico_bad_gestures_and_bounds_name_the_field() {
    let dir = broken("rico", "gesture");
    std::fs::write(dir.join("gestures.json"), r#"{"10": [[0.5, "x"]], "12": []}"#).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("gestures.json") && e.contains("10[0]"), "{e}");

    let dir = broken("rico", "bounds");
    let file = dir.join("view_hierarchies/12.json");
    let text = std::fs::read_to_string(&file).unwrap().replacen("\"bounds\": [", "\"bounds\": [\"left\", ", 1);
    std::fs::write(&file, text).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("12.json") && e.contains("activity.root.bounds"), "{e}");
}

#[test]
fn phoneworld_bad_step_names_the_line() {
    let dir = broken("phoneworld", "step");
    let file = dir.join("steps.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[2] = lines[2].replacen("\"type\":\"key\"", "\"type\":\"levitate\"", 1);
    std::fs::write(&file, lines.join("\n")).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("steps.jsonl:3") && e.contains("action"), "{e}");
}

/// Every file of every fixture, truncated at many points and with bytes flipped: the
/// importer answers with a trace or an error, never a panic.
#[test]
fn corrupted_files_never_panic() {
    let mut rng = Rng::new(7);
    let mut errors = 0;
    let mut runs = 0;
    for name in common::FORMATS {
        let files = files_below(&fixture(name));
        for (k, rel) in files.iter().enumerate() {
            // Large fixtures: a few files each, chosen by the seeded generator.
            if files.len() > 6 && rng.below(files.len()) > 5 && k != 0 {
                continue;
            }
            let original = std::fs::read(fixture(name).join(rel)).unwrap();
            for variant in 0..8 {
                let dir = broken(name, "fuzz");
                let mut bytes = original.clone();
                if variant < 4 {
                    let cut = rng.below(bytes.len().max(1));
                    bytes.truncate(cut);
                } else {
                    for _ in 0..1 + rng.below(6) {
                        if bytes.is_empty() {
                            break;
                        }
                        let at = rng.below(bytes.len());
                        const NOISE: &[u8] = b"{}[]\",:0-x\n\xff<>/";
                        bytes[at] = NOISE[rng.below(NOISE.len())];
                    }
                }
                std::fs::write(dir.join(rel), &bytes).unwrap();
                runs += 1;
                if let Err(e) = import(&dir, None) {
                    errors += 1;
                    assert!(!e.to_string().is_empty());
                }
            }
        }
    }
    assert!(runs > 100, "{runs} corrupted traces");
    assert!(errors > runs / 4, "corruption was noticed in only {errors} of {runs} runs");
}
