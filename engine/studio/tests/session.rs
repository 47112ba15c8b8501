//! The studio's session on a copy of the tutorial's app: a reload keeps the phone's state when
//! it can and says so when it cannot, and a task recorded by doing it plays back to success.

use std::path::{Path, PathBuf};

use phoneworld_data::Action;
use phoneworld_studio::{Session, StudioOptions};
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// A copy of examples/tally in a folder of its own.
fn tally(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("phoneworld-studio-{name}-{}", std::process::id())).join("tally");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("screens")).unwrap();
    for file in ["app.ron", "main.lua", "screens/main.ron"] {
        std::fs::copy(root().join("examples/tally").join(file), dir.join(file)).unwrap();
    }
    dir
}

fn open(dir: &Path) -> Session {
    Session::open(StudioOptions { app_dirs: vec![dir.to_path_buf()], root: root(), seed: 0, appearance: "default".into() }).unwrap()
}

fn tap_text(session: &mut Session, text: &str) {
    let panels = session.panels();
    let element = panels["elements"].as_array().unwrap().iter().find(|e| e["text"] == text).unwrap_or_else(|| panic!("no `{text}`"));
    let b = &element["bbox_pixels"];
    let (x, y) = (
        (b["x_min"].as_f64().unwrap() + b["x_max"].as_f64().unwrap()) / 2.0,
        (b["y_min"].as_f64().unwrap() + b["y_max"].as_f64().unwrap()) / 2.0,
    );
    assert!(session.act(&Action::Tap { x, y }).ok);
}

fn edit(path: &Path, old: &str, new: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(old), "{old}");
    std::fs::write(path, text.replace(old, new)).unwrap();
}

fn count(session: &mut Session) -> Value {
    session.panels()["state"]["com.example.tally"]["count"].clone()
}

#[test]
fn a_reload_keeps_the_state_unless_the_initial_data_or_the_screen_shown_is_gone() {
    let dir = tally("reload");
    let mut session = open(&dir);
    assert_eq!(session.panels()["foreground"]["screen"], "main", "the studio opens the author's app");
    tap_text(&mut session, "Add one");
    assert_eq!(count(&mut session), json!(1));

    edit(&dir.join("screens/main.ron"), "\"Add one\"", "\"Add 1\"");
    session.reload(&[dir.join("screens/main.ron")]);
    let panels = session.panels();
    assert_eq!(panels["notice"], "main.ron changed: reloaded, state kept");
    assert_eq!(count(&mut session), json!(1));
    tap_text(&mut session, "Add 1");
    assert_eq!(count(&mut session), json!(2));

    // A version that does not load leaves the phone as it was and names the problem.
    edit(&dir.join("main.lua"), "function add(ev)", "function add(ev");
    session.reload(&[dir.join("main.lua")]);
    let panels = session.panels();
    assert!(panels["notice"].as_str().unwrap().contains("not reloaded"), "{}", panels["notice"]);
    let problem = panels["problems"][0].to_string();
    assert!(problem.contains("main.lua") && problem.contains("\"line\":5"), "{problem}");
    assert_eq!(count(&mut session), json!(2));
    edit(&dir.join("main.lua"), "function add(ev", "function add(ev)");

    // New initial data: the app's data starts from it, and the notice says why.
    edit(&dir.join("app.ron"), "\"count\": 0", "\"count\": 10");
    session.reload(&[dir.join("app.ron"), dir.join("main.lua")]);
    assert!(session.panels()["notice"].as_str().unwrap().contains("Tally's data started afresh: its initial data changed"));
    assert_eq!(count(&mut session), json!(10));
    assert_eq!(session.panels()["problems"], json!([]));

    // A refused action is not recorded.
    session.record_start().unwrap();
    assert!(!session.act(&Action::OpenApp { app: "com.example.nope".into() }).ok);
    assert_eq!(session.panels()["desk"]["recording"]["steps"], json!(["Open(\"Tally\")"]));

    // The app's package renamed: its old back stack has no app, so a fresh phone (and the
    // recording made on the old one ends).
    edit(&dir.join("app.ron"), "com.example.tally", "com.example.tally2");
    session.reload(&[dir.join("app.ron")]);
    let panels = session.panels();
    assert!(panels["notice"].as_str().unwrap().contains("`com.example.tally` is not installed any more"), "{}", panels["notice"]);
    assert_eq!(panels["desk"]["recording"], Value::Null);
    edit(&dir.join("app.ron"), "com.example.tally2", "com.example.tally");
    session.reload(&[dir.join("app.ron")]);
    assert!(session.act(&Action::OpenApp { app: "Tally".into() }).ok);

    // The screen on show renamed away: a fresh phone.
    std::fs::rename(dir.join("screens/main.ron"), dir.join("screens/home.ron")).unwrap();
    edit(&dir.join("app.ron"), "entry: \"main\"", "entry: \"home\"");
    session.reload(&[dir.join("screens/home.ron")]);
    assert!(session.panels()["notice"].as_str().unwrap().contains("the phone started afresh: Tally has no screen `main` any more"));
}

#[test]
fn a_task_recorded_by_doing_it_is_saved_verified_and_played_back_to_success() {
    let dir = tally("record");
    let mut session = open(&dir);
    session.record_start().unwrap();
    tap_text(&mut session, "Add one");
    tap_text(&mut session, "Add one");
    let offers = session.record_stop().unwrap();
    let checks: Vec<&str> = offers.iter().map(|o| o.check.as_str()).collect();
    assert_eq!(
        checks,
        vec![
            r#"Equals(app: "com.example.tally", path: "count", value: 2)"#,
            r#"Count(app: "com.example.tally", path: "history", equals: 2)"#
        ]
    );
    let file = session.record_save("tally_twice", "Add two to the tally", &[0]).unwrap();
    assert_eq!(file, dir.join("verifiers/tally/tally_twice.ron"));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("solution: [\n        Open(\"Tally\"),\n        Tap(\"Add one\"),\n        Tap(\"Add one\"),\n    ]"), "{text}");

    // Taken ids, and braces (a task file's parameter holes), are refused with the reason.
    let taken = session.record_save("tally_twice", "again", &[0]).unwrap_err().to_string();
    assert!(taken.contains("not recording"), "{taken}");
    session.record_start().unwrap();
    tap_text(&mut session, "Add one");
    session.record_stop().unwrap();
    tap_text(&mut session, "Add one");
    assert_eq!(session.panels()["desk"]["recording"]["steps"], json!(["Open(\"Tally\")", "Tap(\"Add one\")"]), "Stop ends it");
    let braces = session.record_save("tally_once", "Add {one}", &[0]).unwrap_err().to_string();
    assert!(braces.contains("the instruction holds `{` or `}`"), "{braces}");
    let taken = session.record_save("tally_twice", "Add one", &[0]).unwrap_err().to_string();
    assert!(taken.contains("`tally_twice` is a task of suite `tally` already"), "{taken}");

    let verified = session.verify("tally_twice", 2).unwrap();
    assert_eq!(verified["ok"], json!(true), "{verified}");

    session.play_start("tally_twice", 0).unwrap();
    let mut last = Value::Null;
    for _ in 0..4 {
        last = session.play_step().unwrap();
    }
    assert_eq!(last["success"], json!(true), "{last}");
    assert_eq!(last["checks"][0]["holds"], json!(true));
    assert_eq!(last["ended"], json!("the solution is done"));
}
