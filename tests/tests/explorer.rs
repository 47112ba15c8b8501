//! The systematic explorer: it replays identically, and it reaches what a random walk of the
//! same length rarely does (the rows at the end of a long list, each opened once).

use std::collections::BTreeSet;

use phoneworld_agents::{Explorer, Monkey};
use phoneworld_data::Action;
use phoneworld_phone::{Device, DeviceConfig};
use phoneworld_tests::catalog;

const CONTACTS: &str = "com.phoneworld.contacts";

/// The contacts whose detail screen a walk opened, and the walk's (action, state hash) per step.
fn walk(steps: usize, next: &mut dyn FnMut(&mut Device) -> Action) -> (BTreeSet<String>, Vec<(Action, String)>) {
    let mut device = Device::new(catalog(), DeviceConfig { seed: 5, ..DeviceConfig::default() }).unwrap();
    let mut opened = BTreeSet::new();
    let mut trail = Vec::with_capacity(steps);
    for i in 0..steps {
        let action = next(&mut device);
        let result = device.step(&action);
        assert!(result.script_errors.is_empty(), "step {i} {action:?}: {:?}", result.script_errors);
        if let Some(top) = device.store().top(CONTACTS).filter(|top| top.screen == "detail") {
            opened.insert(top.params.to_string());
        }
        trail.push((action, device.state_hash()));
    }
    (opened, trail)
}

#[test]
fn the_same_seed_explores_the_same_way() {
    let mut a = Explorer::new(3, Some(CONTACTS.to_owned()));
    let mut b = Explorer::new(3, Some(CONTACTS.to_owned()));
    let first = walk(300, &mut |d| a.next_action(d));
    let second = walk(300, &mut |d| b.next_action(d));
    assert_eq!(first.1, second.1);
}

#[test]
fn the_explorer_opens_rows_all_down_a_long_list() {
    let mut explorer = Explorer::new(5, Some(CONTACTS.to_owned()));
    let (explored, trail) = walk(600, &mut |d| explorer.next_action(d));
    let mut monkey = Monkey::new(5, Some(CONTACTS.to_owned()));
    let (random, _) = walk(600, &mut |d| monkey.next_action(d));
    // It scrolls the list rather than only tapping what is on the first screen...
    assert!(trail.iter().any(|(a, _)| matches!(a, Action::Swipe { .. })));
    // ...and opens far more of the contacts than random taps and swipes do.
    assert!(explored.len() >= 15, "opened {} contacts: {explored:?}", explored.len());
    assert!(explored.len() >= 2 * random.len(), "explorer {} vs monkey {}", explored.len(), random.len());
}

/// Forms are filled before their buttons are pressed, and a field asking for an amount gets a
/// number: a transfer can then be reviewed and confirmed.
#[test]
fn the_explorer_fills_a_form_with_what_its_fields_ask_for() {
    let mut device = Device::new(catalog(), DeviceConfig { seed: 1, ..DeviceConfig::default() }).unwrap();
    let mut explorer = Explorer::new(1, Some("com.phoneworld.bank".to_owned()));
    let mut amounts = Vec::new();
    let mut first_on_screen = std::collections::BTreeMap::new();
    for _ in 0..300 {
        let elements = device.ui_elements();
        let screen = device.foreground().1;
        let action = explorer.next_action(&mut device);
        let has_field = elements.iter().any(|e| e.is_editable == Some(true));
        if has_field && !first_on_screen.contains_key(&screen) {
            let on_field = match &action {
                Action::Tap { x, y } => elements.iter().any(|e| {
                    let b = e.bbox_pixels.unwrap();
                    e.is_editable == Some(true) && (b.x_min..=b.x_max).contains(x) && (b.y_min..=b.y_max).contains(y)
                }),
                _ => false,
            };
            first_on_screen.insert(screen.clone(), on_field);
        }
        if let Action::TypeText { text, .. } = &action {
            let focused = elements.iter().find(|e| e.is_focused == Some(true)).and_then(|e| e.hint_text.clone()).unwrap_or_default();
            if focused.contains("Amount") {
                amounts.push(text.clone());
            }
        }
        device.step(&action);
    }
    assert!(!first_on_screen.is_empty());
    assert!(first_on_screen.values().all(|on_field| *on_field), "{first_on_screen:?}");
    assert!(!amounts.is_empty());
    assert!(amounts.iter().all(|a| a.parse::<u32>().is_ok()), "{amounts:?}");
}

#[test]
fn the_explorer_gets_through_a_checkout_form() {
    // Shopping's checkout takes a ZIP code of five digits, a phone number and a street with
    // a house number: typed to fit each field, the order goes through.
    let mut device = Device::new(catalog(), DeviceConfig { seed: 1, ..DeviceConfig::default() }).unwrap();
    let mut explorer = Explorer::new(1, Some("com.phoneworld.shop".to_owned()));
    let mut screens = BTreeSet::new();
    let mut zips = Vec::new();
    for _ in 0..600 {
        let action = explorer.next_action(&mut device);
        if let Action::TypeText { text, .. } = &action {
            let focused = device.ui_elements().into_iter().find(|e| e.is_focused == Some(true)).and_then(|e| e.hint_text);
            if focused.is_some_and(|hint| hint.contains("ZIP")) {
                zips.push(text.clone());
            }
        }
        device.step(&action);
        screens.insert(device.foreground().1);
    }
    assert!(!zips.is_empty() && zips.iter().all(|z| z.len() == 5 && z.parse::<u32>().is_ok()), "{zips:?}");
    assert!(screens.contains("order_placed"), "{screens:?}");
}
