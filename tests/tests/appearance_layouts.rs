//! Every app laid out under every appearance profile: the explorer walks each app's screens and
//! each screen must keep its text whole (or ellipsized), its touch targets apart and at least
//! 48 dp. `make test` walks a sample; `make test-appearance-layouts` walks everything.

use std::collections::BTreeSet;

use phoneworld_phone::{Appearance, DeviceConfig, PROFILES};

use phoneworld_agents::Explorer;
use phoneworld_tests::catalog;

/// The problems met walking `app` for `steps` explorer steps under the profile.
fn walk(profile: &str, app: &str, steps: usize) -> BTreeSet<String> {
    let catalog = catalog();
    let package = catalog.find(app).expect("bundled app").package().to_owned();
    let look = Appearance::profile(profile).expect("profile");
    let mut device = look.device(catalog, DeviceConfig::default()).expect("device");
    let mut explorer = Explorer::new(1, Some(package.clone()));
    let mut found = BTreeSet::new();
    for _ in 0..steps {
        if device.foreground().0 == package {
            found.extend(device.layout_problems().into_iter().map(|p| p.to_string()));
        }
        let action = explorer.next_action(&mut device);
        device.step(&action);
    }
    found
}

fn sweep(apps: &[&str], profiles: &[&str], steps: usize) {
    let mut report = Vec::new();
    for profile in profiles {
        for app in apps {
            for problem in walk(profile, app, steps) {
                report.push(format!("[{profile}] {problem}"));
            }
        }
    }
    assert!(report.is_empty(), "{} layout problem(s):\n{}", report.len(), report.join("\n"));
}

#[test]
fn sample_apps_lay_out_under_every_profile() {
    sweep(&["Settings", "Clock", "Notes"], &PROFILES, 20);
}

#[test]
#[ignore = "walks every app under every profile (minutes): make test-appearance-layouts"]
fn every_app_lays_out_under_every_profile() {
    let catalog = catalog();
    let apps: Vec<String> = catalog.apps.iter().filter(|a| a.bundle.manifest.mini_app_of.is_none()).map(|a| a.label().to_owned()).collect();
    let apps: Vec<&str> = apps.iter().map(String::as_str).collect();
    sweep(&apps, &PROFILES, 80);
}
