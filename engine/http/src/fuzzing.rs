//! Entry points for the fuzz targets: everything a client's request decides, from raw bytes.

use std::sync::{Arc, OnceLock};

use hyper::Method;
use phoneworld_adb::SharedPhone;
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};

use crate::device::{HttpDevice, Reply};
use crate::query::Query;
use crate::server::{route, Route};
use crate::suite::Families;

fn shared() -> &'static (Arc<Catalog>, Arc<Families>) {
    static SHARED: OnceLock<(Arc<Catalog>, Arc<Families>)> = OnceLock::new();
    SHARED.get_or_init(|| {
        let catalog = Catalog::load_default(&[]).expect("the bundled apps load");
        let families = Families::load("phoneworld-v0", &[project_root().join("verifiers")], &catalog).expect("the bundled suite loads");
        (catalog, Arc::new(families))
    })
}

/// One request as `METHOD PATH?QUERY` on the first line and the body after it, answered by a
/// fresh small phone (two devices, so prefixes route). Every reply is fine; a panic is a bug.
pub fn request(data: &[u8]) -> Option<u16> {
    let split = data.iter().position(|b| *b == b'\n').unwrap_or(data.len());
    let line = String::from_utf8_lossy(&data[..split]);
    let body = data.get(split + 1..).unwrap_or_default();
    let (method, target) = line.split_once(' ').unwrap_or(("GET", &line));
    let method = Method::from_bytes(method.as_bytes()).ok()?;
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target, None),
    };
    let Route::To(_, endpoint) = route(&method, path, 2) else { return None };
    let (catalog, families) = shared();
    let config = DeviceConfig { width: 108, height: 240, density: 42, ..DeviceConfig::default() };
    let phone = SharedPhone::new(Device::new(Arc::clone(catalog), config).ok()?);
    let mut device = HttpDevice::new(phone, Arc::clone(families));
    let reply = device.handle(endpoint, &Query::parse(query), body);
    Some(match reply {
        Reply::Json(status, _) | Reply::JsonText(status, _) => status,
        Reply::Bytes(..) => 200,
        Reply::Invalid(_) => 422,
        Reply::Internal(_) => 500,
    })
}
