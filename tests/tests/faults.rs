//! Broken apps give clear errors naming the file and line, and the phone keeps working.

use std::path::PathBuf;
use std::sync::Arc;

use phoneworld_data::{Action, LayoutModules, LuaLibrary};
use phoneworld_phone::{check_app, project_root, Catalog, Device, DeviceConfig};

fn faults() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/faults")
}

fn catalog() -> Arc<Catalog> {
    let root = project_root();
    Catalog::load(&[root.join("apps"), faults()], &[root.join("layouts")]).expect("catalog loads despite broken apps")
}

fn modules() -> LayoutModules {
    let (modules, errors) = LayoutModules::load(&[project_root().join("layouts")]);
    assert!(errors.is_empty(), "{errors:?}");
    modules
}

fn tap_label(device: &mut Device, label: &str) -> phoneworld_phone::StepResult {
    let element =
        device.ui_elements().into_iter().find(|e| e.text.as_deref() == Some(label)).unwrap_or_else(|| panic!("no {label:?} on screen"));
    let b = element.bbox_pixels.expect("pixels");
    device.step(&Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 })
}

/// Runs the faulty handler behind `button`, checks the error, and that the app still counts.
fn assert_stopped_and_alive(app: &str, button: &str, message: &str, line: u32) {
    let mut device = Device::new(catalog(), DeviceConfig::default()).unwrap();
    device.step(&Action::OpenApp { app: app.into() });
    let package = format!("com.phoneworld.test.{}", app_dir(app));
    let before = device.store().apps[&package].clone();
    let result = tap_label(&mut device, button);
    assert_eq!(result.script_errors.len(), 1, "{result:?}");
    let err = &result.script_errors[0];
    assert_eq!(err.app, package);
    assert_eq!(err.file, "main.lua");
    assert!(err.message.contains(message), "{err}");
    assert_eq!(err.line, Some(line), "{err}");
    assert_eq!(*device.store().apps[&package], *before, "a failed event changes nothing");
    let result = tap_label(&mut device, "Count");
    assert!(result.script_errors.is_empty(), "{result:?}");
    assert_eq!(device.store().apps[&package]["count"], 1);
    // And the rest of the phone too.
    device.step(&Action::OpenApp { app: "Settings".into() });
    assert_eq!(device.foreground().0, "com.phoneworld.settings");
}

fn app_dir(label: &str) -> &'static str {
    match label {
        "Loop" => "endless_loop",
        "Hog" => "unbounded_alloc",
        "Missing" => "missing_handler",
        other => panic!("unknown fixture {other}"),
    }
}

#[test]
fn an_endless_loop_is_stopped() {
    assert_stopped_and_alive("Loop", "Spin", "instruction budget", 8);
}

#[test]
fn unbounded_allocation_is_stopped() {
    let mut device = Device::new(catalog(), DeviceConfig::default()).unwrap();
    device.step(&Action::OpenApp { app: "Hog".into() });
    let result = tap_label(&mut device, "Hog");
    let err = &result.script_errors[0];
    assert_eq!((err.app.as_str(), err.file.as_str()), ("com.phoneworld.test.unbounded_alloc", "main.lua"));
    assert!(err.message.contains("memory") || err.message.contains("instruction budget"), "{err}");
    assert!(tap_label(&mut device, "Count").script_errors.is_empty());
    assert_eq!(device.store().apps["com.phoneworld.test.unbounded_alloc"]["count"], 1);
}

#[test]
fn a_missing_handler_is_reported_by_check_and_at_run_time() {
    let problems = check_app(&faults().join("missing_handler"), &modules(), &LuaLibrary::default());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].file.ends_with("missing_handler/screens/main.ron"));
    assert_eq!(problems[0].line, Some(6));
    assert!(problems[0].message.contains("handler `does_not_exist` is not defined"), "{}", problems[0]);

    let mut device = Device::new(catalog(), DeviceConfig::default()).unwrap();
    device.step(&Action::OpenApp { app: "Missing".into() });
    let result = tap_label(&mut device, "Ghost");
    assert!(result.script_errors[0].message.contains("no handler function `does_not_exist`"), "{result:?}");
    assert!(tap_label(&mut device, "Count").script_errors.is_empty());
}

#[test]
fn a_lua_syntax_error_names_file_and_line() {
    let problems = check_app(&faults().join("lua_syntax"), &modules(), &LuaLibrary::default());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].file.ends_with("lua_syntax/main.lua"), "{}", problems[0]);
    assert_eq!(problems[0].line, Some(8));
    assert!(problems[0].message.contains("')' expected"), "{}", problems[0]);
    // The broken app is left out; every other app installs and runs.
    let catalog = catalog();
    let (dir, err) = catalog.broken.iter().find(|(d, _)| d.ends_with("lua_syntax")).expect("reported as broken");
    assert!(err.to_string().contains("main.lua:8"), "{}: {err}", dir.display());
    assert!(catalog.find("Syntax").is_none());
    let mut device = Device::new(catalog, DeviceConfig::default()).unwrap();
    assert!(device.step(&Action::OpenApp { app: "Clock".into() }).ok);
}

#[test]
fn a_ron_error_names_file_line_and_field() {
    let problems = check_app(&faults().join("ron_error"), &modules(), &LuaLibrary::default());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].file.ends_with("ron_error/screens/main.ron"));
    assert_eq!(problems[0].line, Some(4));
    assert!(problems[0].message.contains("`colour`"), "{}", problems[0]);
    let catalog = catalog();
    let (_, err) = catalog.broken.iter().find(|(d, _)| d.ends_with("ron_error")).expect("reported as broken");
    assert!(err.to_string().contains("screens/main.ron:4"), "{err}");
}

#[test]
fn the_bundled_apps_pass_check() {
    let modules = modules();
    let (library, errors) = LuaLibrary::load(&[project_root().join("lib")]);
    assert!(errors.is_empty(), "{errors:?}");
    for dir in phoneworld_phone::app_dirs(&project_root().join("apps")) {
        let problems = check_app(&dir, &modules, &library);
        assert!(problems.is_empty(), "{}: {problems:#?}", dir.display());
    }
}

/// `check` places problems through each layout's outline: every bundled screen and module
/// must be one it can follow, widget for widget.
#[test]
fn every_bundled_layout_can_be_outlined() {
    let mut files: Vec<std::path::PathBuf> =
        std::fs::read_dir(project_root().join("layouts")).unwrap().map(|e| e.unwrap().path()).collect();
    for dir in phoneworld_phone::app_dirs(&project_root().join("apps")) {
        files.extend(std::fs::read_dir(dir.join("screens")).unwrap().map(|e| e.unwrap().path()));
    }
    assert!(files.len() > 100, "{} layouts", files.len());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let outline = phoneworld_data::Outline::parse(&text).unwrap_or_else(|| panic!("{} cannot be outlined", file.display()));
        assert!(outline.field("root").is_some(), "{}: no root", file.display());
    }
}
