//! Helpers shared by the ADB tests: the bundled catalog, phones, and a private adb server.
#![allow(dead_code)]

pub(crate) mod adb;
pub(crate) mod host;

use std::sync::{Arc, OnceLock};

use phoneworld_adb::{PhoneSession, SharedPhone};
use phoneworld_phone::{Catalog, Device, DeviceConfig};
use phoneworld_tasks::{Instance, Suite};

/// The bundled apps, loaded once per test binary.
pub(crate) fn catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    Arc::clone(CATALOG.get_or_init(|| Catalog::load_default(&[]).expect("bundled apps load")))
}

pub(crate) fn device(seed: u64) -> Device {
    Device::new(catalog(), DeviceConfig { seed, ..DeviceConfig::default() }).expect("device")
}

pub(crate) fn session(seed: u64) -> PhoneSession {
    PhoneSession::new(device(seed))
}

/// A task instance of the bundled suite.
pub(crate) fn instance(task: &str, seed: u64) -> Instance {
    let catalog = catalog();
    let suite = Suite::find("phoneworld-v0", &[phoneworld_phone::project_root().join("verifiers")], &catalog).expect("suite");
    Instance::new(suite.get(task).expect("task exists").clone(), seed, &catalog).expect("instance")
}

/// A phone playing `task`, its setup applied.
pub(crate) fn task_phone(task: &str, seed: u64) -> SharedPhone {
    let instance = instance(task, seed);
    let device = instance.device(catalog()).expect("task device");
    SharedPhone::with_task(device, instance)
}

/// The center of the first UI element whose text or description is `label`.
pub(crate) fn center_of(device: &mut Device, label: &str) -> (f64, f64) {
    let e = device
        .ui_elements()
        .into_iter()
        .find(|e| e.text.as_deref() == Some(label) || e.content_description.as_deref() == Some(label))
        .unwrap_or_else(|| panic!("no element {label:?} on screen"));
    let b = e.bbox_pixels.expect("bbox");
    ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)
}
