//! The README tutorial's app (examples/tally) works as the README says, and is what
//! `phoneworld new` writes.

use phoneworld_data::Action;
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};

#[test]
fn the_tutorial_app_counts_and_resets_after_confirming() {
    let root = project_root();
    let catalog = Catalog::load(&[root.join("apps"), root.join("examples/tally")], &[root.join("layouts")]).unwrap();
    assert!(catalog.broken.is_empty(), "{:?}", catalog.broken);
    let mut device = Device::new(catalog, DeviceConfig::default()).unwrap();
    let tap = |device: &mut Device, label: &str| {
        let e = device.ui_elements().into_iter().find(|e| e.text.as_deref() == Some(label)).unwrap_or_else(|| panic!("{label}"));
        let b = e.bbox_pixels.unwrap();
        let r = device.step(&Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 });
        assert!(r.ok && r.script_errors.is_empty(), "{r:?}");
    };
    device.step(&Action::OpenApp { app: "Tally".into() });
    tap(&mut device, "Add one");
    tap(&mut device, "Add one");
    assert_eq!(device.store().apps["com.example.tally"]["count"], 2);
    let texts: Vec<String> = device.ui_elements().into_iter().filter_map(|e| e.text).collect();
    assert!(texts.iter().any(|t| t == "Added one at 09:00") && texts.iter().any(|t| t == "2 taps so far"), "{texts:?}");
    tap(&mut device, "Reset");
    tap(&mut device, "Cancel");
    assert_eq!(device.store().apps["com.example.tally"]["count"], 2);
    tap(&mut device, "Reset");
    tap(&mut device, "Reset");
    assert_eq!(device.store().apps["com.example.tally"]["count"], 0);
    assert!(device.ui_elements().iter().any(|e| e.text.as_deref() == Some("Tally reset")));
}

#[test]
fn a_new_app_is_the_tutorial_app_and_passes_check() {
    use phoneworld_data::scaffold;
    let root = project_root();
    let dir = std::env::temp_dir().join(format!("phoneworld-new-{}", std::process::id())).join("tally");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!((scaffold::label_for(&dir), scaffold::package_for(&dir)), ("Tally".to_owned(), "com.example.tally".to_owned()));
    let written = scaffold::scaffold(&dir, "Tally", "com.example.tally").unwrap();
    for file in &written {
        let rel = file.strip_prefix(&dir).unwrap();
        let committed = std::fs::read_to_string(root.join("examples/tally").join(rel)).unwrap();
        assert!(std::fs::read_to_string(file).unwrap() == committed, "examples/tally/{} differs from what `new` writes", rel.display());
    }
    let (modules, _) = phoneworld_data::LayoutModules::load(&[root.join("layouts")]);
    let (library, _) = phoneworld_data::LuaLibrary::load(&[root.join("lib")]);
    assert_eq!(phoneworld_phone::check_app(&dir, &modules, &library), Vec::new());
    assert!(scaffold::scaffold(&dir, "Tally", "com.example.tally").unwrap_err().to_string().contains("is not empty"));
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}
