//! A picture drawn inside a text view's box (a tab's icon above its label, Android's compound
//! drawable) is no view of the hierarchy: the rebuilt app draws it from the screenshot, and
//! it stays out of the UI tree as it was on the real phone.

mod common;

use std::path::Path;

use common::scratch;
use phoneworld_data::Action;
use phoneworld_phone::{Catalog, Device, DeviceConfig};
use phoneworld_reconstruct::visual::Rgb;
use phoneworld_reconstruct::{reconstruct, ReconOptions};
use serde_json::{json, Value};

const W: u32 = 1080;
const H: u32 = 2400;
const INK: [u8; 3] = [60, 60, 60];

/// A white screen with dark boxes `[x1, y1, x2, y2]` drawn on it.
fn screenshot(boxes: &[[u32; 4]]) -> Vec<u8> {
    let mut pixels = vec![[255u8; 3]; (W * H) as usize];
    for b in boxes {
        for y in b[1]..b[3] {
            for x in b[0]..b[2] {
                pixels[(y * W + x) as usize] = INK;
            }
        }
    }
    Rgb { width: W, height: H, pixels }.png_bytes(png::Compression::Fast).unwrap()
}

/// A word's letters: strokes 12 px wide, 8 px apart, from `x` along the row `y1..y2`.
fn letters(x: u32, y1: u32, y2: u32, count: u32) -> Vec<[u32; 4]> {
    (0..count).map(|i| [x + 20 * i, y1, x + 20 * i + 12, y2]).collect()
}

fn text_view(text: &str, bounds: [u32; 4]) -> Value {
    json!({ "class": "android.widget.TextView", "bounds": bounds, "resource-id": format!("com.example.tabs:id/{}", text.to_lowercase()),
        "text": text, "content-desc": [null], "clickable": true, "visibility": "visible", "package": "com.example.tabs", "children": [] })
}

/// One screen of a Rico trace: its screenshot and a hierarchy of text views.
fn write_screen(dir: &Path, id: u32, png: &[u8], texts: &[Value]) {
    std::fs::write(dir.join(format!("screenshots/{id}.png")), png).unwrap();
    let root = json!({ "class": "android.widget.FrameLayout", "bounds": [0, 0, W, H], "resource-id": null, "text": null,
        "content-desc": [null], "clickable": false, "visibility": "visible", "package": "com.example.tabs", "children": texts });
    let hierarchy = json!({ "activity_name": "com.example.tabs/.Main", "activity": { "root": root } });
    std::fs::write(dir.join(format!("view_hierarchies/{id}.json")), hierarchy.to_string()).unwrap();
}

#[test]
fn a_tabs_icon_inside_its_labels_box_is_drawn_and_is_no_element() {
    // A tab at the bottom: its text view's box holds a 90 px icon above its 40 px label.
    let tab = [0, 2000, 360, 2260];
    let icon = [135, 2030, 225, 2120];
    let mut first = vec![icon];
    first.extend(letters(110, 2160, 2200, 6));
    // Its neighbours, labels alone.
    first.extend(letters(470, 2110, 2150, 6));
    first.extend(letters(830, 2110, 2150, 7));
    let dir = scratch("drawable-trace");
    std::fs::create_dir_all(dir.join("screenshots")).unwrap();
    std::fs::create_dir_all(dir.join("view_hierarchies")).unwrap();
    write_screen(
        &dir,
        1,
        &screenshot(&first),
        &[
            text_view("Nearby", tab),
            text_view("Search", [360, 2000, 720, 2260]),
            text_view("Profile", [720, 2000, 1080, 2260]),
            text_view("Welcome", [60, 300, 1020, 420]),
        ],
    );
    write_screen(&dir, 2, &screenshot(&letters(100, 340, 380, 5)), &[text_view("Places", [60, 300, 1020, 420])]);
    let tap = json!({ "1": [[180.0 / f64::from(W), 2130.0 / f64::from(H)]], "2": [] });
    std::fs::write(dir.join("gestures.json"), tap.to_string()).unwrap();

    let out = scratch("drawable-out");
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, ..ReconOptions::default() }).unwrap();
    let drawables: Vec<&String> = r.model.images.keys().filter(|k| k.ends_with("_drawable.png")).collect();
    assert_eq!(drawables.len(), 1, "the tab's icon is cut: {:?}", r.model.images.keys().collect::<Vec<_>>());
    let cut = Rgb::load(&out.join(drawables[0])).unwrap();
    assert!(cut.width < 110 && cut.height < 110, "only the icon, not its label: {} x {}", cut.width, cut.height);

    let rebuilt = Catalog::load_default(std::slice::from_ref(&out)).unwrap();
    let mut device = Device::new(rebuilt, DeviceConfig::default()).unwrap();
    device.step(&Action::OpenApp { app: r.model.package.clone() });
    // The icon is drawn where the real phone drew it, dark on the white tab.
    let frame = device.frame();
    let at = |x: u32, y: u32| {
        let i = ((y * frame.width + x) * 4) as usize;
        (u32::from(frame.pixels[i]) + u32::from(frame.pixels[i + 1]) + u32::from(frame.pixels[i + 2])) / 3
    };
    assert!(at(180, 2075) < 120, "the icon's middle is drawn dark ({})", at(180, 2075));
    // The UI tree is the real one: the tab's label, tappable, and no picture of its own.
    let elements = device.ui_elements();
    let app: Vec<_> = elements.iter().filter(|e| e.package_name.as_deref() == Some(r.model.package.as_str())).collect();
    assert!(app.iter().any(|e| e.text.as_deref() == Some("Nearby") && e.is_clickable == Some(true)), "{app:?}");
    assert!(!app.iter().any(|e| e.class_name.as_deref() == Some("android.widget.ImageView")), "the icon is no element: {app:?}");
    // Its label is drawn below the icon, not over it.
    let label_ink = (2130..2240).any(|y| (60..300).any(|x| at(x, y) < 160));
    assert!(label_ink, "the label is drawn below the icon");
    let (_, before) = device.foreground();
    device.step(&Action::Tap { x: 180.0, y: 2180.0 });
    assert_ne!(device.foreground().1, before, "the tab still leads on");
}
