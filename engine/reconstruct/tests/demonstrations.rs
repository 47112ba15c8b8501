//! Demonstrations with a task sentence (here LlamaTouch's `instruction.txt`) as tasks of the
//! rebuilt app.

mod common;

use std::path::Path;

use common::scratch;
use phoneworld_reconstruct::{reconstruct, ReconOptions};

const PKG: &str = "org.example.lessons";

fn node(class: &str, rid: &str, text: &str, bounds: [i32; 4], clickable: bool, children: &str) -> String {
    let [x1, y1, x2, y2] = bounds;
    let rid = if rid.is_empty() { String::new() } else { format!("{PKG}:id/{rid}") };
    format!(
        r#"<node index="0" text="{text}" resource-id="{rid}" class="{class}" package="{PKG}" content-desc="" checkable="false" checked="false" clickable="{clickable}" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[{x1},{y1}][{x2},{y2}]">{children}</node>"#
    )
}

fn screen(dir: &Path, index: usize, activity: &str, body: &str) {
    let root = node("android.widget.FrameLayout", "", "", [0, 0, 1080, 2400], false, body);
    std::fs::write(
        dir.join(format!("{index}.xml")),
        format!("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">{root}</hierarchy>"),
    )
    .unwrap();
    std::fs::write(dir.join(format!("{index}.activity")), format!("{PKG}/{PKG}.{activity}")).unwrap();
}

/// The person tapped a picture card that the hierarchy says takes no touches (it showed a
/// tooltip, or nothing) and stayed, then the button that leads on: the rebuilt card is no
/// control, so the solution leaves that tap out rather than failing on it.
#[test]
fn a_tap_on_a_plain_card_that_changed_nothing_is_no_step_of_the_solution() {
    let dir = scratch("plain_card");
    let card = node(
        "android.widget.LinearLayout",
        "card",
        "",
        [300, 300, 780, 700],
        false,
        &node("android.widget.ImageView", "icon", "", [300, 300, 780, 600], false, ""),
    );
    let lesson = format!("{card}{}", node("android.widget.Button", "start", "Start", [40, 1800, 1040, 1960], true, ""));
    screen(&dir, 0, "MainActivity", &lesson);
    screen(&dir, 1, "MainActivity", &lesson);
    screen(&dir, 2, "SessionActivity", &node("android.widget.TextView", "question", "Translate this", [40, 300, 1040, 420], false, ""));
    std::fs::write(
        dir.join("eventStructs.txt"),
        "[Click] Screen Resolution (1080, 2400), Click Position (540, 650)\n[Click] Screen Resolution (1080, 2400), Click Position (540, 1880)\n",
    )
    .unwrap();
    std::fs::write(dir.join("instruction.txt"), "Start the basics lesson.").unwrap();
    let out = scratch("plain_card-out");
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, visual: false, ..ReconOptions::default() }).unwrap();
    let demos: Vec<_> = r.tasks.iter().filter(|t| t.kind == "demonstration").collect();
    assert_eq!(demos.len(), 1, "left out: {:?}", r.tasks_left_out);
    let task = std::fs::read_to_string(&demos[0].file).unwrap();
    assert!(task.contains("Tap(\"start\")]") && !task.contains("Tap(\"card\")"), "{task}");
}
