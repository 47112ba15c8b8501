//! What a phone keeps from step to step gives what it would build from scratch: a monkey walks
//! every bundled app (500 steps each here; `make damage-sweep` walks 5,000) on two phones. One
//! keeps everything across the walk: frames drawn band by band into the last frame's buffers,
//! full size and 540x1200, from layouts made incrementally (unchanged subtrees kept from the
//! last layout, those of screens it left kept aside and taken back, fixed-size boxes laid out
//! in taffy trees of their own). The other composes, lays out (in one taffy tree, without
//! those boundaries) and draws every step from scratch. Their frames and UI elements must be
//! the same.

use phoneworld_agents::Monkey;
use phoneworld_phone::{Device, DeviceConfig};
use phoneworld_tests::catalog;

fn steps_per_app() -> usize {
    std::env::var("PHONEWORLD_DAMAGE_STEPS").ok().and_then(|v| v.parse().ok()).unwrap_or(500)
}

/// Whether the frames `kept` draws (only the changed bands, into the buffers it kept, of a
/// layout that kept what did not change), full size and 540x1200, and its UI elements are
/// those of `fresh`, which has just been stepped the same way with every cache dropped.
fn kept_equal_fresh(kept: &mut Device, fresh: &mut Device) -> bool {
    fresh.clear_caches();
    fresh.redraw_whole_frame();
    // Pixels compared directly: hashing four frames a step would cost more than drawing them.
    *kept.frame() == *fresh.frame()
        && *kept.frame_scaled(540, 1200) == *fresh.frame_scaled(540, 1200)
        && kept.ui_elements() == fresh.ui_elements()
}

/// Walks `package` with the monkey; the first step whose frames differ, if any.
fn first_difference(package: &str, seed: u64, steps: usize) -> Option<String> {
    let config = DeviceConfig { seed, ..DeviceConfig::default() };
    let (mut device, mut fresh) = (Device::new(catalog(), config).unwrap(), Device::new(catalog(), config).unwrap());
    fresh.use_reference_layout();
    let mut monkey = Monkey::new(seed, Some(package.to_owned()));
    let mut screens = std::collections::BTreeSet::new();
    for i in 0..steps {
        let action = monkey.next_action(&mut device);
        device.step(&action);
        fresh.clear_caches();
        fresh.step(&action);
        if !kept_equal_fresh(&mut device, &mut fresh) {
            return Some(format!("{package} step {i} after {action:?}: the kept layout or a band redraw differs from a fresh one"));
        }
        screens.insert(device.screen_hash());
    }
    // The walk must exercise band reuse over many screens, not one that never changes.
    (screens.len() < 10).then(|| format!("{package}: only {} distinct screens in {steps} steps", screens.len()))
}

#[test]
fn incremental_layouts_and_band_redraws_equal_fresh_ones_on_every_app() {
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
