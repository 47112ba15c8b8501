//! The phone an ADB server serves, shared with whoever else drives it (the Python `Phone`, a
//! test): the mock device, its optional task, and what only ADB sees (the device's files,
//! Android settings the store does not model).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use phoneworld_data::Action;
use phoneworld_phone::{Device, StepResult};
use phoneworld_render::Frame;
use phoneworld_tasks::{app_data, judge, Instance, Verdict};
use serde_json::{json, Value};

use crate::fs::DeviceFs;

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
    png_cache: Option<(Arc<Frame>, PngCompression, Arc<Vec<u8>>)>,
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
            if Arc::ptr_eq(cached, &frame) && *level == self.png {
                return Arc::clone(png);
            }
        }
        let png = Arc::new(encode_png(&frame, self.png));
        self.png_cache = Some((frame, self.png, Arc::clone(&png)));
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

/// The phone shared between the ADB server's connections and the code that created it.
/// Cloning shares; every access locks. A panic while locked does not make the phone unusable.
#[derive(Clone, Debug)]
pub struct SharedPhone(Arc<Mutex<PhoneSession>>);

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
        SharedPhone(Arc::new(Mutex::new(session)))
    }

    /// Locks the session. Hold the guard briefly: ADB clients wait while it is held.
    pub fn lock(&self) -> MutexGuard<'_, PhoneSession> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
