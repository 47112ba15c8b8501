//! The bundled task suite proves itself, and malformed task files are reported clearly.

use std::path::Path;

use phoneworld_phone::project_root;
use phoneworld_tasks::{evaluate, parse_template, verify_suite, AgentKind, Suite, TaskError};
use phoneworld_tests::catalog;

fn suite() -> Suite {
    Suite::load(&project_root().join("verifiers/phoneworld-v0"), &catalog()).expect("the bundled suite loads")
}

#[test]
fn every_template_passes_with_its_solution_and_fails_without() {
    let suite = suite();
    assert!(!suite.templates.is_empty());
    let problems = verify_suite(catalog(), &suite, 5).unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_oracle_scores_one_and_doing_nothing_scores_zero() {
    let suite = suite();
    let oracle = evaluate(catalog(), &suite, AgentKind::Oracle, 2, None).unwrap();
    assert_eq!(oracle.success_rate, 1.0, "{:#?}", oracle.failures);
    let noop = evaluate(catalog(), &suite, AgentKind::Noop, 2, None).unwrap();
    assert_eq!(noop.success_rate, 0.0);
    assert_eq!(oracle.suite_hash, noop.suite_hash);
    assert_eq!(oracle.apps_hash, catalog().hash);
}

fn parse_err(text: &str) -> String {
    parse_template(Path::new("verifiers/x/broken.ron"), text).unwrap_err().to_string()
}

#[test]
fn malformed_task_files_name_the_file_line_and_field() {
    let err = parse_err("Task(\n  id: \"x\",\n  category: \"app\",\n  apps: [\"a\"],\n  instructions: \"typo\",\n)");
    assert!(err.starts_with("verifiers/x/broken.ron:5:"), "{err}");
    assert!(err.contains("instructions"), "{err}");
    let err = parse_err("Task(id: \"x\", category: \"web\", apps: [], instruction: \"\", success: [], solution: [])");
    assert!(err.contains("category `web`: expected app, mini_app or cross_app"), "{err}");
    let err = parse_err("Task(id: \"x\", category: \"app\", apps: [], instruction: \"\", success: [Exists(app: \"a\")], solution: [])");
    assert!(err.contains("verifiers/x/broken.ron:1:") && err.contains("path"), "{err}");
    match Suite::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tasks/bad"), &catalog()) {
        Err(e @ TaskError::Field { .. }) => {
            let text = e.to_string();
            assert!(text.contains("unknown_app.ron: field `apps[0]`: `com.phoneworld.nowhere` is not installed"), "{text}");
        }
        other => panic!("expected a field error, got {other:?}"),
    }
}

#[test]
fn a_list_position_counted_from_zero_is_refused_at_its_line_naming_the_one_meant() {
    let dir = std::env::temp_dir().join(format!("phoneworld-zero-position-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let task = "Task(\n    id: \"zero\",\n    category: \"app\",\n    apps: [\"com.phoneworld.email\"],\n    instruction: \"Reply.\",\n    \
                success: [\n        Answer(\"ok\"),\n        Contains(app: \"com.phoneworld.email\", path: \"emails.0.body\", text: \"hi\"),\n    ],\n    \
                solution: [Open(\"Email\")],\n)\n";
    std::fs::write(dir.join("zero.ron"), task).unwrap();
    let err = Suite::load(&dir, &catalog()).expect_err("position 0 is refused").to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(err.contains("zero.ron:8:9: field `success[1]`"), "{err}");
    assert!(err.contains("`emails.0.body`: list positions count from 1, so `0` names no element (the first is `emails.1`)"), "{err}");
}

#[test]
fn the_task_catalog_is_current() {
    let expected = phoneworld_tasks::catalog_markdown(catalog(), &suite()).unwrap();
    let path = project_root().join("docs/tasks.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == expected, "docs/tasks.md is out of date: regenerate it with `phoneworld tasks --markdown > docs/tasks.md`");
}

#[test]
fn every_allowance_is_narrower_than_the_apps_it_touches() {
    let catalog = catalog();
    let device = phoneworld_phone::Device::new(catalog.clone(), phoneworld_phone::DeviceConfig::default()).unwrap();
    let mut wide = Vec::new();
    for t in &suite().templates {
        let mut by_app: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        for allow in &t.allow {
            let (app, path) = allow.split_once(':').expect("suite validation checks the form");
            assert!(!path.trim().is_empty(), "{}: `{allow}` allows the whole of {app}", t.id);
            // Only a bare key (no deeper path, no `+`/`-`) allows everything under that key.
            if !path.contains('.') && !path.ends_with('+') && !path.ends_with('-') {
                by_app.entry(app).or_default().push(path);
            } else {
                by_app.entry(app).or_default();
            }
        }
        for (app, keys) in by_app {
            let data = if app == "system" { device.store().system.clone() } else { (*device.store().apps[app]).clone() };
            let all: Vec<&String> = data.as_object().map(|m| m.keys().collect()).unwrap_or_default();
            let covered = all.iter().filter(|k| keys.contains(&k.as_str())).count();
            if covered == all.len() {
                wide.push(format!("{}: the allowance covers every part of {app}'s data ({keys:?})", t.id));
            }
        }
    }
    assert!(wide.is_empty(), "{}", wide.join("\n"));
}

#[test]
fn a_task_start_snapshots_small() {
    let catalog = catalog();
    let mut largest = (0, String::new());
    for t in &suite().templates {
        let instance = phoneworld_tasks::Instance::new(t.clone(), 0, &catalog).unwrap();
        let bytes = instance.device(catalog.clone()).unwrap().snapshot().len();
        if bytes > largest.0 {
            largest = (bytes, t.id.clone());
        }
    }
    println!("largest task-start snapshot: {} bytes ({})", largest.0, largest.1);
    assert!(largest.0 <= 64 * 1024, "{} bytes at the start of {}", largest.0, largest.1);
}
