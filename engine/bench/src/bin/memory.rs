//! Resident memory per device: RSS (`/proc/self/statm`) before and after creating 100 devices
//! of the bundled catalog, each with every bundled app opened once (its Lua loaded, a view
//! built; no frame is rendered). Target: ≤ 2 MiB per device. With `--trim` each device is
//! trimmed after opening the apps, as a pool trims the phones it is not stepping (target: ≤ 2 MiB
//! per device, and 10,000 of them within 16 GiB). Prints one JSON object.
//!
//! `cargo run --release -p phoneworld-bench --bin memory [-- N] [--trim]`

/// The allocator the phoneworld binary and the Python module use, so the figures are theirs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use phoneworld_bench::{measure_memory, MIB};

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let trim = std::env::args().any(|a| a == "--trim");
    let started = std::time::Instant::now();
    let r = measure_memory(n, trim);
    let round = |v: f64| (v * 1000.0).round() / 1000.0;
    let out = serde_json::json!({
        "devices": r.devices,
        "trimmed": trim,
        "seconds": round(started.elapsed().as_secs_f64()),
        "rss_before_mib": round(r.rss_before as f64 / MIB),
        "rss_after_mib": round(r.rss_after as f64 / MIB),
        "per_device_mib": round(r.per_device() / MIB),
        "snapshot_bytes": r.snapshot_bytes,
        "snapshot_kib": round(r.snapshot_bytes as f64 / 1024.0),
    });
    println!("{out}");
}
