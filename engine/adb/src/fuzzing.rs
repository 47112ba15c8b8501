//! Entry points for fuzzing: each feeds arbitrary bytes to the real code a client's bytes
//! reach, without a socket, against a fresh in-memory mock phone (the bundled apps, seed 0,
//! forked from one built per thread). None of them panics on any input; a panic is a bug.
//! Outputs are discarded: what is checked is that the server neither panics, hangs nor
//! holds more than its limits allow.

use std::cell::RefCell;
use std::sync::Arc;

use phoneworld_phone::{Catalog, Device, DeviceConfig};

use crate::session::SharedPhone;
use crate::shell::{self, Budget, OutputRoom, ShellState};
use crate::sync::SyncService;

thread_local! {
    /// The phone every input starts from (None when no catalog loads).
    static PRISTINE: RefCell<Option<Device>> = RefCell::new(pristine());
}

fn pristine() -> Option<Device> {
    let catalog: Arc<Catalog> = Catalog::load_default(&[]).or_else(|_| Catalog::load(&[], &[])).ok()?;
    Device::new(catalog, DeviceConfig::default()).ok()
}

/// A fresh phone for one input.
fn fresh_phone() -> Option<SharedPhone> {
    PRISTINE.with(|p| p.borrow().as_ref().map(|device| SharedPhone::new(device.fork())))
}

/// `data` is the host's side of one TCP connection: packets (a CNXN first brings it online,
/// as on the wire), cut anywhere or malformed. Runs the server's connection code on them;
/// returns the server's log (refusals, protocol errors).
pub fn packet_stream(data: &[u8]) -> Vec<String> {
    match fresh_phone() {
        Some(phone) => crate::server::drive(phone, data),
        None => Vec::new(),
    }
}

/// `data` is what a host sends on a `sync:` stream (requests, SEND data, QUIT), delivered in
/// pieces of varying sizes. Returns the bytes the device answered.
pub fn sync_stream(data: &[u8]) -> Vec<u8> {
    let Some(phone) = fresh_phone() else { return Vec::new() };
    let mut sync = SyncService::new();
    let mut out = Vec::new();
    // Cut the input at varying points: requests may arrive split anywhere.
    let piece = data.first().map_or(1, |&b| usize::from(b % 97) + 1);
    for chunk in data.chunks(piece) {
        sync.feed(chunk);
        while sync.has_work() {
            sync.step(&phone, &mut out);
            // Keep what a fuzzer holds small: the device's answers are not inspected.
            if out.len() > 1 << 20 {
                out.clear();
            }
        }
        if sync.finished() {
            break;
        }
    }
    out
}

/// `data` is one shell command line (lossily UTF-8), run by the device's shell within one
/// request's limits, as `adb shell` runs it. Returns the exit status.
pub fn shell_command(data: &[u8]) -> u8 {
    let Some(phone) = fresh_phone() else { return 0 };
    let line = String::from_utf8_lossy(data);
    let room = Arc::new(OutputRoom::new(crate::server::MAX_SERVER_PENDING));
    let mut budget = Budget::new(Some(room));
    shell::run_shared(&phone, &mut ShellState::default(), &line, &mut budget).status
}
