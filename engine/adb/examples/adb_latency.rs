//! Measures what an ADB-driven agent waits for on the mock phone at 1080x2400: PNG encoding
//! and decoding apart, and a tap plus `screencap -p` round trip through Debian's adb server
//! (`adb` must be on PATH; a private server is started on a free port and killed at the end).
//!
//! `cargo run --release -p phoneworld-adb --example adb_latency`

use std::process::Command;
use std::time::{Duration, Instant};

use phoneworld_adb::{decode_png, encode_png, AdbClient, AdbPhone, AdbServer, PngCompression, ServerOptions, SharedPhone};
use phoneworld_data::{Action, Key};
use phoneworld_phone::{Catalog, Device, DeviceConfig};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let catalog = Catalog::load_default(&[])?;
    let mut device = Device::new(catalog, DeviceConfig::default())?;
    let frame = device.frame();
    for level in [PngCompression::Fast, PngCompression::Balanced] {
        let times: Vec<Duration> = (0..15)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(encode_png(&frame, level));
                t.elapsed()
            })
            .collect();
        let png = encode_png(&frame, level);
        let decode: Vec<Duration> = (0..15)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(decode_png(&png).expect("decodes"));
                t.elapsed()
            })
            .collect();
        println!("PNG {level:?}: encode {} decode {} ({} KiB)", ms(median(times)), ms(median(decode)), png.len() / 1024);
    }

    let x =
        device.ui_elements().into_iter().find(|e| e.text.as_deref() == Some("Clock")).and_then(|e| e.bbox_pixels).ok_or("no Clock icon")?;
    let (cx, cy) = ((x.x_min + x.x_max) / 2.0, (x.y_min + x.y_max) / 2.0);
    let server = AdbServer::bind("127.0.0.1:0", SharedPhone::new(device), ServerOptions::default())?;
    let home = std::env::temp_dir().join(format!("phoneworld-adb-latency-{}", std::process::id()));
    std::fs::create_dir_all(&home)?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port().to_string();
    let adb = |args: &[&str]| {
        Command::new("adb").arg("-P").arg(&port).args(args).env("HOME", &home).env("TMPDIR", &home).env("ADB_MDNS", "0").output()
    };
    adb(&["start-server"])?;
    let serial = server.local_addr().to_string();
    adb(&["connect", &serial])?;
    let client = AdbClient::local(port.parse()?);
    client.wait_for_device(&serial, Duration::from_secs(10))?;
    let phone = AdbPhone::connect(&client, &serial)?;
    let mut round_trips = Vec::new();
    for i in 0..40 {
        // Alternate between two screens so every screenshot is encoded afresh.
        let action = if i % 2 == 0 { Action::Tap { x: cx, y: cy } } else { Action::Key { key: Key::Back } };
        let t = Instant::now();
        phone.step(&action)?;
        let png = phone.screenshot_png()?;
        round_trips.push(t.elapsed());
        std::hint::black_box(png);
    }
    println!(
        "tap + screencap -p through the adb server (raw PNG bytes): median {} over {} round trips",
        ms(median(round_trips.clone())),
        round_trips.len()
    );
    let _ = adb(&["kill-server"]);
    let _ = std::fs::remove_dir_all(&home);
    Ok(())
}
