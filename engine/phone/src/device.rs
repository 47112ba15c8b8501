//! The device: the store, the installed apps, the Lua host, and cached view, layout and frame.

use std::sync::Arc;

use phoneworld_layout::{Layouter, PlacedTree, SubtreeHashes};
use phoneworld_render::{DrawCmd, Frame, FrameBands};
use phoneworld_script::{ScriptError, ScriptHost, ScriptLimits};
use phoneworld_ui::catalog::{Baseline, Catalog};
use phoneworld_ui::compose::{compose, Composed};
use phoneworld_ui::shell::LAUNCHER;
use phoneworld_ui::store::{Foreground, Store};
use phoneworld_ui::RowMemo;
use serde::Serialize;

use crate::PhoneError;

/// Frames a device keeps after replacing them while they were viewed, to draw into once nobody
/// views them: two cover an agent that holds its last observation while the next is drawn.
const MAX_RETIRED_FRAMES: usize = 2;

/// How a device is built.
#[derive(Debug, Clone, Copy)]
pub struct DeviceConfig {
    pub width: u32,
    pub height: u32,
    /// Dots per inch; 420 like a current Pixel (2.625 px per dp).
    pub density: u32,
    /// Virtual ms every action costs at least.
    pub action_cost_ms: u64,
    pub seed: u64,
    pub limits: ScriptLimits,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        DeviceConfig { width: 1080, height: 2400, density: 420, action_cost_ms: 500, seed: 0, limits: ScriptLimits::default() }
    }
}

impl DeviceConfig {
    pub fn px_per_dp(&self) -> f32 {
        self.density as f32 / 160.0
    }
}

/// What one step did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepResult {
    pub step: u64,
    pub action: String,
    /// False when the action was a no-op; `note` says why.
    pub ok: bool,
    pub note: Option<String>,
    pub script_errors: Vec<ScriptError>,
    pub package: String,
    pub screen: String,
    pub clock_ms: i64,
}

/// The composed and laid-out screen of the current store.
#[derive(Debug)]
pub(crate) struct View {
    pub(crate) composed: Composed,
    pub(crate) placed: PlacedTree,
    pub(crate) hash: u64,
    /// The hash of the tree with the status bar left out (`TreeHashes`).
    below_status_bar: u64,
}

/// A kept layout: the hashes of its tree (whole, and without the status bar) and the layout.
type KeptLayout = (u64, u64, PlacedTree);

/// How many recent layouts a phone keeps for reuse unless told otherwise (`keep_layouts`):
/// a session goes back and forth between a few screens, and many phones share a machine.
const RECENT_LAYOUTS: usize = 4;

/// The content hashes of a composed tree: whole, and with the status bar left out, and those
/// of every subtree (what the layout keeps by).
#[derive(Debug, Clone)]
struct TreeHashes {
    whole: u64,
    below_status_bar: u64,
    subtrees: SubtreeHashes,
}

/// A mock phone.
pub struct Device {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) config: DeviceConfig,
    pub(crate) store: Store,
    pub(crate) scripts: Option<ScriptHost>,
    pub(crate) view: Option<View>,
    /// Layouts of recent views by tree hash, newest last: a tree shown again (a screen
    /// revisited, an unchanged tree after a no-op step) reuses its layout.
    recent_layouts: std::collections::VecDeque<KeptLayout>,
    layouts_kept: usize,
    /// Lays out the status bar alone, when only the clock changed on a kept screen.
    bar_layouter: Layouter,
    /// The composed tree and its hashes, not laid out yet (`screen_hash` needs no layout).
    composed: Option<(Composed, TreeHashes)>,
    /// List rows kept from the last compose, rebuilt only when what they read changed.
    rows: RowMemo,
    /// `screen_hash` of the current store, until it changes.
    screen_hash: Option<u64>,
    layouter: Layouter,
    frame: Option<(u64, Arc<Frame>)>,
    /// The frame at the last reduced size asked for, by the hash of the view it shows.
    scaled_frame: Option<(u64, Arc<Frame>)>,
    /// What the buffer of `frame` holds, band by band, so the next frame redraws what changed.
    frame_bands: FrameBands,
    /// The same for the buffer of `scaled_frame`.
    scaled_bands: FrameBands,
    /// Frames replaced while someone still viewed them (a Python array over the pixels): once
    /// nobody does, their buffers take the next frames instead of new ones (at most
    /// `MAX_RETIRED_FRAMES`).
    retired_frames: Vec<Arc<Frame>>,
    display_list: Vec<DrawCmd>,
    /// `display_list` at the scale of `scaled_frame`.
    scaled_list: Vec<DrawCmd>,
    /// Errors of apps' install hooks (their data stays as the manifest gives it).
    pub(crate) install_errors: Vec<ScriptError>,
    /// This step focused a field or edited its text: bring the field into view after it.
    pub(crate) reveal_pending: bool,
    /// The step whose handlers' work `work_used` counts, and that work.
    pub(crate) work_step: u64,
    pub(crate) work_used: u64,
    /// Upper bounds of the sizes of app data, screen state and settings.
    pub(crate) size_bounds: crate::limits::SizeBounds,
    /// The last answers of screens' view functions and what they were computed from.
    pub(crate) view_memos: crate::view_memo::ViewMemos,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").field("config", &self.config).field("foreground", &self.store.session.foreground).finish()
    }
}

impl Device {
    /// A fresh device with every app of the catalog installed, on the home screen.
    pub fn new(catalog: Arc<Catalog>, config: DeviceConfig) -> Result<Device, PhoneError> {
        if config.width < 200 || config.height < 300 || config.width > 8192 || config.height > 8192 {
            return Err(PhoneError::Config(format!("unsupported screen size {}x{}", config.width, config.height)));
        }
        if config.density < 80 || config.density > 1000 {
            return Err(PhoneError::Config(format!("unsupported density {}", config.density)));
        }
        let baseline = Device::baseline(&catalog, config.seed);
        let mut device = Device::from_store(catalog, config, baseline.store.clone());
        device.install_errors = baseline.errors.clone();
        Ok(device)
    }

    /// The store of a freshly installed phone for this seed, cached in the catalog.
    pub(crate) fn baseline(catalog: &Arc<Catalog>, seed: u64) -> Arc<Baseline> {
        const KEEP: usize = 32;
        if let Ok(cache) = catalog.baselines.lock() {
            if let Some((_, b)) = cache.iter().find(|(s, _)| *s == seed) {
                return Arc::clone(b);
            }
        }
        let mut store = Store::new(seed);
        for app in &catalog.apps {
            store.apps.insert(app.package().to_owned(), Arc::new(app.bundle.initial_state()));
        }
        let mut device = Device::from_store(Arc::clone(catalog), DeviceConfig { seed, ..DeviceConfig::default() }, store);
        // Install hooks generate each app's varied data from the seeded RNG, in catalog order.
        let mut out = crate::outcome::Outcome::default();
        for app in &catalog.apps {
            if let Some(handler) = &app.bundle.manifest.on_install {
                device.run_handler(app.package(), handler, serde_json::json!({}), &mut out);
            }
        }
        // An app with a map gets its city's seed, drawn from a generator of its own so that
        // the other apps' generated data does not depend on which apps show maps.
        for app in &catalog.apps {
            if let Some(spec) = &app.bundle.manifest.map {
                let salt = blake3::hash(app.package().as_bytes());
                let salt = u64::from_le_bytes(salt.as_bytes()[..8].try_into().expect("8 bytes"));
                let city_seed = phoneworld_data::Rng::new(seed ^ salt).next_u64() >> 11;
                let state = device.store.app_mut(app.package());
                if let serde_json::Value::Object(map) = state {
                    map.insert(spec.seed.clone(), serde_json::json!(city_seed));
                }
            }
        }
        let baseline = Arc::new(Baseline { store: device.store, errors: out.errors });
        if let Ok(mut cache) = catalog.baselines.lock() {
            if cache.len() >= KEEP {
                cache.pop_front();
            }
            cache.push_back((seed, Arc::clone(&baseline)));
        }
        baseline
    }

    pub(crate) fn from_store(catalog: Arc<Catalog>, config: DeviceConfig, store: Store) -> Device {
        Device {
            catalog,
            config,
            store,
            scripts: None,
            view: None,
            recent_layouts: Default::default(),
            layouts_kept: RECENT_LAYOUTS,
            bar_layouter: Layouter::new(),
            composed: None,
            rows: RowMemo::default(),
            screen_hash: None,
            layouter: Layouter::new(),
            frame: None,
            scaled_frame: None,
            frame_bands: FrameBands::default(),
            scaled_bands: FrameBands::default(),
            retired_frames: Vec::new(),
            display_list: Vec::new(),
            scaled_list: Vec::new(),
            install_errors: Vec::new(),
            reveal_pending: false,
            work_step: 0,
            work_used: 0,
            size_bounds: Default::default(),
            view_memos: Default::default(),
        }
    }

    /// Script errors raised by apps' `on_install` hooks when the phone was created.
    pub fn install_errors(&self) -> &[ScriptError] {
        &self.install_errors
    }

    pub fn config(&self) -> &DeviceConfig {
        &self.config
    }

    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.catalog
    }

    /// The store (read-only): app data, system settings, session.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Changes the store directly (task setup, tests); the view is rebuilt.
    pub fn store_mut(&mut self) -> &mut Store {
        self.invalidate();
        &mut self.store
    }

    /// The Lua host, created on first use so idle devices cost no Lua state.
    pub(crate) fn scripts(&mut self) -> Result<&mut ScriptHost, ScriptError> {
        if self.scripts.is_none() {
            self.scripts = Some(ScriptHost::new(self.config.limits)?);
        }
        Ok(self.scripts.as_mut().expect("just created"))
    }

    /// The current screen, composed and laid out (cached until the store changes).
    pub(crate) fn view(&mut self) -> &View {
        if self.view.is_none() {
            let (w, h) = (self.config.width as f32, self.config.height as f32);
            let (composed, hashes) = self.composed.take().unwrap_or_else(|| self.compose_now());
            let (whole, below_status_bar) = (hashes.whole, hashes.below_status_bar);
            let placed = match self.kept_layout(&composed, &hashes) {
                Some(placed) => placed,
                None => {
                    // The layouter copies what did not change from its last layout, if kept.
                    let last = self.layouter.generation();
                    let previous = self.recent_layouts.iter().map(|(_, _, placed)| placed).find(|p| p.generation == last);
                    self.layouter.layout_after(&composed.root, &hashes.subtrees, previous, [0.0, 0.0, w, h])
                }
            };
            self.view = Some(View { composed, placed, hash: whole, below_status_bar });
        }
        self.view.as_ref().expect("just built")
    }

    /// A hash of what the screen shows below the status bar (the composed view tree, the
    /// clock left out): equal hashes, equal screens whatever the time. For callers that keep
    /// what they derived from a screen; no frame is drawn for it.
    pub fn screen_hash(&mut self) -> u64 {
        // Every composing notes the hash; only a change of the store forgets it.
        if self.screen_hash.is_none() {
            let composed = self.compose_now();
            if self.view.is_none() {
                self.composed = Some(composed);
            }
        }
        self.screen_hash.unwrap_or(0)
    }

    /// The screen composed from the store now and its hashes; notes its `screen_hash`.
    fn compose_now(&mut self) -> (Composed, TreeHashes) {
        let (w, h) = (self.config.width as f32, self.config.height as f32);
        let (vm, vm_problem) = self.screen_vm();
        let mut composed = compose(&self.store, &self.catalog, &vm, w, h, self.config.px_per_dp(), &mut self.rows);
        composed.problems.extend(vm_problem);
        let subtrees = composed.root.subtree_hashes();
        let whole = subtrees.hash[0];
        let mut children: Vec<u64> = subtrees.children(0).map(|i| subtrees.hash[i]).collect();
        // The status bar is the root's first child (`compose`); FNV-1a over the others' hashes.
        let screen = children.iter().skip(1).fold(0xcbf2_9ce4_8422_2325_u64, |h, c| {
            c.to_le_bytes().iter().fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
        });
        self.screen_hash = Some(screen);
        if let Some(bar) = children.first_mut() {
            *bar = 0;
        }
        let below_status_bar = composed.root.hash_over(&children);
        (composed, TreeHashes { whole, below_status_bar, subtrees })
    }

    /// The layout of a kept screen for this tree: the same tree's, or the same screen's with
    /// another status bar (the clock moved on), its bar laid out again.
    fn kept_layout(&mut self, composed: &Composed, hashes: &TreeHashes) -> Option<PlacedTree> {
        if let Some(i) = self.recent_layouts.iter().position(|(whole, _, _)| *whole == hashes.whole) {
            return self.recent_layouts.remove(i).map(|(_, _, placed)| placed);
        }
        let i = self.recent_layouts.iter().position(|(_, below, _)| *below == hashes.below_status_bar)?;
        let bar = composed.root.children.first()?;
        let (_, _, mut placed) = self.recent_layouts.remove(i)?;
        self.bar_layouter.relayout_root_child(&mut placed, 0, bar).then_some(placed)
    }

    /// Forgets the composed view (the store changed).
    pub(crate) fn invalidate(&mut self) {
        // Keep the old layout around for reuse when a new tree hashes the same.
        if let Some(view) = self.view.take() {
            if self.recent_layouts.len() >= self.layouts_kept {
                self.recent_layouts.pop_front();
            }
            if self.layouts_kept > 0 {
                self.recent_layouts.push_back((view.hash, view.below_status_bar, view.placed));
            }
        }
        self.composed = None;
        self.screen_hash = None;
    }

    /// Keeps the layouts of up to `n` recent screens for reuse (4 by default): more for a
    /// long replay through many screens, at the memory of a layout each.
    pub fn keep_layouts(&mut self, n: usize) {
        self.layouts_kept = n;
        while self.recent_layouts.len() > n {
            self.recent_layouts.pop_front();
        }
    }

    /// Drops the cached view, the kept layouts and layout trees, and the frame: the next
    /// observation composes, lays out and draws from scratch (benchmarks measure cold paths
    /// with this; tests compare what was kept with it).
    pub fn clear_caches(&mut self) {
        self.view = None;
        self.rows = RowMemo::default();
        self.recent_layouts.clear();
        self.layouter = self.layouter.fresh();
        self.bar_layouter = self.bar_layouter.fresh();
        self.composed = None;
        self.screen_hash = None;
        self.clear_frame_cache();
        self.view_memos.clear();
    }

    /// How many list rows the last compose kept for the next (built or reused).
    pub fn kept_rows(&self) -> usize {
        self.rows.len()
    }

    /// Lays out from now on in one taffy tree, without layout boundaries (fixed-size boxes laid
    /// out on their own): the reference tests compare the boundaries' layouts with.
    pub fn use_reference_layout(&mut self) {
        self.layouter = Layouter::without_boundaries();
        self.bar_layouter = Layouter::without_boundaries();
        self.clear_caches();
    }

    /// Drops what an idle device can rebuild: its Lua host (the apps' scripts), the laid-out
    /// view, kept layouts and layout trees, both frames with their buffers, and the view memos;
    /// what stays is the state a snapshot holds. The next step or observation rebuilds what it
    /// needs, and states, frames and hashes stay those of a device never trimmed: the host keeps
    /// an app's scripts only while events leave them as built, so a new host acts as the old.
    /// A pool of many phones trims those it is not stepping.
    pub fn trim(&mut self) {
        self.scripts = None;
        self.clear_caches();
        self.recent_layouts = Default::default();
        self.display_list = Vec::new();
        self.scaled_list = Vec::new();
        self.view_memos = Default::default();
    }

    /// Drops only the cached frame: the next `frame()` renders again from the laid-out view.
    pub fn clear_frame_cache(&mut self) {
        self.frame = None;
        self.scaled_frame = None;
        self.retired_frames.clear();
    }

    /// The next changed `frame()` draws every pixel into its buffer, not only the bands that
    /// changed (benchmarks of whole-screen drawing use this).
    pub fn redraw_whole_frame(&mut self) {
        self.frame_bands.invalidate();
        self.scaled_bands.invalidate();
    }

    /// Composes and lays out the current screen if needed (what a step costs up to UI elements).
    pub fn prepare_view(&mut self) {
        let _ = self.view();
    }

    /// The foreground package and screen id (`com.phoneworld.launcher` / `home` or `recents`).
    pub fn foreground(&self) -> (String, String) {
        match &self.store.session.foreground {
            Foreground::Home => (LAUNCHER.to_owned(), "home".to_owned()),
            Foreground::Recents => (LAUNCHER.to_owned(), "recents".to_owned()),
            Foreground::App(p) => (p.clone(), self.store.top(p).map(|e| e.screen.clone()).unwrap_or_default()),
        }
    }

    /// The full-resolution RGBA frame (cached by the content of the screen).
    pub fn frame(&mut self) -> Arc<Frame> {
        let hash = self.view().hash;
        if let Some((cached, frame)) = &self.frame {
            if *cached == hash {
                return Arc::clone(frame);
            }
        }
        let size = (self.config.width, self.config.height);
        let last = self.frame.take().map(|(_, last)| last);
        let (buffer, previous) = self.next_buffer(last, size);
        let frame = Arc::new(self.draw_view(buffer, previous, size, None));
        self.frame = Some((hash, Arc::clone(&frame)));
        frame
    }

    /// The frame at `width` x `height`. A size that scales both sides by one factor (540x1200
    /// of a 1080x2400 phone) is drawn at that size directly, with the same layout; any other
    /// size is the full frame box-filtered down. The last size asked for is kept until the
    /// screen changes, so observing an unchanged screen at a reduced size costs nothing more.
    pub fn frame_scaled(&mut self, width: u32, height: u32) -> Arc<Frame> {
        let full = (self.config.width, self.config.height);
        if (width, height) == full {
            return self.frame();
        }
        let hash = self.view().hash;
        if let Some((kept, scaled)) = &self.scaled_frame {
            if *kept == hash && (scaled.width, scaled.height) == (width, height) {
                return Arc::clone(scaled);
            }
        }
        let scaled = match phoneworld_render::uniform_scale(full, (width, height)) {
            Some(scale) => {
                let last = self.scaled_frame.take().map(|(_, last)| last).filter(|f| (f.width, f.height) == (width, height));
                let (buffer, previous) = self.next_buffer(last, (width, height));
                self.draw_view(buffer, previous, (width, height), Some(scale))
            }
            None => {
                // The kept buffer is about to hold a filtered frame, not what its bands say.
                self.scaled_bands.invalidate();
                self.frame().downscale(width, height)
            }
        };
        let scaled = Arc::new(scaled);
        self.scaled_frame = Some((hash, Arc::clone(&scaled)));
        scaled
    }

    /// The buffer to draw the next frame of `size` into, given the `last` frame of that kind,
    /// and the last frame again when the buffer is not it. Held by nobody else, the last frame is
    /// drawn over in place. Still viewed (a Python array over its pixels), it stays as it is and
    /// is retired: the next frame goes into a retired buffer nobody views any more, or a new one,
    /// with the unchanged rows copied from it.
    fn next_buffer(&mut self, last: Option<Arc<Frame>>, size: (u32, u32)) -> (Option<Frame>, Option<Arc<Frame>>) {
        let Some(last) = last else { return (None, None) };
        let viewed = match Arc::try_unwrap(last) {
            Ok(frame) => return (Some(frame), None),
            Err(viewed) => viewed,
        };
        let free = self.retired_frames.iter().position(|f| Arc::strong_count(f) == 1 && (f.width, f.height) == size);
        let buffer = free.and_then(|i| Arc::try_unwrap(self.retired_frames.remove(i)).ok()).unwrap_or_else(|| Frame::new(size.0, size.1));
        self.retired_frames.push(Arc::clone(&viewed));
        if self.retired_frames.len() > MAX_RETIRED_FRAMES {
            self.retired_frames.remove(0);
        }
        (Some(buffer), Some(viewed))
    }

    /// Draws the laid-out view into `buffer` (a new frame of `size` when none), at `scale` of
    /// the device's pixels when given; over `previous` when the buffer does not hold the last
    /// frame. The full and the scaled frame keep separate buffers and bands, so each redraws
    /// only the bands that changed since its own last frame.
    fn draw_view(&mut self, buffer: Option<Frame>, previous: Option<Arc<Frame>>, size: (u32, u32), scale: Option<f32>) -> Frame {
        let bands = if scale.is_some() { &mut self.scaled_bands } else { &mut self.frame_bands };
        let mut frame = buffer.unwrap_or_else(|| {
            bands.invalidate();
            Frame::new(size.0, size.1)
        });
        let view = self.view.as_ref().expect("the caller built the view");
        let background = view.composed.root.paint.background.unwrap_or(phoneworld_render::Color::BLACK);
        self.display_list.clear();
        phoneworld_layout::paint(&view.placed, &mut self.display_list);
        let list = match scale {
            Some(scale) => {
                self.scaled_list.clear();
                phoneworld_render::scale_commands(&self.display_list, scale, &mut self.scaled_list);
                &self.scaled_list
            }
            None => &self.display_list,
        };
        match previous {
            Some(previous) => phoneworld_render::render_over(list, &previous, &mut frame, background, bands),
            None => phoneworld_render::render_reusing(list, &mut frame, background, bands),
        }
        frame
    }

    /// blake3 of the frame.
    pub fn frame_hash(&mut self) -> String {
        self.frame().hash()
    }

    /// The whole store as JSON.
    pub fn state_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.store).unwrap_or(serde_json::Value::Null)
    }

    /// blake3 of the store's canonical JSON (maps are sorted).
    pub fn state_hash(&self) -> String {
        let bytes = serde_json::to_vec(&self.store).unwrap_or_default();
        blake3::hash(&bytes).to_hex().to_string()
    }

    /// Problems met while building the current screen (unknown module or color, bad path).
    pub fn view_problems(&mut self) -> Vec<String> {
        self.view().composed.problems.clone()
    }

    /// A copy of this device that continues independently.
    pub fn fork(&self) -> Device {
        Device::from_store(Arc::clone(&self.catalog), self.config, self.store.clone())
    }

    /// Takes over `other`'s Lua host, when both run the same apps under the same limits: a
    /// device that replaces another (an env reset to its task's start) then skips building a
    /// Lua state and its apps' scripts again. Nothing of `other`'s events carries over: the
    /// host keeps an app's scripts only while every event leaves them as they were built.
    pub fn adopt_scripts(&mut self, other: &mut Device) {
        if Arc::ptr_eq(&self.catalog, &other.catalog) && self.config.limits == other.config.limits && self.scripts.is_none() {
            self.scripts = other.scripts.take();
        }
    }
}
