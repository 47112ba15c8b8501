//! Redrawing only the bands that changed gives the frame a whole redraw gives: a monkey walks
//! every bundled app (500 steps each here; `make damage-sweep` walks 5,000) and after every step
//! the frame drawn into the last frame's buffer, full size and 540x1200, is compared with the
//! same frame drawn into a new buffer.

use phoneworld_agents::Monkey;
use phoneworld_phone::{Device, DeviceConfig};
use phoneworld_tests::catalog;

fn steps_per_app() -> usize {
    std::env::var("PHONEWORLD_DAMAGE_STEPS").ok().and_then(|v| v.parse().ok()).unwrap_or(500)
}

/// Whether the frames the device draws (only the changed bands, into the buffers it kept), full
/// size and 540x1200, are the frames drawn whole into new buffers.
fn kept_equal_whole(device: &mut Device) -> bool {
    let kept = (device.frame(), device.frame_scaled(540, 1200));
    device.clear_frame_cache();
    device.redraw_whole_frame();
    // Pixels compared directly: hashing four frames a step would cost more than drawing them.
    *kept.0 == *device.frame() && *kept.1 == *device.frame_scaled(540, 1200)
}

/// Walks `package` with the monkey; the first step whose frames differ, if any.
fn first_difference(package: &str, seed: u64, steps: usize) -> Option<String> {
    let mut device = Device::new(catalog(), DeviceConfig { seed, ..DeviceConfig::default() }).unwrap();
    let mut monkey = Monkey::new(seed, Some(package.to_owned()));
    let mut screens = std::collections::BTreeSet::new();
    for i in 0..steps {
        let action = monkey.next_action(&mut device);
        device.step(&action);
        if !kept_equal_whole(&mut device) {
            return Some(format!("{package} step {i} after {action:?}: a band redraw differs from a whole redraw"));
        }
        screens.insert(device.screen_hash());
    }
    // The walk must exercise band reuse over many screens, not one that never changes.
    (screens.len() < 10).then(|| format!("{package}: only {} distinct screens in {steps} steps", screens.len()))
}

#[test]
fn frames_redrawn_band_by_band_equal_whole_redraws_on_every_app() {
    let steps = steps_per_app();
    let packages: Vec<String> = catalog().apps.iter().map(|a| a.package().to_owned()).collect();
    assert!(packages.len() >= 20, "every bundled app: {packages:?}");
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let problems: Vec<String> = std::thread::scope(|scope| {
        let walkers: Vec<_> = (0..threads)
            .map(|t| {
                let packages = &packages;
                scope.spawn(move || {
                    let mine = packages.iter().enumerate().filter(|(n, _)| n % threads == t);
                    mine.filter_map(|(n, package)| first_difference(package, 100 + n as u64, steps)).collect::<Vec<_>>()
                })
            })
            .collect();
        walkers.into_iter().flat_map(|w| w.join().expect("a walker panicked")).collect()
    });
    assert!(problems.is_empty(), "{problems:#?}");
}
