//! Hostile and broken traces: each class of input that once aborted the process (a stack
//! overflow, an allocation failure, a read that never ends) or wrote over a user's files now
//! ends in an error naming the file, or a warning where the file is optional.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{copy_dir, fixture, scratch};
use phoneworld_reconstruct::import::import;
use phoneworld_reconstruct::limits::{MAX_HIERARCHY_FILE_BYTES, MAX_SCREEN_NODES, MAX_TREE_DEPTH};
use phoneworld_reconstruct::visual::Rgb;
use phoneworld_reconstruct::{reconstruct, ReconOptions};

/// A copy of a fixture to break.
fn broken(name: &str, case: &str) -> PathBuf {
    let dir = scratch(&format!("hostile-{name}-{case}"));
    copy_dir(&fixture(name), &dir);
    dir
}

fn error_of(path: &Path) -> String {
    match import(path, None) {
        Ok(t) => panic!("{} imported ({} steps) but should not", path.display(), t.steps.len()),
        Err(e) => e.to_string(),
    }
}

/// A uiautomator dump whose nodes are nested `depth` deep.
fn deep_xml(depth: usize) -> String {
    let open = "<node class=\"android.widget.FrameLayout\" package=\"com.example.notes\" bounds=\"[0,0][1080,2400]\">";
    format!("<?xml version='1.0'?>\n<hierarchy rotation=\"0\">{}{}</hierarchy>", open.repeat(depth), "</node>".repeat(depth))
}

#[test]
fn deeply_nested_xml_is_an_error_naming_the_file_and_the_depth() {
    let depth_message = format!("{MAX_TREE_DEPTH} levels deep");
    // uiautomator dumps, LlamaTouch screens and PhoneWorld steps all read this XML.
    for (name, file) in [("uiautomator", "list.xml"), ("llamatouch", "2.xml"), ("phoneworld", "step_00001.xml")] {
        let dir = broken(name, "deep-xml");
        std::fs::write(dir.join(file), deep_xml(5000)).unwrap();
        let e = error_of(&dir);
        assert!(e.contains(&format!("{file}:2")) && e.contains(&depth_message), "{name}: {e}");
    }
    // At the limit it imports.
    let dir = broken("uiautomator", "deep-ok");
    std::fs::write(dir.join("list.xml"), deep_xml(MAX_TREE_DEPTH)).unwrap();
    import(&dir, None).unwrap();
}

/// A dump `depth` levels deep where every level is a control holding a label and the next
/// level (nothing to leave out), each level a scrolling list when `lists`.
fn deep_controls_xml(depth: usize, lists: bool) -> String {
    let mut xml = String::from("<?xml version='1.0'?>\n<hierarchy rotation=\"0\">");
    for level in 0..depth {
        let top = 100 + level;
        let _ = std::fmt::Write::write_fmt(
            &mut xml,
            format_args!(
                "<node class=\"android.widget.LinearLayout\" package=\"com.example.notes\" content-desc=\"level {level}\" \
                 clickable=\"true\" scrollable=\"{lists}\" bounds=\"[0,{top}][1080,{}]\">\
                 <node class=\"android.widget.TextView\" package=\"com.example.notes\" text=\"Label {level}\" bounds=\"[0,{top}][540,{}]\"/>",
                if lists { top + 60 } else { 2300 },
                top + 40,
            ),
        );
    }
    xml.push_str(&"</node>".repeat(depth));
    xml.push_str("</hierarchy>");
    xml
}

#[test]
fn a_hierarchy_at_the_depth_limit_gives_an_app_that_loads() {
    for lists in [false, true] {
        let dir = broken("uiautomator", &format!("deep-app-{lists}"));
        for file in ["list.xml", "editor.xml", "editor_typed.xml", "settings.xml", "settings_dark.xml"] {
            std::fs::write(dir.join(file), deep_controls_xml(MAX_TREE_DEPTH, lists)).unwrap();
        }
        // `reconstruct` loads the app it wrote, and fails if the phone cannot.
        let options = ReconOptions { visual: false, ..ReconOptions::default() };
        let r = reconstruct(&[dir.join("actions.jsonl")], &dir.join("app"), &options).unwrap();
        // Every label of the plain controls is kept, however deep it was.
        let mut labels = 0;
        for w in r.model.screens.iter().flat_map(|s| &s.widgets) {
            w.walk(&mut |w| labels += usize::from(w.text.starts_with("Label ")));
        }
        assert!(lists || labels >= MAX_TREE_DEPTH, "{labels} labels kept");
    }
}

/// A DroidBot state whose views are `views`.
fn droidbot_with_views(case: &str, views: Vec<serde_json::Value>) -> PathBuf {
    let dir = broken("droidbot", case);
    let file = dir.join("states/state_2024-01-01_100000.json");
    let mut state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    state["views"] = serde_json::Value::Array(views);
    std::fs::write(&file, state.to_string()).unwrap();
    dir
}

fn view(i: i64, parent: i64, children: &[i64]) -> serde_json::Value {
    serde_json::json!({ "temp_id": i, "parent": parent, "children": children, "class": "android.widget.FrameLayout",
                        "bounds": [[0, 0], [1080, 2400]], "package": "com.example.notes" })
}

#[test]
fn a_long_or_cyclic_parent_chain_is_an_error_naming_the_node() {
    let n = 20_000;
    let chain = (0..n).map(|i| view(i, i - 1, &[i + 1][..usize::from(i + 1 < n)])).collect();
    let e = error_of(&droidbot_with_views("chain", chain));
    assert!(e.contains("state_2024-01-01_100000.json") && e.contains(&format!("views[{}]", MAX_TREE_DEPTH + 1)), "{e}");
    assert!(e.contains(&format!("{MAX_TREE_DEPTH} levels deep")), "{e}");
    // Parents and children pointing at each other: never followed round.
    let cycle = vec![view(0, 1, &[1]), view(1, 0, &[0])];
    let e = error_of(&droidbot_with_views("cycle", cycle));
    assert!(e.contains("state_2024-01-01_100000.json") && e.contains("views[1].children"), "{e}");
    let own_child = vec![view(0, -1, &[0])];
    let e = error_of(&droidbot_with_views("self", own_child));
    assert!(e.contains("views[0].children"), "{e}");
    // Rico and canonical traces nest JSON: too deep a nesting is a parse error with its line.
    let dir = broken("rico", "deep");
    let deep =
        format!("{{\"activity_name\": \"a/b\", \"activity\": {{\"root\": {}{}}}}}", "{\"children\": [".repeat(3000), "]}".repeat(3000));
    std::fs::write(dir.join("view_hierarchies/12.json"), deep).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("12.json:1") && e.contains("recursion limit"), "{e}");
}

/// Table-less CRC-32 (PNG's chunk checksum).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A valid PNG whose header then claims `width` x `height` (its CRC fixed up).
fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, 2, 2);
    encoder.set_color(png::ColorType::Rgb);
    encoder.write_header().unwrap().write_image_data(&[200; 12]).unwrap();
    // Signature (8), length (4), "IHDR" (4), then width and height.
    bytes[16..20].copy_from_slice(&width.to_be_bytes());
    bytes[20..24].copy_from_slice(&height.to_be_bytes());
    let crc = crc32(&bytes[12..29]);
    bytes[29..33].copy_from_slice(&crc.to_be_bytes());
    bytes
}

#[test]
fn a_png_claiming_a_huge_size_is_left_out_with_a_warning_naming_it() {
    let dir = broken("llamatouch", "huge-png");
    std::fs::write(dir.join("1.png"), png_claiming(100_000, 100_000)).unwrap();
    let trace = import(&dir, None).unwrap();
    assert!(trace.screens["1"].screenshot.is_none());
    let note = trace.notes.iter().find(|n| n.contains("1.png")).unwrap_or_else(|| panic!("no note: {:?}", trace.notes));
    assert!(note.contains("100000 x 100000") && note.contains("over the limit"), "{note}");
    let e = Rgb::load(&dir.join("1.png")).unwrap_err().to_string();
    assert!(e.contains("1.png") && e.contains("over the limit"), "{e}");
    // The whole reconstruction goes on without the screenshot.
    let r = reconstruct(std::slice::from_ref(&dir), &dir.join("app"), &ReconOptions::default()).unwrap();
    assert!(r.summary()["notes"][0]["notes"].to_string().contains("1.png"));
}

#[test]
fn a_screenshot_that_does_not_decode_is_a_warning_in_the_report() {
    let dir = broken("llamatouch", "corrupt-png");
    let mut bytes = png_claiming(2, 2);
    // The header stays readable; the pixel data (after it) does not.
    let idat = bytes.windows(4).position(|w| w == b"IDAT").unwrap();
    bytes[idat + 6] ^= 0xFF;
    std::fs::write(dir.join("1.png"), &bytes).unwrap();
    let r = reconstruct(std::slice::from_ref(&dir), &dir.join("app"), &ReconOptions::default()).unwrap();
    let warnings = r.warnings();
    assert!(warnings.len() == 1 && warnings[0].contains("1.png") && warnings[0].contains("PNG"), "{warnings:?}");
    assert_eq!(r.summary()["warnings"][0], warnings[0].as_str());
}

#[test]
fn devices_pipes_and_oversized_files_are_refused_by_name() {
    // A hierarchy that is a link to an endless device.
    let dir = broken("llamatouch", "dev-zero");
    std::fs::remove_file(dir.join("2.xml")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("2.xml")).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("2.xml") && e.contains("not a regular file"), "{e}");
    // A log that is a pipe nobody writes to: refused at once, never waited on.
    let dir = broken("phoneworld", "fifo");
    std::fs::remove_file(dir.join("steps.jsonl")).unwrap();
    let made = std::process::Command::new("mkfifo").arg(dir.join("steps.jsonl")).status().unwrap();
    assert!(made.success());
    let e = error_of(&dir);
    assert!(e.contains("steps.jsonl") && e.contains("not a regular file"), "{e}");
    // A file over its kind's limit (sparse: nothing is written).
    let dir = broken("uiautomator", "oversized");
    std::fs::File::options().write(true).open(dir.join("list.xml")).unwrap().set_len(MAX_HIERARCHY_FILE_BYTES + 1).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("list.xml") && e.contains("over the limit"), "{e}");
}

#[test]
fn long_texts_and_huge_screens_give_an_app_that_loads() {
    // Texts past what a layout template or a content string may hold, with braces.
    let dir = broken("uiautomator", "long-texts");
    let file = dir.join("list.xml");
    let long = format!("{}{}", "{x} ".repeat(2000), "y".repeat(70_000));
    let text = std::fs::read_to_string(&file).unwrap().replacen("text=\"Groceries\"", &format!("text=\"{long}\""), 1);
    std::fs::write(&file, text).unwrap();
    // More widgets on one screen than the phone builds.
    let rows: String = (0..MAX_SCREEN_NODES - 10)
        .map(|i| {
            format!(
                "<node class=\"android.widget.TextView\" package=\"com.example.notes\" text=\"row {i}\" bounds=\"[0,{0}][1080,{1}]\"/>",
                200 + i % 2000,
                260 + i % 2000
            )
        })
        .collect();
    let settings = format!("<hierarchy><node class=\"android.widget.FrameLayout\" package=\"com.example.notes\" bounds=\"[0,0][1080,2400]\">{rows}</node></hierarchy>");
    std::fs::write(dir.join("settings.xml"), settings).unwrap();
    // `reconstruct` loads the app it wrote, and fails if the phone cannot.
    let options = ReconOptions { visual: false, ..ReconOptions::default() };
    let r = reconstruct(&[dir.join("actions.jsonl")], &dir.join("app"), &options).unwrap();
    assert!(r.warnings().iter().any(|w| w.contains("widgets")), "{:?}", r.warnings());
}

#[test]
fn out_of_range_numbers_name_the_file_and_the_field_or_line() {
    let dir = broken("uiautomator", "absurd-bounds");
    let file = dir.join("settings.xml");
    let text =
        std::fs::read_to_string(&file).unwrap().replacen("bounds=\"[48,300][1032,420]\"", "bounds=\"[0,0][2147483647,2147483647]\"", 1);
    std::fs::write(&file, text).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("settings.xml:1") && e.contains("2147483647"), "{e}");

    let dir = broken("llamatouch", "nan");
    std::fs::write(dir.join("eventStructs.txt"), "[Click] Screen Resolution (360, 800), Click Position (NaN, 642)\n").unwrap();
    let e = error_of(&dir);
    assert!(e.contains("eventStructs.txt:1") && e.contains("finite"), "{e}");
    std::fs::write(dir.join("eventStructs.txt"), "[Click] Screen Resolution (0, 800), Click Position (1, 642)\n").unwrap();
    assert!(error_of(&dir).contains("resolution"));

    let dir = broken("droidbot", "huge-x");
    let file = dir.join("events/event_2024-01-01_110002.json");
    let text = std::fs::read_to_string(&file).unwrap().replacen("\"x\": null", "\"x\": 1e300", 1).replacen("\"y\": null", "\"y\": 5", 1);
    std::fs::write(&file, text).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("event_2024-01-01_110002.json") && e.contains("event.x"), "{e}");

    let dir = broken("phoneworld", "negative-size");
    let file = dir.join("episode.json");
    let text = std::fs::read_to_string(&file).unwrap().replacen("\"width\": 1080", "\"width\": -1080", 1);
    std::fs::write(&file, text).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("episode.json") && e.contains("device.width"), "{e}");

    // A box with a negative size is made empty, with a note.
    let dir = droidbot_with_views(
        "inverted",
        vec![view(0, -1, &[1]), {
            let mut v = view(1, 0, &[]);
            v["bounds"] = serde_json::json!([[500, 500], [100, 100]]);
            v
        }],
    );
    let trace = import(&dir, None).unwrap();
    assert!(trace.notes.iter().any(|n| n.contains("1 node(s) with a negative width or height")), "{:?}", trace.notes);
}

#[test]
fn inputs_that_would_take_quadratic_time_or_huge_memory_are_refused_quickly() {
    let started = Instant::now();
    // An element with very many attributes (the XML parser checks them pairwise).
    let dir = broken("uiautomator", "attributes");
    let attributes: String = (0..200_000).map(|i| format!(" a{i}=\"\"")).collect();
    std::fs::write(dir.join("list.xml"), format!("<hierarchy><node bounds=\"[0,0][1,1]\"{attributes}/></hierarchy>")).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("list.xml:1") && e.contains("attributes"), "{e}");
    // Many small JSON values (each parsed one takes far more memory than its text).
    let dir = broken("rico", "values");
    std::fs::write(dir.join("gestures.json"), format!("{{\"10\": [{}[0.5, 0.5]]}}", "[0.5, 0.5],".repeat(1_000_000))).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("gestures.json:1") && e.contains("JSON values"), "{e}");
    // More nodes on one screen than the limit.
    let dir = broken("uiautomator", "wide");
    let nodes = "<node bounds=\"[0,0][1,1]\"/>".repeat(MAX_SCREEN_NODES + 1);
    std::fs::write(dir.join("list.xml"), format!("<hierarchy><node bounds=\"[0,0][1080,2400]\">{nodes}</node></hierarchy>")).unwrap();
    let e = error_of(&dir);
    assert!(e.contains("list.xml:1") && e.contains(&format!("{MAX_SCREEN_NODES} nodes")), "{e}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
}

#[test]
fn out_refuses_a_users_folder_and_a_file_but_writes_over_an_earlier_reconstruction() {
    let dir = scratch("hostile-out");
    let trace = fixture("uiautomator");
    let options = ReconOptions { visual: false, ..ReconOptions::default() };
    // A folder of the user's own files.
    let mine = dir.join("mine");
    std::fs::create_dir_all(mine.join("screens")).unwrap();
    std::fs::write(mine.join("notes.txt"), "keep me").unwrap();
    std::fs::write(mine.join("screens/home.ron"), "keep me too").unwrap();
    let e = reconstruct(std::slice::from_ref(&trace), &mine, &options).unwrap_err().to_string();
    assert!(e.contains(&mine.display().to_string()) && e.contains("not empty") && e.contains("--force"), "{e}");
    assert_eq!(std::fs::read_to_string(mine.join("screens/home.ron")).unwrap(), "keep me too");
    // A file.
    let file = dir.join("app.txt");
    std::fs::write(&file, "a file").unwrap();
    let e = reconstruct(std::slice::from_ref(&trace), &file, &options).unwrap_err().to_string();
    assert!(e.contains("app.txt") && e.contains("is a file"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file");
    // A new folder, then the same folder again: it is an earlier reconstruction.
    let app = dir.join("app");
    reconstruct(std::slice::from_ref(&trace), &app, &options).unwrap();
    reconstruct(std::slice::from_ref(&trace), &app, &options).unwrap();
    // With overwrite, the user's folder is written into; what the app does not use stays.
    reconstruct(&[trace], &mine, &ReconOptions { overwrite: true, ..options }).unwrap();
    assert_eq!(std::fs::read_to_string(mine.join("notes.txt")).unwrap(), "keep me");
    assert!(mine.join("app.ron").is_file());
}
