//! Helpers shared by the reconstruction tests.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use phoneworld_agents::{step_recorded, ImageFormat, ImageOptions, TrajectoryWriter};
use phoneworld_data::{Action, UiElement};
use phoneworld_phone::{Catalog, Device, DeviceConfig};
use phoneworld_reconstruct::{reconstruct, ReconOptions};

pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A fresh, empty folder for one test, in the build's folder for test files (emptied when the
/// next run asks for it again, so runs do not pile up in the system's temporary folder).
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("reconstruct-{}-{name}", env!("CARGO_CRATE_NAME")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies a folder recursively.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every file below a folder, relative and sorted.
pub(crate) fn files_below(dir: &Path) -> Vec<PathBuf> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                out.push(path.strip_prefix(base).unwrap().to_path_buf());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// The fixture formats, each with the folder the trace is in.
pub(crate) const FORMATS: [&str; 5] = ["uiautomator", "llamatouch", "droidbot", "rico", "phoneworld"];

pub(crate) fn texts(device: &mut Device) -> BTreeSet<String> {
    device.ui_elements().into_iter().filter_map(|e| e.text).filter(|t| !t.trim().is_empty()).collect()
}

/// A tap on the center of the first element on screen that `is` picks.
pub(crate) fn tap_on(device: &mut Device, what: &str, is: impl Fn(&UiElement) -> bool) -> Action {
    let e = device.ui_elements().into_iter().find(|e| is(e)).unwrap_or_else(|| panic!("no {what} on screen"));
    let b = e.bbox_pixels.unwrap();
    Action::Tap { x: (b.x_min + b.x_max) / 2.0, y: (b.y_min + b.y_max) / 2.0 }
}

/// A tap on the element showing `text`.
pub(crate) fn tap_text(device: &mut Device, text: &str) -> Action {
    tap_on(device, &format!("`{text}`"), |e| e.text.as_deref() == Some(text))
}

/// A phone whose actions are recorded as a PhoneWorld trajectory with its hierarchies.
pub(crate) struct Recorder {
    pub(crate) device: Device,
    writer: TrajectoryWriter,
    trace: PathBuf,
}

impl Recorder {
    pub(crate) fn new(dir: &Path) -> Recorder {
        let trace = dir.join("trace");
        let images = ImageOptions { format: ImageFormat::Jpeg(80), size: Some((270, 600)), xml: true };
        let writer = TrajectoryWriter::with_images(&trace, Some(images)).unwrap();
        let device = Device::new(Catalog::load_default(&[]).unwrap(), DeviceConfig::default()).unwrap();
        Recorder { device, writer, trace }
    }

    pub(crate) fn act(&mut self, action: &Action) {
        step_recorded(&mut self.device, action, Some(&mut self.writer)).unwrap();
    }

    /// Ends the trajectory; returns its folder.
    pub(crate) fn finish(mut self) -> PathBuf {
        // A trajectory saves the screen each action was taken on: one more, so the last is saved.
        self.act(&Action::Wait { ms: 500 });
        self.writer.finish(&serde_json::json!({ "kind": "test" })).unwrap();
        self.trace
    }
}

pub(crate) const CONTACTS: &str = "com.phoneworld.contacts";

/// Contacts rebuilt from one trace, with Contacts open.
pub(crate) fn rebuilt_contacts(dir: &Path, trace: PathBuf) -> Device {
    rebuilt(dir, trace, CONTACTS)
}

/// `package` rebuilt from `trace` into `dir/app`, opened on a fresh phone.
pub(crate) fn rebuilt(dir: &Path, trace: PathBuf, package: &str) -> Device {
    rebuilt_apart(dir, trace, package, 0.4)
}

/// `rebuilt`, with screens merged only where their structures are `tolerance` alike.
pub(crate) fn rebuilt_apart(dir: &Path, trace: PathBuf, package: &str, tolerance: f64) -> Device {
    let app = dir.join("app");
    let options = ReconOptions { tolerance, visual: false, ..ReconOptions::default() };
    reconstruct(&[trace], &app, &options).unwrap();
    let catalog = Catalog::load_default(std::slice::from_ref(&app)).unwrap();
    let mut rebuilt = Device::new(catalog, DeviceConfig::default()).unwrap();
    rebuilt.step(&Action::OpenApp { app: package.into() });
    rebuilt
}
