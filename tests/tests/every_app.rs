//! Every installed app and mini-app: its main screen in light and dark theme, and a seeded
//! monkey walk through it without a script error.

use phoneworld_agents::Monkey;
use phoneworld_data::Action;
use phoneworld_phone::{Device, DeviceConfig};
use phoneworld_tests::{assert_screen, catalog, Harness};

#[test]
fn main_screen_of_every_app_in_light_and_dark() {
    let catalog = catalog();
    assert!(catalog.broken.is_empty(), "apps that do not install: {:?}", catalog.broken);
    for app in &catalog.apps {
        let slug = app.package().rsplit('.').next().unwrap_or_default().to_owned();
        for dark in [false, true] {
            let mut h = Harness::new(0);
            h.set_dark(dark);
            let r = h.act(Action::OpenApp { app: app.package().to_owned() }).clone();
            assert!(r.ok, "{}: {:?}", app.package(), r.note);
            assert_eq!(h.device.foreground().0, app.package());
            assert!(h.device.view_problems().is_empty(), "{}: {:?}", app.package(), h.device.view_problems());
            let name = format!("app_{slug}_{}", if dark { "dark" } else { "light" });
            assert_screen!(h, name.as_str());
        }
    }
}

#[test]
fn a_monkey_walk_through_every_app_raises_no_script_error() {
    let catalog = catalog();
    for app in &catalog.apps {
        let mut device = Device::new(catalog.clone(), DeviceConfig { seed: 5, ..DeviceConfig::default() }).unwrap();
        assert!(device.install_errors().is_empty(), "{:?}", device.install_errors());
        let mut monkey = Monkey::new(5, Some(app.package().to_owned()));
        for i in 0..600 {
            let action = monkey.next_action(&mut device);
            let result = device.step(&action);
            assert!(result.script_errors.is_empty(), "{} step {i} {action:?}: {:?}", app.package(), result.script_errors);
        }
    }
}
