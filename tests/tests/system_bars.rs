//! A screen paints the phone's status and navigation bars (`system_bars`), and the bars' ink
//! turns to read on them; a colour that is not `#RRGGBB` is refused naming the file and field.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use phoneworld_data::AppBundle;
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};

fn bundle(name: &str, main: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pw-bars-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("screens")).unwrap();
    std::fs::write(dir.join("app.ron"), r#"App(package: "t.bars", label: "Bars", icon: "palette", entry: "main")"#).unwrap();
    std::fs::write(dir.join("screens/main.ron"), main).unwrap();
    std::fs::write(dir.join("screens/plain.ron"), r#"Screen(root: Column(children: [Text(text: "Plain")]))"#).unwrap();
    dir
}

fn pixel(device: &mut Device, x: u32, y: u32) -> [u8; 3] {
    let frame = device.frame();
    let i = ((y * frame.width + x) * 4) as usize;
    [frame.pixels[i], frame.pixels[i + 1], frame.pixels[i + 2]]
}

/// How many pixels of a row are `colour`.
fn share_of(device: &mut Device, y: u32, colour: [u8; 3]) -> f64 {
    let width = device.frame().width;
    (0..width).filter(|&x| pixel(device, x, y) == colour).count() as f64 / f64::from(width)
}

fn device(dir: &Path) -> Device {
    let catalog = Catalog::load(&[dir.to_path_buf()], &[project_root().join("layouts")]).unwrap();
    assert!(catalog.broken.is_empty(), "{:?}", catalog.broken);
    Device::new(Arc::clone(&catalog), DeviceConfig::default()).unwrap()
}

#[test]
fn a_screen_paints_the_bars_and_another_keeps_the_theme() {
    let dir = bundle(
        "paint",
        r##"Screen(system_bars: (status: "#C22423", navigation: "#000000"), root: Column(children: [Text(text: "Red")]))"##,
    );
    let mut device = device(&dir);
    device.open_screen("t.bars", "main", serde_json::json!({})).unwrap();
    let height = device.frame().height;
    // The bars' background, beside the clock and the buttons drawn on them.
    assert!(share_of(&mut device, 4, [0xC2, 0x24, 0x23]) > 0.9);
    assert!(share_of(&mut device, height - 4, [0, 0, 0]) > 0.9);
    // The clock reads in white on red: some of the status bar's pixels are near white.
    let lightest = (0..device.frame().width).flat_map(|x| (0..60).map(move |y| (x, y))).map(|(x, y)| pixel(&mut device, x, y)[1]).max();
    assert!(lightest.is_some_and(|g| g > 200), "{lightest:?}");
    device.open_screen("t.bars", "plain", serde_json::json!({})).unwrap();
    assert!(share_of(&mut device, 4, [0xC2, 0x24, 0x23]) < 0.01);
    assert!(share_of(&mut device, height - 4, [0, 0, 0]) < 0.01);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bar_colour_that_is_not_rrggbb_is_refused_naming_the_file_and_field() {
    let dir = bundle("bad", r#"Screen(system_bars: (navigation: "red"), root: Column(children: []))"#);
    let err = AppBundle::load(&dir).unwrap_err().to_string();
    assert!(err.contains("screens/main.ron") && err.contains("system_bars.navigation") && err.contains("\"red\""), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
