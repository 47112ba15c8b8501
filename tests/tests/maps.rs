//! The Maps app's map: the seeded city with its pins, routes drawn on it, panning by drag,
//! zooming by double tap and the buttons, one city per seed.

use phoneworld_data::{Action, UiElement};
use phoneworld_tests::{assert_screen, Harness};
use serde_json::Value;

const MAPS: &str = "com.phoneworld.maps";

fn centre(e: &UiElement) -> (f64, f64) {
    let b = e.bbox_pixels.as_ref().unwrap();
    ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)
}

fn home(seed: u64) -> Harness {
    let mut h = Harness::new(seed);
    h.open("Maps");
    h
}

fn camera(h: &Harness) -> Value {
    h.app_state(MAPS)["camera"].clone()
}

/// A pin on screen and its centre.
fn some_pin(h: &mut Harness) -> (String, (f64, f64)) {
    let map = h.expect("map_view");
    let names: Vec<String> = h.device.ui_elements().iter().filter_map(|e| e.content_description.clone()).collect();
    let b = map.bbox_pixels.unwrap();
    for name in names {
        if let Some(e) = h.find(&name) {
            let (x, y) = centre(&e);
            let inner = x > b.x_min + 250.0 && x < b.x_max - 250.0 && y > b.y_min + 250.0 && y < b.y_max - 250.0;
            if e.class_name.as_deref() == Some("android.view.View") && name != "Map" && inner {
                return (name, (x, y));
            }
        }
    }
    panic!("no pin inside the map");
}

#[test]
fn home_shows_the_city_with_pins_and_the_map_buttons() {
    let mut h = home(0);
    assert_screen!(h, "maps_home_light");
    let map = h.expect("map_view");
    assert_eq!(map.class_name.as_deref(), Some("android.view.View"));
    assert_eq!(map.content_description.as_deref(), Some("Map"));
    for b in ["Zoom in", "Zoom out", "Re-center"] {
        assert_eq!(h.expect(b).class_name.as_deref(), Some("android.widget.ImageButton"), "{b}");
    }
    let (name, _) = some_pin(&mut h);
    // A pin opens its place.
    h.tap(&name);
    assert_eq!(h.device.foreground().1, "place");
    assert_eq!(h.expect("place_name").text.as_deref(), Some(name.as_str()));
}

#[test]
fn dragging_moves_the_map_and_its_pins_by_the_drag() {
    let mut h = home(0);
    let before = h.device.frame_hash();
    let (name, (x, y)) = some_pin(&mut h);
    let (mx, my) = centre(&h.expect("map_view"));
    let r = h.act(Action::Drag { x1: mx, y1: my, x2: mx - 120.0, y2: my + 80.0, ms: 400 }).clone();
    assert!(r.ok, "{r:?}");
    assert_ne!(h.device.frame_hash(), before);
    let (nx, ny) = centre(&h.expect(&name));
    assert!((nx - (x - 120.0)).abs() <= 1.0 && (ny - (y + 80.0)).abs() <= 1.0, "{name} moved from ({x}, {y}) to ({nx}, {ny})");
    // The camera lives in the app's state.
    assert!(camera(&h)["x"].is_number());
}

#[test]
fn double_tap_and_the_plus_button_zoom_in() {
    let mut h = home(0);
    let (mx, my) = centre(&h.expect("map_view"));
    h.act(Action::DoubleTap { x: mx, y: my });
    assert_eq!(camera(&h)["zoom"], 16);
    h.tap("Zoom in");
    assert_eq!(camera(&h)["zoom"], 17);
    h.tap("Zoom out");
    h.tap("Zoom out");
    assert_eq!(camera(&h)["zoom"], 15);
}

#[test]
fn one_seed_one_city() {
    let a = home(5).device.frame_hash();
    assert_eq!(home(5).device.frame_hash(), a);
    assert_ne!(home(6).device.frame_hash(), a);
}

#[test]
fn directions_draw_the_route_and_say_its_length() {
    let mut h = home(0);
    h.tap("Search here");
    h.tap("search_field");
    h.act(Action::TypeText { text: "koji".into(), clear: false });
    h.tap("Koji Ramen Bar");
    h.tap("Directions");
    assert_eq!(h.device.foreground().1, "directions");
    assert_screen!(h, "maps_directions_light");
    // The time is the route's length at the driving speed (28 km/h) plus 2 minutes.
    let dist = h.expect("total_dist").text.unwrap();
    let km: f64 = match dist.split(' ').collect::<Vec<_>>()[..] {
        [n, "km", ..] => n.parse().unwrap(),
        [n, "m", ..] => n.parse::<f64>().unwrap() / 1000.0,
        _ => panic!("{dist}"),
    };
    let minutes: f64 = h.expect("total_time").text.unwrap().trim_end_matches(" min").parse().unwrap();
    assert!((minutes - (km / 28.0 * 60.0 + 2.0)).abs() <= 1.0, "{minutes} min for {km} km");
    assert!(h.find("Koji Ramen Bar").is_some());
}

/// The suite's tasks that use Maps still pass with their solutions and fail without.
#[test]
fn the_maps_tasks_still_pass() {
    use phoneworld_tasks::{evaluate, verify_suite, AgentKind, Suite};
    let catalog = phoneworld_tests::catalog();
    let root = phoneworld_phone::project_root();
    let mut suite = Suite::load(&root.join("verifiers/phoneworld-v0"), &catalog).unwrap();
    suite.templates.retain(|t| t.apps.iter().any(|a| a == MAPS));
    assert!(suite.templates.len() >= 14, "{}", suite.templates.len());
    let problems = verify_suite(std::sync::Arc::clone(&catalog), &suite, 2).unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
    let oracle = evaluate(std::sync::Arc::clone(&catalog), &suite, AgentKind::Oracle, 1, None).unwrap();
    assert_eq!(oracle.success_rate, 1.0, "{:#?}", oracle.failures);
    let noop = evaluate(catalog, &suite, AgentKind::Noop, 1, None).unwrap();
    assert_eq!(noop.success_rate, 0.0);
}
