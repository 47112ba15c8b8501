//! The phone an ADB server serves, shared with whoever else drives it (the Python `Phone`, a
//! test): the mock device, its optional task, and what only ADB sees (the device's files,
//! Android settings the store does not model).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use phoneworld_data::Action;
use phoneworld_phone::{Device, StepResult};
use phoneworld_render::Frame;
use phoneworld_tasks::{app_data, judge, Instance, Verdict};
use serde_json::{json, Value};

use crate::fs::{DeviceFs, FsError, MAX_TOTAL_BYTES};

/// At most this many `settings put` keys the store does not model are remembered; putting
/// another new one fails with `settings: at most 1024 extra settings on this device`.
pub const MAX_EXTRA_SETTINGS: usize = 1024;
/// A remembered setting's key and value may each be at most this long (bytes).
pub const MAX_SETTING_BYTES: usize = 4096;
/// At most this many `setprop` properties are remembered.
pub const MAX_EXTRA_PROPS: usize = 1024;
/// Android's `PROP_VALUE_MAX` less its NUL: a property value is at most 91 bytes.
pub const MAX_PROP_VALUE_BYTES: usize = 91;
/// A property name is at most this long (bytes).
pub const MAX_PROP_NAME_BYTES: usize = 256;

/// How hard `screencap -p` compresses. Real phones take seconds for a PNG; a fast level keeps
/// the mock's screenshot round trip to milliseconds while staying a valid, lossless PNG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PngCompression {
    /// Fastest lossless encoding (the default).
    #[default]
    Fast,
    /// The png crate's default level.
    Balanced,
    /// Smallest files, slowest.
    Best,
}

/// A task being played on the phone: the instance and the app data it started from, which the
/// verifier compares against to find collateral damage.
#[derive(Debug, Clone)]
pub struct TaskContext {
    pub instance: Instance,
    pub baseline: Value,
}

/// Everything behind one served phone. Lock it through [`SharedPhone`].
pub struct PhoneSession {
    device: Device,
    task: Option<TaskContext>,
    files: DeviceFs,
    /// `settings put` values of keys the store does not model, by (namespace, key).
    settings: BTreeMap<(String, String), String>,
    /// `setprop` values over the built-in properties.
    props: BTreeMap<String, String>,
    png: PngCompression,
    /// The last PNG encoded, and the frame it encodes (unchanged screens are not encoded twice).
    /// Weak: holding the frame would keep the device from drawing the next one into its buffer.
    png_cache: Option<(Weak<Frame>, PngCompression, Arc<Vec<u8>>)>,
    /// Bytes of pushes still being received, counted against the files' space.
    uploads: Arc<AtomicUsize>,
}

impl std::fmt::Debug for PhoneSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhoneSession")
            .field("device", &self.device)
            .field("task", &self.task.as_ref().map(|t| &t.instance.template.id))
            .finish()
    }
}

impl PhoneSession {
    pub fn new(device: Device) -> PhoneSession {
        PhoneSession {
            device,
            task: None,
            files: DeviceFs::new(),
            settings: BTreeMap::new(),
            props: BTreeMap::new(),
            png: PngCompression::default(),
            png_cache: None,
            uploads: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// A phone playing `instance`; the verifier's baseline is the device's app data now, so
    /// build the device with `instance.device(catalog)` first.
    pub fn with_task(device: Device, instance: Instance) -> PhoneSession {
        let mut session = PhoneSession::new(device);
        session.set_task(Some(instance));
        session
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    pub fn device_mut(&mut self) -> &mut Device {
        &mut self.device
    }

    /// Replaces the device (a reset); the task stays, its baseline is taken again.
    pub fn replace_device(&mut self, device: Device) {
        self.device = device;
        self.png_cache = None;
        if let Some(task) = &mut self.task {
            task.baseline = app_data(&self.device);
        }
    }

    /// Starts the phone afresh: a new device of the same catalog, size and seed, with the task's
    /// setup applied again when a task is attached. The device's files stay, as on a phone.
    pub fn reboot(&mut self) -> Result<(), String> {
        let catalog = Arc::clone(self.device.catalog());
        let config = *self.device.config();
        let device = match &self.task {
            Some(task) => task.instance.device(catalog).map_err(|e| e.to_string())?,
            None => Device::new(catalog, config).map_err(|e| e.to_string())?,
        };
        self.replace_device(device);
        Ok(())
    }

    /// Attaches a task (its baseline is the device's app data now) or detaches it.
    pub fn set_task(&mut self, instance: Option<Instance>) {
        self.task = instance.map(|instance| TaskContext { baseline: app_data(&self.device), instance });
    }

    pub fn task(&self) -> Option<&TaskContext> {
        self.task.as_ref()
    }

    /// The verifier's verdict on the phone as it is now, if a task is attached.
    pub fn verdict(&self) -> Option<Verdict> {
        self.task.as_ref().map(|t| judge(&t.instance, &self.device, &t.baseline))
    }

    /// The verdict as `phoneworld verdict` prints it.
    pub fn verdict_json(&self) -> Option<Value> {
        let task = self.task.as_ref()?;
        let v = judge(&task.instance, &self.device, &task.baseline);
        let (answer, finished) = (&self.device.store().session.answer, &self.device.store().session.finished);
        Some(json!({
            "task": task.instance.template.id,
            "seed": task.instance.seed,
            "success": v.success,
            "reason": v.reason,
            "collateral": v.collateral,
            "subgoals": v.subgoals.iter().map(|(name, ok)| json!({"name": name, "done": ok})).collect::<Vec<_>>(),
            "answer": answer,
            "finished": finished,
            "steps": self.device.store().session.steps,
            "state_hash": self.device.state_hash(),
        }))
    }

    /// Applies one canonical action to the device.
    pub fn step(&mut self, action: &Action) -> StepResult {
        self.device.step(action)
    }

    pub fn files(&self) -> &DeviceFs {
        &self.files
    }

    pub fn files_mut(&mut self) -> &mut DeviceFs {
        &mut self.files
    }

    /// Sets aside `bytes` of the files' space for a push in progress, so pushes held in memory
    /// never exceed what the files could hold ([`MAX_TOTAL_BYTES`]). The space is given back
    /// when the reservation is dropped.
    pub fn reserve_upload(&self, path: &str, bytes: usize) -> Result<UploadReservation, FsError> {
        let mut held = self.uploads.load(Ordering::SeqCst);
        loop {
            let total = self.files.total_bytes().saturating_add(held).saturating_add(bytes);
            if total > MAX_TOTAL_BYTES {
                return Err(FsError::NoSpace { path: path.to_owned() });
            }
            match self.uploads.compare_exchange(held, held + bytes, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return Ok(UploadReservation { counter: Arc::clone(&self.uploads), bytes }),
                Err(now) => held = now,
            }
        }
    }

    /// Bytes set aside for pushes in progress.
    pub fn upload_bytes(&self) -> usize {
        self.uploads.load(Ordering::SeqCst)
    }

    pub fn png_compression(&self) -> PngCompression {
        self.png
    }

    pub fn set_png_compression(&mut self, level: PngCompression) {
        self.png = level;
    }

    /// The screen as PNG (RGBA, 8 bits), cached while the screen is unchanged.
    pub fn screenshot_png(&mut self) -> Arc<Vec<u8>> {
        let frame = self.device.frame();
        if let Some((cached, level, png)) = &self.png_cache {
            // While the weak reference lives, the old frame's allocation is not reused, so an
            // equal address is the same frame.
            if std::ptr::eq(cached.as_ptr(), Arc::as_ptr(&frame)) && *level == self.png {
                return Arc::clone(png);
            }
        }
        let png = Arc::new(encode_png(&frame, self.png));
        self.png_cache = Some((Arc::downgrade(&frame), self.png, Arc::clone(&png)));
        png
    }

    /// The virtual clock in whole seconds since 1970 (file times).
    pub fn clock_secs(&self) -> u32 {
        (self.device.store().session.clock_ms / 1000).clamp(0, i64::from(u32::MAX)) as u32
    }

    pub(crate) fn settings(&self) -> &BTreeMap<(String, String), String> {
        &self.settings
    }

    pub(crate) fn settings_mut(&mut self) -> &mut BTreeMap<(String, String), String> {
        &mut self.settings
    }

    pub(crate) fn props(&self) -> &BTreeMap<String, String> {
        &self.props
    }

    pub(crate) fn props_mut(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.props
    }
}

/// Space set aside by [`PhoneSession::reserve_upload`]; dropping it gives the space back.
#[derive(Debug)]
pub struct UploadReservation {
    counter: Arc<AtomicUsize>,
    bytes: usize,
}

impl UploadReservation {
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Takes over another reservation's space.
    pub fn absorb(&mut self, mut other: UploadReservation) {
        self.bytes += std::mem::take(&mut other.bytes);
    }
}

impl Drop for UploadReservation {
    fn drop(&mut self) {
        self.counter.fetch_sub(self.bytes, Ordering::SeqCst);
    }
}

/// PNG of a frame at a compression level.
pub fn encode_png(frame: &Frame, level: PngCompression) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame.pixels.len() / 8);
    let mut enc = png::Encoder::new(&mut out, frame.width, frame.height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    match level {
        PngCompression::Fast => {
            enc.set_compression(png::Compression::Fast);
            // Flat UI rows compress well after the Sub filter; adaptive filtering costs more than it saves.
            enc.set_filter(png::FilterType::Sub);
            enc.set_adaptive_filter(png::AdaptiveFilterType::NonAdaptive);
        }
        PngCompression::Balanced => enc.set_compression(png::Compression::Default),
        PngCompression::Best => enc.set_compression(png::Compression::Best),
    }
    // Encoding into a Vec cannot fail once the header matches the pixel buffer, which a Frame guarantees.
    if let Ok(mut writer) = enc.write_header() {
        if writer.write_image_data(&frame.pixels).is_ok() {
            let _ = writer.finish();
        }
    }
    out
}

/// How long a long request that hands the phone over waits for a waiting thread to take it.
/// Network-side fairness only: what the phone does never depends on it.
const HANDOFF_WAIT: Duration = Duration::from_millis(20);

#[derive(Debug)]
struct PhoneCell {
    session: Mutex<PhoneSession>,
    /// Threads blocked in [`SharedPhone::lock`].
    waiting: AtomicUsize,
    /// Counts acquisitions, so a hand-off can see that another thread had its turn.
    turns: AtomicU64,
}

/// The phone shared between the ADB server's connections and the code that created it.
/// Cloning shares; every access locks. A panic while locked does not make the phone unusable.
/// Long requests call [`SharedPhone::yield_to_waiters`] between device events, so one client's
/// long command never holds the phone for its whole length.
#[derive(Clone, Debug)]
pub struct SharedPhone(Arc<PhoneCell>);

impl SharedPhone {
    /// Shares a device with no task.
    pub fn new(device: Device) -> SharedPhone {
        SharedPhone::from_session(PhoneSession::new(device))
    }

    /// Shares a device playing a task (see [`PhoneSession::with_task`]).
    pub fn with_task(device: Device, instance: Instance) -> SharedPhone {
        SharedPhone::from_session(PhoneSession::with_task(device, instance))
    }

    pub fn from_session(session: PhoneSession) -> SharedPhone {
        SharedPhone(Arc::new(PhoneCell { session: Mutex::new(session), waiting: AtomicUsize::new(0), turns: AtomicU64::new(0) }))
    }

    /// Locks the session. Hold the guard briefly: ADB clients wait while it is held.
    pub fn lock(&self) -> MutexGuard<'_, PhoneSession> {
        self.0.waiting.fetch_add(1, Ordering::SeqCst);
        let guard = self.0.session.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
        self.0.turns.fetch_add(1, Ordering::SeqCst);
        guard
    }

    /// Lets a thread waiting for the phone have it before the holder of `guard` goes on, and
    /// returns the phone locked again. Free when nobody waits. std's mutex is not fair (the
    /// thread that unlocks usually wins it back), so this waits briefly for a waiter's turn.
    pub fn yield_to_waiters<'a>(&'a self, guard: MutexGuard<'a, PhoneSession>) -> MutexGuard<'a, PhoneSession> {
        if self.0.waiting.load(Ordering::SeqCst) == 0 {
            return guard;
        }
        let turn = self.0.turns.load(Ordering::SeqCst);
        drop(guard);
        let started = Instant::now();
        while self.0.turns.load(Ordering::SeqCst) == turn && started.elapsed() < HANDOFF_WAIT {
            std::thread::yield_now();
        }
        self.lock()
    }

    /// Runs `f` with the session locked.
    pub fn with<T>(&self, f: impl FnOnce(&mut PhoneSession) -> T) -> T {
        f(&mut self.lock())
    }

    /// Does `other` share this phone?
    pub fn same_phone(&self, other: &SharedPhone) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
