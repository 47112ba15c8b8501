//! Snapshots: a whole device to bytes and back. Layout: magic `PWSNAP01`, format version (u32
//! LE), payload length (u64 LE), blake3 of the payload (32 bytes), payload (JSON of the store,
//! the device config and the catalog hash). Every way bytes can be wrong is reported.
//! Version 3 adds the session's interruptions (pending, shown, how they went); version 2
//! snapshots, taken before interruptions existed, still restore (with none).

use std::sync::Arc;

use phoneworld_ui::catalog::Catalog;
use serde::{Deserialize, Serialize};

use crate::device::{Device, DeviceConfig};
use crate::PhoneError;

const MAGIC: &[u8; 8] = b"PWSNAP01";
/// Version 2 stores only the app data that differs from a fresh install of the same seed;
/// version 3 adds interruptions to the session.
const VERSION: u32 = 3;
/// The oldest version this build restores.
const OLDEST: u32 = 2;
const HEADER: usize = 8 + 4 + 8 + 32;

#[derive(Serialize, Deserialize)]
struct Payload {
    catalog: String,
    width: u32,
    height: u32,
    density: u32,
    action_cost_ms: u64,
    seed: u64,
    /// App data that differs from a fresh install with this seed (by package).
    apps: std::collections::BTreeMap<String, serde_json::Value>,
    system: serde_json::Value,
    session: phoneworld_ui::store::Session,
}

impl Device {
    pub fn snapshot(&self) -> Vec<u8> {
        let baseline = Device::baseline(&self.catalog, self.config.seed);
        let apps = self
            .store
            .apps
            .iter()
            .filter(|(package, data)| baseline.store.apps.get(*package).is_none_or(|b| !Arc::ptr_eq(b, data) && **b != ***data))
            .map(|(k, v)| (k.clone(), (**v).clone()))
            .collect();
        let payload = Payload {
            catalog: self.catalog.hash.clone(),
            width: self.config.width,
            height: self.config.height,
            density: self.config.density,
            action_cost_ms: self.config.action_cost_ms,
            seed: self.config.seed,
            apps,
            system: self.store.system.clone(),
            session: self.store.session.clone(),
        };
        let body = serde_json::to_vec(&payload).unwrap_or_default();
        let mut out = Vec::with_capacity(HEADER + body.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(blake3::hash(&body).as_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// Rebuilds a device from snapshot bytes; it continues exactly as the original would.
    pub fn restore(catalog: Arc<Catalog>, bytes: &[u8], limits: phoneworld_script::ScriptLimits) -> Result<Device, PhoneError> {
        let bad = |m: String| PhoneError::Snapshot(m);
        if bytes.len() < HEADER {
            return Err(bad(format!("truncated: {} bytes, the header alone is {HEADER}", bytes.len())));
        }
        if &bytes[..8] != MAGIC {
            return Err(bad("not a PhoneWorld snapshot (bad magic at offset 0)".into()));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if !(OLDEST..=VERSION).contains(&version) {
            return Err(bad(format!("format version {version} at offset 8; this build reads versions {OLDEST} to {VERSION}")));
        }
        let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes")) as usize;
        let body = &bytes[HEADER..];
        if body.len() != len {
            return Err(bad(format!("payload is {} bytes but the header (offset 12) says {len}: truncated or padded", body.len())));
        }
        if blake3::hash(body).as_bytes() != &bytes[20..52] {
            return Err(bad("checksum mismatch (offset 20): the payload is corrupt".into()));
        }
        let payload: Payload = serde_json::from_slice(body).map_err(|e| {
            bad(format!("payload at offset {} (line {}, column {}): {e}", HEADER + e.column().saturating_sub(1), e.line(), e.column()))
        })?;
        if payload.catalog != catalog.hash {
            return Err(bad(format!(
                "taken with other apps installed (catalog {}…, this phone has {}…)",
                &payload.catalog[..12.min(payload.catalog.len())],
                &catalog.hash[..12]
            )));
        }
        let config = DeviceConfig {
            width: payload.width,
            height: payload.height,
            density: payload.density,
            action_cost_ms: payload.action_cost_ms,
            seed: payload.seed,
            limits,
        };
        let mut store = Device::baseline(&catalog, payload.seed).store.clone();
        store.apps.extend(payload.apps.into_iter().map(|(k, v)| (k, Arc::new(v))));
        store.system = payload.system;
        store.session = payload.session;
        Ok(Device::from_store(catalog, config, store))
    }
}
