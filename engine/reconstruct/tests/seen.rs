//! Screens whose hierarchy says nothing (an Adobe AIR surface): the rebuilt app gets its
//! texts and controls from the screenshots. The "real app" is a bundled app's screens as the
//! phone draws them, recorded as a Rico trace whose hierarchy is one opaque surface.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::scratch;
use phoneworld_data::{Action, UiElement};
use phoneworld_phone::{Catalog, Device, DeviceConfig};
use phoneworld_reconstruct::{reconstruct, ReconOptions};
use serde_json::json;

/// Tesseract is installed by `make setup`; without it the test says so and stops, except
/// under CI, where it must run.
fn tesseract_present() -> bool {
    match phoneworld_reconstruct::ocr::open() {
        Ok(_) => true,
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => panic!("{why}"),
        Err(why) => {
            eprintln!("skipped: {why}");
            false
        }
    }
}

fn center(e: &UiElement) -> (f64, f64) {
    let b = e.bbox_pixels.as_ref().unwrap();
    ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)
}

/// One screen of the Rico trace: the screenshot and a hierarchy of one opaque surface.
fn write_screen(dir: &Path, id: u32, png: &[u8], width: u32, height: u32) {
    std::fs::write(dir.join(format!("screenshots/{id}.png")), png).unwrap();
    let surface = json!({ "class": "com.adobe.air.AIRWindowSurfaceView", "bounds": [0, 0, width, height],
        "resource-id": null, "text": null, "content-desc": [null], "clickable": true, "visibility": "visible",
        "package": "air.com.example.quiz", "children": [] });
    let root = json!({ "class": "android.widget.FrameLayout", "bounds": [0, 0, width, height], "resource-id": null,
        "text": null, "content-desc": [null], "clickable": false, "visibility": "visible", "package": "air.com.example.quiz",
        "children": [surface] });
    let hierarchy = json!({ "activity_name": "air.com.example.quiz/.AppEntry", "activity": { "root": root } });
    std::fs::write(dir.join(format!("view_hierarchies/{id}.json")), hierarchy.to_string()).unwrap();
}

#[test]
fn an_opaque_screen_is_rebuilt_from_its_screenshot_and_its_recovered_controls_work() {
    if !tesseract_present() {
        return;
    }
    // The "real" app: Settings, its first screen and the screen one of its rows opens.
    let catalog = Catalog::load_default(&[]).unwrap();
    let mut phone = Device::new(Arc::clone(&catalog), DeviceConfig::default()).unwrap();
    phone.step(&Action::OpenApp { app: "Settings".into() });
    let first = phone.frame();
    let (width, height) = (first.width, first.height);
    let row = phone
        .ui_elements()
        .into_iter()
        .filter(|e| e.text.as_ref().is_some_and(|t| t.split_whitespace().count() == 1 && t.len() >= 5))
        .find(|e| center(e).1 > f64::from(height) * 0.2)
        .expect("a row with a one-word label");
    let label = row.text.clone().unwrap();
    // On the label's first letters (its element spans the row; the words do not).
    let (x, y) = (row.bbox_pixels.as_ref().unwrap().x_min + 12.0, center(&row).1);
    phone.step(&Action::Tap { x, y });
    let second = phone.frame();
    assert_ne!(first.pixels, second.pixels, "tapping `{label}` opened another screen");

    let dir = scratch("seen-trace");
    std::fs::create_dir_all(dir.join("screenshots")).unwrap();
    std::fs::create_dir_all(dir.join("view_hierarchies")).unwrap();
    write_screen(&dir, 1, &first.to_png(), width, height);
    write_screen(&dir, 2, &second.to_png(), width, height);
    let gestures = json!({ "1": [[x / f64::from(width), y / f64::from(height)]], "2": [] });
    std::fs::write(dir.join("gestures.json"), gestures.to_string()).unwrap();

    let out = scratch("seen-out");
    let r = reconstruct(&[dir], &out, &ReconOptions { overwrite: true, ..ReconOptions::default() }).unwrap();
    let notes = r.summary()["notes"].to_string();
    assert!(notes.contains("read from their screenshots with Tesseract 5"), "the version is recorded: {notes}");
    let f = &r.fidelity[0];
    assert_eq!((f.succeeded, f.judged), (1, 1), "{:?}", f.per_step);
    assert_eq!(f.baseline.succeeded, 0);

    // On the rebuilt app: the label read off the screenshot is there, and tapping it leads on.
    let rebuilt = Catalog::load_default(std::slice::from_ref(&out)).unwrap();
    let mut device = Device::new(rebuilt, DeviceConfig::default()).unwrap();
    device.step(&Action::OpenApp { app: r.model.package.clone() });
    let (_, before) = device.foreground();
    let elements = device.ui_elements();
    let texts: Vec<&str> = elements.iter().filter_map(|e| e.text.as_deref()).collect();
    assert!(texts.len() >= 4, "the screen's texts were read: {texts:?}");
    let recovered = elements
        .iter()
        .find(|e| e.text.as_deref().is_some_and(|t| t.contains(label.as_str())) && e.is_clickable == Some(true))
        .unwrap_or_else(|| panic!("`{label}` as a control among {texts:?}"));
    let (x, y) = center(recovered);
    device.step(&Action::Tap { x, y });
    let (_, after) = device.foreground();
    assert_ne!(before, after, "tapping the recovered `{label}` leads to the next screen");
    // Pictures are cut from the screenshot into the bundle, each at most a quarter of it.
    for image in r.model.images.keys() {
        let cut = phoneworld_reconstruct::visual::Rgb::load(&out.join(image)).unwrap();
        assert!(u64::from(cut.width * cut.height) * 4 <= u64::from(width * height), "{image}: {} x {}", cut.width, cut.height);
    }
}
