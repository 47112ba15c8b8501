//! The snapshot property over generated handlers: for apps whose Lua comes from the grammar of
//! the sandbox API, restoring a snapshot and taking K steps gives the same state and frame
//! hashes, step by step, as going on for K steps. Nothing a handler could hide outside the
//! store (upvalues, globals, library tables, finalizers) may make the two differ.

use std::path::Path;

use phoneworld_data::{Action, Key};
use phoneworld_fuzz::choices::{seeded_bytes, Choices};
use phoneworld_fuzz::lua_grammar::{self, HANDLERS};
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};

const PROGRAMS: u64 = 16;
const BEFORE: usize = 12;
const AFTER: usize = 10;

fn write_app(dir: &Path, source: &str) {
    std::fs::create_dir_all(dir.join("screens")).unwrap();
    std::fs::write(
        dir.join("app.ron"),
        r#"App(package: "com.fuzz.app", label: "Fuzz", entry: "main", scripts: ["main.lua"], state: { "list": [], "text": "" })"#,
    )
    .unwrap();
    let buttons: Vec<String> = HANDLERS.iter().map(|h| format!("Button(text: \"{}\", on_tap: \"{h}\")", h.to_uppercase())).collect();
    std::fs::write(
        dir.join("screens/main.ron"),
        format!(
            r#"Screen(title: "Fuzz", root: Column(padding: 16, gap: 8, children: [
                Text(text: "{{state.a}} {{state.counter}} {{state.v}} {{state.n}}"),
                Row(gap: 8, children: [{}]),
                TextField(value: "state.text", hint: "Text"),
                List(items: "{{state.list}}", row: Text(text: "{{item}}")),
            ]))"#,
            buttons.join(", ")
        ),
    )
    .unwrap();
    std::fs::write(dir.join("screens/detail.ron"), r#"Screen(title: "Detail", root: Text(text: "{params.k}"))"#).unwrap();
    std::fs::write(dir.join("main.lua"), source).unwrap();
}

/// An action chosen by the seed: a handler's button when it is on screen, else something an
/// agent would do anyway.
fn action(device: &mut Device, c: &mut Choices<'_>) -> Action {
    let elements = device.ui_elements();
    let labels = ["H1", "H2", "H3", "H4", "OK", "Go", "Undo", "A"];
    let wanted = *c.pick(&labels);
    if c.below(4) > 0 {
        if let Some(b) = elements.iter().find(|e| e.text.as_deref() == Some(wanted)).and_then(|e| e.bbox_pixels) {
            return Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 };
        }
    }
    match c.below(5) {
        0 => Action::Key { key: Key::Back },
        1 => Action::Wait { ms: 1500 },
        2 => Action::TypeText { text: "hi".into(), clear: false },
        3 => Action::Swipe { x1: 540.0, y1: 1800.0, x2: 540.0, y2: 700.0, ms: 300 },
        _ => Action::OpenApp { app: "Fuzz".into() },
    }
}

fn observed(device: &mut Device) -> (String, String) {
    (device.state_hash(), device.frame_hash())
}

#[test]
fn restoring_a_snapshot_then_k_steps_equals_going_on_k_steps() {
    let root = std::env::temp_dir().join(format!("phoneworld-restore-property-{}", std::process::id()));
    for seed in 0..PROGRAMS {
        let bytes = seeded_bytes(seed, 600);
        let source = lua_grammar::program(&mut Choices::new(&bytes));
        let dir = root.join(format!("app{seed}"));
        write_app(&dir, &source);
        let catalog = Catalog::load(std::slice::from_ref(&dir), &[project_root().join("layouts")]).expect("the generated app loads");
        let config = DeviceConfig { seed, ..DeviceConfig::default() };
        let mut device = Device::new(catalog.clone(), config).unwrap();
        let script = seeded_bytes(seed ^ 0xA5A5, 256);
        let mut choices = Choices::new(&script);
        device.step(&Action::OpenApp { app: "Fuzz".into() });
        for _ in 0..BEFORE {
            let a = action(&mut device, &mut choices);
            device.step(&a);
        }
        let snapshot = device.snapshot();
        let mut restored = Device::restore(catalog, &snapshot, config.limits).expect("its own snapshot restores");
        assert_eq!(observed(&mut restored), observed(&mut device), "seed {seed}: restored at once\n{source}");
        for k in 0..AFTER {
            let a = action(&mut device, &mut choices);
            let on = device.step(&a);
            let again = restored.step(&a);
            assert_eq!(on.script_errors, again.script_errors, "seed {seed}, step {k} after the snapshot ({a:?})\n{source}");
            assert_eq!(observed(&mut restored), observed(&mut device), "seed {seed}, step {k} after the snapshot ({a:?})\n{source}");
        }
    }
    let _ = std::fs::remove_dir_all(&root);
}
