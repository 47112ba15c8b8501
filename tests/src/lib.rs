//! A test harness that drives a phone the way an agent does: find an element on screen by
//! text or description, tap it, type, scroll, press keys; and snapshot what the screen shows.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use phoneworld_data::{Action, Key, UiElement};
use phoneworld_phone::{Catalog, Device, DeviceConfig, StepResult};
use serde_json::Value;

/// The bundled apps, loaded once per test binary.
pub fn catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    Arc::clone(CATALOG.get_or_init(|| Catalog::load_default(&[]).expect("bundled apps load")))
}

/// Only Settings and Clock: the phone's own apps, for tests whose expectations must not move
/// when other apps are added.
pub fn core_catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    Arc::clone(CATALOG.get_or_init(|| {
        let root = phoneworld_phone::project_root();
        Catalog::load(&[root.join("apps/settings"), root.join("apps/clock")], &[root.join("layouts")]).expect("core apps load")
    }))
}

/// The repository's `snapshots/` folder.
pub fn snapshots_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../snapshots")
}

/// An app of a test's own, written into a fresh temporary folder (`files`: path inside the app
/// folder -> text) and removed when this is dropped.
pub struct ScratchApp {
    pub dir: PathBuf,
}

impl ScratchApp {
    pub fn new(name: &str, files: &[(&str, &str)]) -> ScratchApp {
        let dir = std::env::temp_dir().join(format!("pw-scratch-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().expect("a file inside the app")).expect("scratch folder");
            std::fs::write(path, text).expect("scratch file");
        }
        ScratchApp { dir }
    }
}

impl Drop for ScratchApp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub struct Harness {
    pub device: Device,
    /// Results of every step taken, for assertions on notes and script errors.
    pub results: Vec<StepResult>,
}

fn center(e: &UiElement) -> (f64, f64) {
    let b = e.bbox_pixels.expect("elements have pixel boxes");
    ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)
}

impl Harness {
    /// A phone with these app folders (and the bundled layouts and library), none broken.
    pub fn with_apps(dirs: &[PathBuf]) -> Harness {
        let root = phoneworld_phone::project_root();
        let catalog = Catalog::load(dirs, &[root.join("layouts")]).expect("apps load");
        assert!(catalog.broken.is_empty(), "{:?}", catalog.broken);
        Harness { device: Device::new(catalog, DeviceConfig::default()).expect("device"), results: Vec::new() }
    }

    pub fn new(seed: u64) -> Harness {
        Harness::with_config(DeviceConfig { seed, ..DeviceConfig::default() })
    }

    pub fn with_config(config: DeviceConfig) -> Harness {
        Harness { device: Device::new(catalog(), config).expect("device"), results: Vec::new() }
    }

    /// Applies an action and asserts no script failed.
    pub fn act(&mut self, action: Action) -> &StepResult {
        let result = self.device.step(&action);
        assert!(result.script_errors.is_empty(), "script errors after {action:?}: {:?}", result.script_errors);
        self.results.push(result);
        self.results.last().expect("pushed")
    }

    pub fn open(&mut self, app: &str) -> &mut Self {
        self.act(Action::OpenApp { app: app.into() });
        self
    }

    pub fn elements(&mut self) -> Vec<UiElement> {
        self.device.ui_elements()
    }

    /// The first element whose text, content description, hint or resource id (after
    /// `:id/`) equals `label`.
    pub fn find(&mut self, label: &str) -> Option<UiElement> {
        self.elements().into_iter().find(|e| {
            e.text.as_deref() == Some(label)
                || e.content_description.as_deref() == Some(label)
                || e.hint_text.as_deref() == Some(label)
                || e.resource_id.as_deref().and_then(|r| r.rsplit(":id/").next()) == Some(label)
        })
    }

    /// Like `find`, but panics with the screen's elements when absent.
    pub fn expect(&mut self, label: &str) -> UiElement {
        match self.find(label) {
            Some(e) => e,
            None => {
                let tree = self.device.ui_tree_text();
                panic!("no element {label:?} on screen:\n{tree}")
            }
        }
    }

    pub fn tap(&mut self, label: &str) -> &mut Self {
        let (x, y) = center(&self.expect(label));
        let result = self.act(Action::Tap { x, y }).clone();
        assert!(result.ok, "tap on {label:?} did nothing: {:?}", result.note);
        self
    }

    pub fn tap_at(&mut self, x: f64, y: f64) -> &mut Self {
        self.act(Action::Tap { x, y });
        self
    }

    pub fn long_press(&mut self, label: &str) -> &mut Self {
        let (x, y) = center(&self.expect(label));
        let result = self.act(Action::LongPress { x, y, ms: 800 }).clone();
        assert!(result.ok, "long press on {label:?} did nothing: {:?}", result.note);
        self
    }

    /// Taps the keyboard's keys one by one, like a person typing.
    pub fn type_on_keyboard(&mut self, text: &str) -> &mut Self {
        for c in text.chars() {
            if c == ' ' {
                self.tap("Space");
                continue;
            }
            if c.is_uppercase() {
                self.tap("Shift");
            }
            self.tap(&c.to_string());
        }
        self
    }

    pub fn type_text(&mut self, text: &str) -> &mut Self {
        self.act(Action::TypeText { text: text.into(), clear: false });
        self
    }

    pub fn key(&mut self, key: Key) -> &mut Self {
        self.act(Action::Key { key });
        self
    }

    pub fn swipe_up(&mut self, distance: f64) -> &mut Self {
        let (w, h) = (f64::from(self.device.config().width), f64::from(self.device.config().height));
        self.act(Action::Swipe { x1: w / 2.0, y1: h * 0.7, x2: w / 2.0, y2: h * 0.7 - distance, ms: 300 });
        self
    }

    /// Swipes up until `label` is on screen; panics after `max` swipes.
    pub fn scroll_to(&mut self, label: &str, max: usize) -> UiElement {
        for _ in 0..max {
            if let Some(e) = self.find(label) {
                return e;
            }
            self.swipe_up(600.0);
        }
        self.expect(label)
    }

    pub fn app_state(&self, package: &str) -> Value {
        self.device.store().apps.get(package).map_or(Value::Null, |a| (**a).clone())
    }

    pub fn system(&self, key: &str) -> Value {
        self.device.store().system.get(key).cloned().unwrap_or(Value::Null)
    }

    pub fn set_dark(&mut self, dark: bool) {
        if let Value::Object(map) = &mut self.device.store_mut().system {
            map.insert("dark_theme".into(), Value::Bool(dark));
        }
    }

    /// The text a screen snapshot holds: where we are, the accessibility tree and the frame hash.
    pub fn screen_text(&mut self) -> String {
        let (package, screen) = self.device.foreground();
        let hash = self.device.frame_hash();
        format!("{package}/{screen}\nframe {hash}\n\n{}", self.device.ui_tree_text())
    }

    /// Writes a small PNG of the screen to `snapshots/png/<name>.png` for people to look at.
    pub fn write_png(&mut self, name: &str) {
        let frame = self.device.frame();
        let small = frame.downscale(frame.width / 4, frame.height / 4);
        let dir = snapshots_dir().join("png");
        std::fs::create_dir_all(&dir).expect("snapshots/png");
        std::fs::write(dir.join(format!("{name}.png")), small.to_png()).expect("write png");
    }
}

/// Asserts a screen snapshot (`snapshots/screens/<name>.snap`) and writes its PNG.
#[macro_export]
macro_rules! assert_screen {
    ($harness:expr, $name:expr) => {{
        let text = $harness.screen_text();
        $harness.write_png($name);
        insta::with_settings!({
            snapshot_path => $crate::snapshots_dir().join("screens"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!($name, text);
        });
    }};
}
