//! The README tutorial's app (examples/tally) works as the README says.

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
    assert!(device.ui_elements().iter().any(|e| e.text.as_deref() == Some("Added one at 09:00")));
    tap(&mut device, "Reset");
    tap(&mut device, "Cancel");
    assert_eq!(device.store().apps["com.example.tally"]["count"], 2);
    tap(&mut device, "Reset");
    tap(&mut device, "Reset");
    assert_eq!(device.store().apps["com.example.tally"]["count"], 0);
    assert!(device.ui_elements().iter().any(|e| e.text.as_deref() == Some("Tally reset")));
}
