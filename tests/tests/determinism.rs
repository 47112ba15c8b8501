//! Same seed, same actions: the same state and frame hashes at every step, across runs and
//! across a snapshot and restore midway. And long monkey runs raise no script error.

use phoneworld_agents::Monkey;
use phoneworld_data::Action;
use phoneworld_phone::{Device, DeviceConfig, ScriptLimits};
use phoneworld_tests::core_catalog as catalog;

/// Per-step (state hash, frame hash) of a monkey walk; with `restore_at`, the device is
/// snapshotted and replaced by its restored copy at that step.
fn walk(seed: u64, steps: usize, restore_at: Option<usize>) -> Vec<(String, String)> {
    let mut device = Device::new(catalog(), DeviceConfig { seed, ..DeviceConfig::default() }).unwrap();
    let mut monkey = Monkey::new(seed, None);
    let mut hashes = Vec::with_capacity(steps);
    for i in 0..steps {
        if restore_at == Some(i) {
            let bytes = device.snapshot();
            device = Device::restore(catalog(), &bytes, ScriptLimits::default()).unwrap();
        }
        let action = monkey.next_action(&mut device);
        let result = device.step(&action);
        assert!(result.script_errors.is_empty(), "step {i}: {:?}", result.script_errors);
        hashes.push((device.state_hash(), device.frame_hash()));
    }
    hashes
}

#[test]
fn the_monkey_replays_bit_identically_with_and_without_a_restore() {
    let first = walk(7, 2000, None);
    let second = walk(7, 2000, None);
    let restored = walk(7, 2000, Some(1000));
    for i in 0..first.len() {
        assert_eq!(first[i], second[i], "runs diverge at step {i}");
        assert_eq!(first[i], restored[i], "restored run diverges at step {i}");
    }
    let distinct_frames: std::collections::BTreeSet<&String> = first.iter().map(|h| &h.1).collect();
    assert!(distinct_frames.len() > 50, "the walk should see many screens, saw {}", distinct_frames.len());
    assert_ne!(walk(8, 50, None), first[..50].to_vec(), "another seed walks elsewhere");
}

#[test]
fn forks_continue_independently_and_identically() {
    let mut a = Device::new(catalog(), DeviceConfig { seed: 3, ..DeviceConfig::default() }).unwrap();
    let mut monkey = Monkey::new(3, None);
    for _ in 0..100 {
        let action = monkey.next_action(&mut a);
        a.step(&action);
    }
    let mut b = a.fork();
    let mut m2 = monkey.clone();
    for _ in 0..100 {
        let action = monkey.next_action(&mut a);
        let action_b = m2.next_action(&mut b);
        assert_eq!(action, action_b);
        a.step(&action);
        b.step(&action_b);
        assert_eq!(a.state_hash(), b.state_hash());
    }
    assert_eq!(a.frame_hash(), b.frame_hash());
}

#[test]
fn ten_thousand_monkey_steps_over_both_apps_raise_no_script_error() {
    for app in ["com.phoneworld.clock", "com.phoneworld.settings"] {
        let mut device = Device::new(catalog(), DeviceConfig { seed: 11, ..DeviceConfig::default() }).unwrap();
        let mut monkey = Monkey::new(11, Some(app.to_owned()));
        let mut screens = std::collections::BTreeSet::new();
        for i in 0..5000 {
            let action = monkey.next_action(&mut device);
            let result = device.step(&action);
            assert!(result.script_errors.is_empty(), "{app} step {i} {action:?}: {:?}", result.script_errors);
            screens.insert(format!("{}/{}", result.package, result.screen));
            assert!(device.view_problems().is_empty(), "{app} step {i}: {:?}", device.view_problems());
        }
        assert!(screens.len() >= 3, "{app}: {screens:?}");
    }
}

/// A phone reuses the layout of a screen it showed before, and of one it showed with another
/// clock (only the status bar laid out again): what it shows is what a phone laying out every
/// screen afresh shows, pixel for pixel and element for element.
#[test]
fn kept_layouts_are_the_layouts_a_fresh_phone_computes() {
    let config = DeviceConfig { seed: 11, ..DeviceConfig::default() };
    let mut kept = Device::new(catalog(), config).unwrap();
    let mut fresh = Device::new(catalog(), config).unwrap();
    let mut monkey = Monkey::new(11, None);
    for i in 0..300 {
        // Half a minute now and then: the clock moves on while screens are shown again.
        let action = if i % 7 == 6 { Action::Wait { ms: 30_000 } } else { monkey.next_action(&mut kept) };
        kept.step(&action);
        fresh.clear_caches();
        fresh.step(&action);
        fresh.clear_caches();
        assert_eq!(kept.ui_elements(), fresh.ui_elements(), "elements differ after step {i}: {action:?}");
        assert_eq!(kept.frame_hash(), fresh.frame_hash(), "frames differ after step {i}: {action:?}");
    }
}

/// Two phones with every bundled app on one seed, and a monkey of that seed to drive them.
fn twin_phones(seed: u64) -> (Device, Device, Monkey) {
    let config = DeviceConfig { seed, ..DeviceConfig::default() };
    let catalog = phoneworld_tests::catalog();
    let first = Device::new(std::sync::Arc::clone(&catalog), config).unwrap();
    (first, Device::new(catalog, config).unwrap(), Monkey::new(seed, None))
}

/// An idle phone drops its Lua host, layouts and frames (`trim`) and picks up where it was: a
/// phone trimmed every few steps walks every bundled app step for step as one never trimmed,
/// same states, elements and frames.
#[test]
fn a_trimmed_phone_plays_as_one_never_trimmed() {
    let (mut kept, mut trimmed, mut monkey) = twin_phones(12);
    for i in 0..400 {
        let action = monkey.next_action(&mut kept);
        kept.step(&action);
        if i % 3 == 0 {
            trimmed.trim();
        }
        trimmed.step(&action);
        assert_eq!(kept.state_hash(), trimmed.state_hash(), "states differ after step {i}: {action:?}");
        if i % 10 == 0 {
            assert_eq!(kept.ui_elements(), trimmed.ui_elements(), "elements differ after step {i}: {action:?}");
            assert_eq!(kept.frame_hash(), trimmed.frame_hash(), "frames differ after step {i}: {action:?}");
        }
    }
}

/// A frame still viewed when the next is drawn (a Python array over its pixels) stays as it
/// was, and the next frame, drawn into another buffer over it, is the frame a device whose
/// frames nobody holds draws: full size and 540x1200, holding one to three frames at a time.
#[test]
fn frames_still_viewed_stay_and_the_next_ones_are_drawn_the_same() {
    let (mut plain, mut viewed, mut monkey) = twin_phones(5);
    let mut held: Vec<(std::sync::Arc<phoneworld_render::Frame>, String)> = Vec::new();
    for i in 0..240 {
        let action = monkey.next_action(&mut plain);
        plain.step(&action);
        viewed.step(&action);
        let (frame, expected) =
            if i % 2 == 0 { (viewed.frame(), plain.frame()) } else { (viewed.frame_scaled(540, 1200), plain.frame_scaled(540, 1200)) };
        assert_eq!(frame.hash(), expected.hash(), "frames differ after step {i}: {action:?}");
        held.push((std::sync::Arc::clone(&frame), frame.hash()));
        if held.len() > 1 + i % 3 {
            held.remove(0);
        }
        for (frame, hash) in &held {
            assert_eq!(&frame.hash(), hash, "a held frame changed after step {i}");
        }
    }
}
