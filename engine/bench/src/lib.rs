//! Shared setup of the PhoneWorld benchmarks: the catalogs, the `typical` fixture app and its
//! action sequences, a busy device for snapshots, the memory measurement, and a tiny median
//! timer for the `report` binary. The divan benches (`benches/engine.rs`) and the binaries
//! (`report`, `memory`) all build their devices here, so every number measures the same thing.
//!
//! Wall-clock time (`std::time::Instant`) is read only in this crate, never in the engine.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use phoneworld_data::{Action, Key, UiElement};
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};

/// Package of the benchmark fixture app (`engine/bench/fixtures/typical`).
pub const TYPICAL: &str = "com.phoneworld.bench.typical";

/// Package of the image benchmark fixture (`engine/bench/fixtures/thumbnails`): a grid of 12
/// photo thumbnails (three 320×240 JPEGs) or, after a tap on "Placeholders", the same grid of
/// placeholders.
pub const THUMBNAILS: &str = "com.phoneworld.bench.thumbnails";

/// Bytes of one full 1080x2400 RGBA frame.
pub const FRAME_BYTES: usize = 1080 * 2400 * 4;

/// The folder holding the fixture apps (`engine/bench/fixtures`).
pub fn fixtures_dir() -> PathBuf {
    project_root().join("engine/bench/fixtures")
}

/// The bundled apps, the fixture apps and the layout modules.
pub fn typical_catalog() -> Arc<Catalog> {
    let root = project_root();
    Catalog::load(&[root.join("apps"), fixtures_dir()], &[root.join("layouts")]).expect("the bench catalog loads")
}

/// Only the bundled apps (`apps/`) and the layout modules.
pub fn bundled_catalog() -> Arc<Catalog> {
    Catalog::load_default(&[]).expect("the bundled catalog loads")
}

/// A device with the default config (1080x2400, 420 dpi).
pub fn new_device(catalog: &Arc<Catalog>) -> Device {
    Device::new(Arc::clone(catalog), DeviceConfig::default()).expect("a default device")
}

/// The pixel centre of an element.
pub fn center(e: &UiElement) -> (f64, f64) {
    let b = e.bbox_pixels.as_ref().expect("elements have pixel bounds");
    ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)
}

/// The first element whose content description or text equals `label`.
pub fn find(device: &mut Device, label: &str) -> Option<UiElement> {
    device.ui_elements().into_iter().find(|e| e.content_description.as_deref() == Some(label) || e.text.as_deref() == Some(label))
}

/// A tap on the centre of the first element labelled `label` (panics when there is none).
pub fn tap_on(device: &mut Device, label: &str) -> Action {
    let e = find(device, label).unwrap_or_else(|| panic!("no element `{label}` on {:?}", device.foreground()));
    let (x, y) = center(&e);
    Action::Tap { x, y }
}

/// Steps and panics when the action was a no-op or a handler failed.
pub fn must_step(device: &mut Device, action: &Action) {
    let r = device.step(action);
    assert!(r.ok && r.script_errors.is_empty(), "{action:?} failed: {r:?}");
}

/// A device with the fixture app open on its list screen (view built).
pub fn typical_device(catalog: &Arc<Catalog>) -> Device {
    let mut device = new_device(catalog);
    must_step(&mut device, &Action::OpenApp { app: TYPICAL.to_owned() });
    device.prepare_view();
    assert_eq!(device.foreground(), (TYPICAL.to_owned(), "main".to_owned()));
    device
}

/// A device on the thumbnails fixture showing the photos or, with `placeholders`, the same
/// grid with no images; and the tap that changes the screen (the "Flip" button's text).
pub fn thumbnails_device(catalog: &Arc<Catalog>, placeholders: bool) -> (Device, Action) {
    let mut device = new_device(catalog);
    must_step(&mut device, &Action::OpenApp { app: THUMBNAILS.to_owned() });
    if placeholders {
        let tap = tap_on(&mut device, "Placeholders");
        must_step(&mut device, &tap);
    }
    let flip = tap_on(&mut device, "Flip off");
    device.prepare_view();
    (device, flip)
}

/// A device on the Maps home screen (the seeded city with its pins) and two drags on the map,
/// 64 px right and back: each step pans the map, so every frame shows the tiles elsewhere.
pub fn maps_pan_device(catalog: &Arc<Catalog>) -> (Device, [Action; 2]) {
    let mut device = new_device(catalog);
    must_step(&mut device, &Action::OpenApp { app: "com.phoneworld.maps".to_owned() });
    let map = find(&mut device, "Map").expect("the Maps home shows a map");
    let (x, y) = center(&map);
    let drag = |dx: f64| Action::Drag { x1: x, y1: y, x2: x + dx, y2: y, ms: 300 };
    let pans = [drag(64.0), drag(-64.0)];
    // Both positions drawn once: the tiles they show are cached, as in a pan across them.
    for p in &pans {
        must_step(&mut device, p);
        device.prepare_view();
        let _ = device.frame();
    }
    (device, pans)
}

/// Taps on the two tabs ("Contacts", "Groups"), alternating: every step changes the screen
/// (the other list of 10 rows, the title, the tab underline), and runs the `tab_changed` handler.
pub fn tab_actions(device: &mut Device) -> [Action; 2] {
    // Tabs are the clickable elements described "Contacts"/"Groups" (the title is a plain text).
    let tab = |d: &mut Device, name: &str| {
        let e = d
            .ui_elements()
            .into_iter()
            .find(|e| e.content_description.as_deref() == Some(name) && e.is_clickable == Some(true))
            .unwrap_or_else(|| panic!("no tab `{name}`"));
        let (x, y) = center(&e);
        Action::Tap { x, y }
    };
    [tab(device, "Groups"), tab(device, "Contacts")]
}

/// Taps on the 10 rows' switches of the first tab, in order: every step toggles one switch
/// (and runs the `row_toggled` handler), so every step changes the screen.
pub fn switch_actions(device: &mut Device) -> Vec<Action> {
    let taps: Vec<Action> = device
        .ui_elements()
        .into_iter()
        .filter(|e| e.content_description.as_deref().is_some_and(|d| d.ends_with(" notifications")))
        .map(|e| {
            let (x, y) = center(&e);
            Action::Tap { x, y }
        })
        .collect();
    assert_eq!(taps.len(), 10, "the fixture shows 10 switches");
    taps
}

/// A device on the Contacts list and swipes that scroll it down by 60 px ten times, up by
/// 57 px ten times, down by 57 px and up by 60 px ten times each (back where it began): every
/// step shows the list at an offset not shown in the last few steps (so no kept layout serves
/// it), most of the screen moving.
pub fn scroll_device(catalog: &Arc<Catalog>) -> (Device, Vec<Action>) {
    let mut device = new_device(catalog);
    must_step(&mut device, &Action::OpenApp { app: "Contacts".to_owned() });
    let swipe = |dy: f64| Action::Swipe { x1: 540.0, y1: 1400.0, x2: 540.0, y2: 1400.0 - dy, ms: 300 };
    let actions = [60.0, -57.0, 57.0, -60.0].into_iter().flat_map(|dy| std::iter::repeat_n(swipe(dy), 10)).collect();
    device.prepare_view();
    (device, actions)
}

/// A device and the action mix `make bench-python` steps through (`python/bench/bench.py`):
/// Settings (two swipes, which do not scroll: its list fits), a detail page and back, Clock's
/// tabs, home. Each Python figure is this mix, so the Rust split of it says where they go.
pub fn python_mix_device(catalog: &Arc<Catalog>) -> (Device, Vec<Action>) {
    let mut device = new_device(catalog);
    let swipe = |y1: f64, y2: f64| Action::Swipe { x1: 540.0, y1, x2: 540.0, y2, ms: 300 };
    let actions = vec![
        Action::OpenApp { app: "Settings".to_owned() },
        swipe(1900.0, 900.0),
        swipe(900.0, 1900.0),
        Action::Tap { x: 540.0, y: 700.0 },
        Action::Key { key: Key::Back },
        Action::OpenApp { app: "Clock".to_owned() },
        Action::Tap { x: 405.0, y: 2180.0 },
        Action::Tap { x: 135.0, y: 2180.0 },
        Action::Key { key: Key::Home },
    ];
    for action in &actions {
        device.step(action);
    }
    device.prepare_view();
    (device, actions)
}

/// A device with a new note's title field focused in Notes, and characters typed into it: 19
/// times an "a", then the field cleared, so every step shows a title not shown in the last
/// few steps.
pub fn typing_device(catalog: &Arc<Catalog>) -> (Device, Vec<Action>) {
    let mut device = new_device(catalog);
    must_step(&mut device, &Action::OpenApp { app: "Notes".to_owned() });
    let new_note = tap_on(&mut device, "New note");
    must_step(&mut device, &new_note);
    let title = device.ui_elements().into_iter().find(|e| e.hint_text.as_deref() == Some("Title")).expect("a new note has a title field");
    let (x, y) = center(&title);
    must_step(&mut device, &Action::Tap { x, y });
    let typed = Action::TypeText { text: "a".to_owned(), clear: false };
    let cleared = Action::TypeText { text: String::new(), clear: true };
    let actions = std::iter::repeat_n(typed, 19).chain(std::iter::once(cleared)).collect();
    device.prepare_view();
    (device, actions)
}

/// What is on the current screen: UI elements and the glyphs of their text (non-blank chars of
/// texts and of the descriptions of text-less elements, i.e. what is drawn as letters).
#[derive(Debug, Clone, Copy)]
pub struct ScreenStats {
    pub ui_elements: usize,
    /// Non-blank characters of the texts shown.
    pub glyphs: usize,
    /// The same with spaces (the text layout places a glyph for each).
    pub chars: usize,
}

pub fn screen_stats(device: &mut Device) -> ScreenStats {
    let elements = device.ui_elements();
    let shown = |e: &UiElement| -> String {
        match (&e.text, e.class_name.as_deref()) {
            (Some(t), _) => t.clone(),
            (None, Some("android.widget.LinearLayout")) => e.content_description.clone().unwrap_or_default(),
            _ => String::new(),
        }
    };
    let chars = elements.iter().map(|e| shown(e).chars().count()).sum();
    let glyphs = elements
        .iter()
        .map(|e| {
            let shown = match (&e.text, e.class_name.as_deref()) {
                (Some(t), _) => t.as_str(),
                // Tabs carry their label as a description; their text is drawn.
                (None, Some("android.widget.LinearLayout")) => e.content_description.as_deref().unwrap_or(""),
                _ => "",
            };
            shown.chars().filter(|c| !c.is_whitespace()).count()
        })
        .sum();
    ScreenStats { ui_elements: elements.len(), glyphs, chars }
}

/// A device with both bundled apps open and screens pushed: Settings › Network & internet and
/// Settings › About phone (via back), Clock on its Clock tab › Clock settings; Settings is in front.
pub fn busy_device(catalog: &Arc<Catalog>) -> Device {
    let mut d = new_device(catalog);
    must_step(&mut d, &Action::OpenApp { app: "Settings".into() });
    let a = tap_on(&mut d, "Network & internet");
    must_step(&mut d, &a);
    must_step(&mut d, &Action::Key { key: Key::Back });
    let a = tap_on(&mut d, "Sound & vibration");
    must_step(&mut d, &a);
    must_step(&mut d, &Action::OpenApp { app: "Clock".into() });
    let a = tap_on(&mut d, "Clock");
    must_step(&mut d, &a);
    let a = tap_on(&mut d, "Clock settings");
    must_step(&mut d, &a);
    must_step(&mut d, &Action::OpenApp { app: "Settings".into() });
    d.prepare_view();
    d
}

/// Every app of the catalog opened once, its Lua loaded (a handler ran) and a view built. No
/// frame. Lua loads on an app's first handler: the entry screen's `on_enter` or the manifest's
/// `on_launch`; Settings has neither, so one of its rows is tapped (a `nav.push` handler) and
/// Back pressed.
pub fn open_every_app(device: &mut Device) {
    let apps: Vec<(String, bool)> = device
        .catalog()
        .apps
        .iter()
        .map(|a| {
            let m = &a.bundle.manifest;
            let entry_enter = a.bundle.screens.get(&m.entry).is_some_and(|s| s.on_enter.is_some());
            (a.package().to_owned(), entry_enter || m.on_launch.is_some())
        })
        .collect();
    for (app, runs_lua) in apps {
        must_step(device, &Action::OpenApp { app: app.clone() });
        if !runs_lua {
            match app.as_str() {
                "com.phoneworld.settings" => {
                    let a = tap_on(device, "Network & internet");
                    must_step(device, &a);
                    must_step(device, &Action::Key { key: Key::Back });
                }
                other => eprintln!("warning: opening {other} runs no handler, its Lua is not loaded"),
            }
        }
        device.prepare_view();
        let _ = device.ui_elements();
    }
}

/// The median of `n` timings (ns) of `f`, after `warmup` untimed runs.
pub fn median_ns<F: FnMut()>(n: usize, warmup: usize, mut f: F) -> f64 {
    median_timed(n, warmup, || {
        let t = Instant::now();
        f();
        t.elapsed().as_nanos()
    })
}

/// The median of `n` runs of `f`, which times itself (so it can do untimed setup first) and
/// returns nanoseconds; after `warmup` runs whose times are dropped.
pub fn median_timed<F: FnMut() -> u128>(n: usize, warmup: usize, mut f: F) -> f64 {
    for _ in 0..warmup {
        f();
    }
    let mut times: Vec<u128> = (0..n).map(|_| f()).collect();
    median(&mut times)
}

/// The median of a list of nanoseconds.
pub fn median(times: &mut [u128]) -> f64 {
    times.sort_unstable();
    let n = times.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        times[n / 2] as f64
    } else {
        (times[n / 2 - 1] + times[n / 2]) as f64 / 2.0
    }
}

/// Resident memory of this process in bytes (`/proc/self/statm`, second field, 4 KiB pages).
pub fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    pages * 4096
}

/// The memory measurement: RSS before and after creating `n` devices of the bundled catalog,
/// each with every app opened once (Lua loaded, a view built; no frame), and with `trim` then
/// trimmed as an idle device is (`Device::trim`). One device is made
/// and dropped first so process-wide things (catalog, fonts, glyph and Lua allocator pools)
/// are not counted per device.
#[derive(Debug, Clone, Copy)]
pub struct MemoryReport {
    pub devices: usize,
    pub rss_before: u64,
    pub rss_after: u64,
    pub snapshot_bytes: usize,
}

impl MemoryReport {
    pub fn per_device(&self) -> f64 {
        self.rss_after.saturating_sub(self.rss_before) as f64 / self.devices as f64
    }
}

pub fn measure_memory(n: usize, trim: bool) -> MemoryReport {
    let catalog = bundled_catalog();
    {
        let mut warm = new_device(&catalog);
        open_every_app(&mut warm);
    }
    let rss_before = rss_bytes();
    let mut devices = Vec::with_capacity(n);
    for _ in 0..n {
        let mut d = new_device(&catalog);
        open_every_app(&mut d);
        if trim {
            d.trim();
        }
        devices.push(d);
    }
    let rss_after = rss_bytes();
    let snapshot_bytes = devices[0].snapshot().len();
    std::hint::black_box(&devices);
    MemoryReport { devices: n, rss_before, rss_after, snapshot_bytes }
}

pub const MIB: f64 = 1024.0 * 1024.0;
