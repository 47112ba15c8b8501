//! Every saved fuzz input (the seed corpora and what fuzzing found, `fuzz/corpus/<target>/`)
//! runs through its target: none may panic, and the inputs that once crashed stay fixed.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use phoneworld_fuzz::{run_target, TARGETS};

/// Panics seen, also those the phone catches itself (a panic in the script host's Lua library
/// fails the handler, but is still a bug, and the fuzzer counts it as a crash too).
static PANICS: AtomicUsize = AtomicUsize::new(0);

fn count_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        default(info);
    }));
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

#[test]
fn every_saved_input_runs_through_its_target() {
    count_panics();
    let mut ran = 0;
    for (name, _) in TARGETS {
        let dir = corpus_dir().join(name);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e} (every target has a seed corpus)", dir.display()))
            .map(|entry| entry.expect("a corpus entry").path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{name} has no seeds");
        for file in files {
            let data = std::fs::read(&file).expect("readable");
            let before = PANICS.load(Ordering::SeqCst);
            let outcome = std::panic::catch_unwind(|| run_target(name, &data));
            assert!(outcome.is_ok() && PANICS.load(Ordering::SeqCst) == before, "{name}: {} panicked", file.display());
            ran += 1;
        }
    }
    assert!(ran >= TARGETS.len());
}

#[test]
fn every_corpus_folder_is_a_target() {
    for entry in std::fs::read_dir(corpus_dir()).expect("fuzz/corpus") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        assert!(TARGETS.iter().any(|(n, _)| *n == name), "fuzz/corpus/{name} has no target");
    }
}

/// Writes the snapshot seeds from a real phone: `cargo test -p phoneworld-fuzz --test corpus
/// -- --ignored`.
#[test]
#[ignore]
fn write_snapshot_seeds() {
    use phoneworld_data::Action;
    use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};
    let root = project_root();
    let catalog = Catalog::load(&[root.join("apps/settings"), root.join("apps/clock")], &[root.join("layouts")]).unwrap();
    let mut device = Device::new(catalog, DeviceConfig::default()).unwrap();
    let dir = corpus_dir().join("snapshot");
    std::fs::write(dir.join("home.bin"), device.snapshot()).unwrap();
    device.step(&Action::OpenApp { app: "Clock".into() });
    device.step(&Action::Tap { x: 540.0, y: 2200.0 });
    let bytes = device.snapshot();
    std::fs::write(dir.join("clock.bin"), &bytes).unwrap();
    std::fs::write(dir.join("truncated.bin"), &bytes[..bytes.len() / 2]).unwrap();
    let mut flipped = bytes.clone();
    for i in (0..flipped.len()).step_by(97) {
        flipped[i] ^= 0x5a;
    }
    std::fs::write(dir.join("flipped.bin"), flipped).unwrap();
}
