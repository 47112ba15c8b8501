//! Controls the traces never used still do what the app's own evidence says: the same control
//! on another tab of its activity, a label naming another screen's title, a row whose label
//! was tapped. And a replay that must put the phone back on a screen puts it there with the
//! screens the trace had beneath it.

mod common;

use std::path::{Path, PathBuf};

use common::{scratch, texts};
use phoneworld_data::{Action, Key};
use phoneworld_phone::{Catalog, Device, DeviceConfig};
use phoneworld_reconstruct::{reconstruct, ReconOptions, Reconstruction, Trace};
use serde_json::{json, Value};

const APP: &str = "com.example.player";

/// A node of the canonical trace; `clickable` when it takes taps.
fn node(class: &str, id: &str, text: &str, desc: &str, bounds: [u32; 4], clickable: bool, children: Vec<Value>) -> Value {
    json!({
        "class": format!("android.widget.{class}"),
        "resource_id": if id.is_empty() { String::new() } else { format!("{APP}:id/{id}") },
        "text": text, "content_desc": desc, "bounds": bounds, "clickable": clickable,
        "package": APP, "children": children,
    })
}

fn screen(activity: &str, kind: &str, root: Value) -> Value {
    json!({ "kind": kind, "package": APP, "activity": format!("{APP}/.{activity}"), "width": 1080, "height": 2400, "root": root })
}

fn title(text: &str) -> Value {
    node("TextView", "toolbar_title", text, "", [48, 100, 700, 180], false, vec![])
}

fn full(children: Vec<Value>) -> Value {
    node("FrameLayout", "", "", "", [0, 0, 1080, 2400], false, children)
}

fn more() -> Value {
    node("ImageButton", "", "", "More options", [940, 90, 1040, 190], true, vec![])
}

/// A player with two tabs of one activity (Songs, Albums) sharing a toolbar's More options,
/// a menu (Settings), a settings page whose rows are labels inside clickable holders (Font
/// size opens a dialog headed "Text size"; Customize colors is never tapped), and a colours page titled
/// "Customize colors" that the trace only reached by a deep link.
fn screens() -> Value {
    // Tabs unlike enough in structure to be two screens: a list of songs, a grid of albums.
    let songs = node(
        "RecyclerView",
        "song_list",
        "",
        "",
        [0, 300, 1080, 2100],
        false,
        vec![
            node("TextView", "song_title", "Yesterday", "", [48, 320, 1000, 420], false, vec![]),
            node("TextView", "song_artist", "The Beatles", "", [48, 420, 1000, 480], false, vec![]),
        ],
    );
    let albums = node(
        "GridView",
        "album_grid",
        "",
        "",
        [0, 300, 1080, 2100],
        false,
        vec![
            node("ImageView", "album_art", "", "", [40, 320, 520, 800], false, vec![]),
            node("TextView", "album_name", "Help!", "", [40, 820, 520, 900], false, vec![]),
        ],
    );
    let tabs = |active: &str, content: &Value| {
        vec![
            title(active),
            content.clone(),
            more(),
            node("TextView", "tab_songs", "Songs", "", [0, 2200, 540, 2300], true, vec![]),
            node("TextView", "tab_albums", "Albums", "", [540, 2200, 1080, 2300], true, vec![]),
        ]
    };
    let row = |id: &str, label: &str, top: u32| {
        node(
            "RelativeLayout",
            &format!("{id}_holder"),
            "",
            "",
            [0, top, 1080, top + 160],
            true,
            vec![node("TextView", &format!("{id}_label"), label, "", [48, top + 50, 600, top + 110], false, vec![])],
        )
    };
    json!({
        "songs": screen("Main", "full", full(tabs("Songs", &songs))),
        "albums": screen("Main", "full", full(tabs("Albums", &albums))),
        "menu": screen("Main", "dialog", node("FrameLayout", "", "", "", [600, 90, 1060, 400], false, vec![
            node("TextView", "menu_settings", "Settings", "", [620, 110, 1040, 200], true, vec![]),
            node("TextView", "menu_about", "About", "", [620, 220, 1040, 310], true, vec![]),
        ])),
        "settings": screen("Settings", "full", full(vec![title("Settings"), row("font", "Font size", 300), row("colors", "Customize colors", 460)])),
        "font": screen("Settings", "dialog", node("FrameLayout", "", "", "", [60, 900, 1020, 1500], false, vec![
            node("TextView", "dialog_title", "Text size", "", [100, 940, 900, 1020], false, vec![]),
            node("CheckedTextView", "small", "Small", "", [100, 1060, 900, 1160], true, vec![]),
            node("Button", "ok", "OK", "", [780, 1360, 980, 1460], true, vec![]),
        ])),
        "colors": screen("Colors", "full", full(vec![title("Customize colors"), node("TextView", "theme", "Theme", "", [48, 300, 600, 380], false, vec![])])),
    })
}

fn tap(x: u32, y: u32) -> Value {
    json!({ "type": "tap", "x": x, "y": y })
}

/// A tap the recorder names by the label inside the row it hit.
fn tap_label(x: u32, y: u32, label: &str) -> Value {
    json!({ "type": "tap", "x": x, "y": y, "on": label })
}

fn back() -> Value {
    json!({ "type": "key", "key": "back" })
}

/// The last clickable node under a point (drawn on top) and its index path, as an importer
/// resolves a tap.
fn hit(n: &Value, x: f64, y: f64, path: &mut Vec<usize>, found: &mut Option<(Vec<usize>, Value)>) {
    let b: Vec<f64> = n["bounds"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    if !(b[0] <= x && x < b[2] && b[1] <= y && y < b[3]) {
        return;
    }
    if n["clickable"] == json!(true) {
        *found = Some((path.clone(), n.clone()));
    }
    for (i, c) in n["children"].as_array().unwrap().iter().enumerate() {
        path.push(i);
        hit(c, x, y, path, found);
        path.pop();
    }
}

/// Writes a canonical trace of `steps` (screen, action, next) into `dir`; a tap names the node
/// it hit as its target.
fn trace(dir: &Path, name: &str, steps: &[(&str, Value, &str)]) -> PathBuf {
    let all = screens();
    let steps: Vec<Value> = steps
        .iter()
        .map(|(screen, action, next)| {
            let mut action = action.clone();
            let named = action.as_object_mut().unwrap().remove("on");
            let mut step = json!({ "screen": screen, "action": action });
            if let (Some(x), Some(y)) = (action["x"].as_f64(), action["y"].as_f64()) {
                let mut found = None;
                hit(&all[screen]["root"], x, y, &mut Vec::new(), &mut found);
                if let Some((mut path, mut node)) = found {
                    // A recorder naming the label inside the row it tapped (DroidBot does).
                    if let Some(id) = named.as_ref().and_then(Value::as_str) {
                        let at = node["children"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .position(|c| c["resource_id"] == json!(format!("{APP}:id/{id}")))
                            .unwrap();
                        path.push(at);
                        node = node["children"][at].clone();
                    }
                    step["target"] = json!({ "path": path, "node": node });
                }
            }
            if !next.is_empty() {
                step["next"] = json!(next);
            }
            step
        })
        .collect();
    let mut screens = screens();
    for (id, s) in screens.as_object_mut().unwrap() {
        s["id"] = json!(id);
    }
    let trace = json!({
        "format": "phoneworld-trace/1", "source_format": "canonical", "source": name, "base_dir": "",
        "screens": screens, "steps": steps,
    });
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_string_pretty(&trace).unwrap()).unwrap();
    path
}

/// The traces the app is rebuilt from: the menu opened from Songs only, Font size's label
/// named as what was tapped, Back everywhere, and the colours page seen once, opened by a deep link.
fn rebuilt(dir: &Path) -> (PathBuf, Reconstruction) {
    let steps = [
        ("songs", tap(990, 140), "menu"),
        ("menu", tap(830, 155), "settings"),
        ("settings", tap_label(200, 380, "font_label"), "font"),
        ("font", tap(880, 1410), "settings"),
        ("settings", back(), "songs"),
        ("songs", tap(810, 2250), "albums"),
        ("albums", tap(270, 2250), "songs"),
        ("songs", tap(990, 140), "menu"),
        ("menu", tap(830, 155), "settings"),
        ("settings", tap_label(200, 380, "font_label"), "font"),
        ("font", tap(880, 1410), "settings"),
        ("settings", back(), ""),
    ];
    let explored = trace(dir, "explore", &steps);
    let linked = trace(dir, "deep-link", &[("colors", back(), "settings"), ("settings", back(), "songs")]);
    let out = dir.join("app");
    let r = reconstruct(&[explored, linked], &out, &ReconOptions::default()).unwrap();
    (out, r)
}

fn device(out: &Path) -> Device {
    let catalog = Catalog::load_default(&[out.to_path_buf()]).unwrap();
    let mut d = Device::new(catalog, DeviceConfig::default()).unwrap();
    d.step(&Action::OpenApp { app: APP.into() });
    d
}

/// Taps the middle of the element with `text` or description `label`, on the phone's pixels.
fn tap_on(d: &mut Device, label: &str) {
    let e = d
        .ui_elements()
        .into_iter()
        .find(|e| e.text.as_deref() == Some(label) || e.content_description.as_deref() == Some(label))
        .unwrap_or_else(|| panic!("no `{label}` on {:?}", d.foreground()));
    let b = e.bbox_pixels.unwrap();
    d.step(&Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 });
}

/// The screen's title, as the phone shows it.
fn on(d: &mut Device) -> String {
    let title = d.ui_elements().into_iter().find(|e| e.resource_id.as_deref().is_some_and(|r| r.ends_with("toolbar_title")));
    title.and_then(|e| e.text).unwrap_or_default()
}

#[test]
fn the_same_control_on_another_tab_does_what_it_did_on_the_first() {
    let (out, _) = rebuilt(&scratch("lend-tab"));
    let mut d = device(&out);
    tap_on(&mut d, "Albums");
    assert_eq!(on(&mut d), "Albums");
    tap_on(&mut d, "More options");
    assert!(texts(&mut d).contains("About"), "More options was only ever tapped on Songs: {:?}", texts(&mut d));
}

#[test]
fn a_row_labelled_as_another_screen_is_titled_opens_it_wherever_it_is_tapped() {
    let (out, _) = rebuilt(&scratch("titled"));
    let lua = std::fs::read_to_string(out.join("main.lua")).unwrap();
    assert!(lua.contains("is labelled as `colors` is titled"), "{lua}");
    let mut d = device(&out);
    tap_on(&mut d, "More options");
    tap_on(&mut d, "Settings");
    assert_eq!(on(&mut d), "Settings");
    // The holder's right half, far from its label: the tap is the row's on the real phone.
    d.step(&Action::Tap { x: 900.0, y: 540.0 });
    assert_eq!(on(&mut d), "Customize colors");
    d.step(&Action::Key { key: Key::Back });
    d.step(&Action::Tap { x: 900.0, y: 380.0 });
    assert!(texts(&mut d).contains("Small"), "the Font size row does what its label did: {:?}", texts(&mut d));
}

/// A step that went where the app cannot follow (a screen no trace saved) leaves the phone
/// elsewhere; the next step puts it back on its screen (a dialog over the settings page) with
/// the trace's screens beneath, so closing the dialog returns to the settings page, as it did
/// for the person, not to the app's first screen.
#[test]
fn a_phone_put_back_on_a_screen_has_the_traces_screens_beneath_it() {
    let dir = scratch("resync-stack");
    let (out, _) = rebuilt(&dir);
    let held = trace(
        &dir,
        "lost",
        &[
            ("songs", tap(990, 140), "menu"),
            ("menu", tap(830, 155), "settings"),
            ("settings", tap(200, 380), "font"),
            ("font", back(), "nowhere"),
            ("font", tap(880, 1410), "settings"),
            ("settings", back(), "songs"),
            ("songs", back(), ""),
        ],
    );
    let held: Trace = serde_json::from_str(&std::fs::read_to_string(held).unwrap()).unwrap();
    let report = phoneworld_reconstruct::replay::replay(&out, &held, false).unwrap();
    let steps = &report.per_step;
    assert_eq!(steps[3].ok, Some(false), "{:?}", steps[3]);
    assert!(steps[4].resynced, "{:?}", steps[4]);
    assert_eq!((steps[4].ok, steps[4].landed.as_str()), (Some(true), "settings"), "{:?}", steps[4]);
    assert_eq!((steps[5].ok, steps[5].resynced), (Some(true), false), "Back from the settings page, as the person went: {:?}", steps[5]);
}

/// A recorder that kept only some screens: More options showed the colours page, and Back
/// from it the settings page, then the songs: the person had gone through the menu and the
/// settings page in between. The rebuilt control opens the settings page beneath the colours,
/// so Back goes where it went for the person.
#[test]
fn screens_back_went_through_but_never_seen_opened_are_opened_beneath_the_target() {
    let dir = scratch("beneath");
    let sparse =
        trace(&dir, "sparse", &[("songs", tap(990, 140), "colors"), ("colors", back(), "settings"), ("settings", back(), "songs")]);
    let out = dir.join("app");
    reconstruct(&[sparse], &out, &ReconOptions::default()).unwrap();
    let mut d = device(&out);
    tap_on(&mut d, "More options");
    assert_eq!(on(&mut d), "Customize colors");
    d.step(&Action::Key { key: Key::Back });
    assert_eq!(on(&mut d), "Settings", "Back shows the screen it showed in the trace");
    d.step(&Action::Key { key: Key::Back });
    assert_eq!(on(&mut d), "Songs");
}
