//! Snapshot bytes: a round trip continues identically; damaged bytes give clear errors.

use phoneworld_data::Action;
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig, PhoneError, ScriptLimits};
use phoneworld_tests::catalog;

fn device_with_apps_open() -> Device {
    let mut d = Device::new(catalog(), DeviceConfig { seed: 5, ..DeviceConfig::default() }).unwrap();
    d.step(&Action::OpenApp { app: "Clock".into() });
    d.step(&Action::OpenApp { app: "Settings".into() });
    d
}

fn restore_err(bytes: &[u8]) -> String {
    match Device::restore(catalog(), bytes, ScriptLimits::default()) {
        Err(PhoneError::Snapshot(m)) => m,
        Err(other) => panic!("unexpected error kind: {other}"),
        Ok(_) => panic!("damaged bytes restored"),
    }
}

#[test]
fn restore_continues_identically() {
    let mut a = device_with_apps_open();
    let mut b = Device::restore(catalog(), &a.snapshot(), ScriptLimits::default()).unwrap();
    assert_eq!(a.state_hash(), b.state_hash());
    assert_eq!(a.frame_hash(), b.frame_hash());
    for action in [Action::Key { key: phoneworld_data::Key::Recents }, Action::Tap { x: 540.0, y: 700.0 }] {
        a.step(&action);
        b.step(&action);
        assert_eq!(a.state_hash(), b.state_hash());
        assert_eq!(a.frame_hash(), b.frame_hash());
    }
    assert!(a.snapshot().len() < 64 * 1024, "snapshot is {} bytes", a.snapshot().len());
}

#[test]
fn damaged_bytes_are_refused_with_the_reason() {
    let good = device_with_apps_open().snapshot();
    assert!(restore_err(&good[..10]).contains("truncated"));
    assert!(restore_err(&good[..good.len() - 5]).contains("truncated or padded"));
    let mut magic = good.clone();
    magic[0] = b'X';
    assert!(restore_err(&magic).contains("bad magic at offset 0"));
    let mut version = good.clone();
    version[8] = 9;
    assert!(restore_err(&version).contains("format version 9 at offset 8"));
    let mut flipped = good.clone();
    let last = flipped.len() - 3;
    flipped[last] ^= 0x20;
    assert!(restore_err(&flipped).contains("checksum mismatch"));
    assert!(restore_err(b"").contains("truncated"));
}

#[test]
fn a_snapshot_only_restores_onto_the_same_apps() {
    let good = device_with_apps_open().snapshot();
    let root = project_root();
    let settings_only = Catalog::load(&[root.join("apps/settings")], &[root.join("layouts")]).unwrap();
    match Device::restore(settings_only, &good, ScriptLimits::default()) {
        Err(PhoneError::Snapshot(m)) => assert!(m.contains("other apps installed"), "{m}"),
        other => panic!("expected a snapshot error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn devices_and_catalogs_can_move_between_threads() {
    fn assert_send<T: Send>() {}
    fn assert_sync<T: Sync>() {}
    assert_send::<Device>();
    assert_sync::<Catalog>();
    let mut device = device_with_apps_open();
    let hash = device.state_hash();
    let moved = std::thread::spawn(move || {
        device.step(&Action::Key { key: phoneworld_data::Key::Back });
        device
    })
    .join()
    .unwrap();
    assert_ne!(moved.state_hash(), hash);
}

#[test]
fn a_device_that_took_over_anothers_lua_host_plays_as_a_fresh_one() {
    let start = device_with_apps_open();
    let actions = [
        Action::Tap { x: 540.0, y: 700.0 },
        Action::Key { key: phoneworld_data::Key::Back },
        Action::OpenApp { app: "Clock".into() },
        Action::Tap { x: 405.0, y: 2180.0 },
        Action::OpenApp { app: "Notes".into() },
        Action::Tap { x: 540.0, y: 900.0 },
    ];
    let mut used = start.fork();
    for a in &actions {
        used.step(a);
    }
    let (mut fresh, mut adopted) = (start.fork(), start.fork());
    adopted.adopt_scripts(&mut used);
    for a in &actions {
        assert_eq!(fresh.step(a), adopted.step(a));
        assert_eq!(fresh.state_hash(), adopted.state_hash());
        assert_eq!(fresh.frame_hash(), adopted.frame_hash());
    }
}
