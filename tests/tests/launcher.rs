//! The launcher pages apps that do not fit on one screen.

use std::path::PathBuf;

use phoneworld_data::Action;
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};
use phoneworld_tests::{assert_screen, Harness};

/// Writes `n` tiny apps into a fresh folder and returns it.
fn many_apps(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("phoneworld-launcher-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let icons = ["mail", "map", "music_note", "photo", "calendar_month", "chat", "shopping_cart", "cloud"];
    for i in 0..n {
        let app = dir.join(format!("app{i:02}"));
        std::fs::create_dir_all(app.join("screens")).unwrap();
        std::fs::write(
            app.join("app.ron"),
            format!(
                "App(package: \"com.example.app{i:02}\", label: \"App {i:02}\", icon: \"{}\", entry: \"main\", state: {{}})",
                icons[i % icons.len()]
            ),
        )
        .unwrap();
        std::fs::write(
            app.join("screens/main.ron"),
            format!("Screen(title: \"App {i:02}\", root: Column(children: [TopBar(title: \"App {i:02}\")]))"),
        )
        .unwrap();
    }
    dir
}

#[test]
fn apps_beyond_one_page_go_to_a_second_page() {
    let root = project_root();
    let catalog = Catalog::load(&[root.join("apps/settings"), root.join("apps/clock"), many_apps(22)], &[root.join("layouts")]).unwrap();
    assert_eq!(catalog.apps.len(), 24);
    let mut h = Harness { device: Device::new(catalog, DeviceConfig::default()).unwrap(), results: Vec::new() };
    assert!(h.find("App 00").is_some());
    assert!(h.find("Settings").is_none(), "the 24th app is on page 2");
    assert!(h.find("Page 2 of 2").is_some());
    // Swipe left to the second page.
    h.act(Action::Swipe { x1: 900.0, y1: 1200.0, x2: 100.0, y2: 1200.0, ms: 300 });
    assert!(h.find("Settings").is_some());
    assert_screen!(h, "launcher_page_2");
    // A page dot goes back; the app opens from its icon.
    h.tap("Page 1 of 2");
    h.tap("App 03");
    assert_eq!(h.device.foreground(), ("com.example.app03".to_owned(), "main".to_owned()));
}
