//! What a screen shows beyond its first visit: a detail screen follows the row that opened
//! it, and a list scrolled further down in the traces scrolls to the same rows.

mod common;

use std::collections::BTreeSet;

use common::{rebuilt, rebuilt_apart, rebuilt_contacts, scratch, tap_on, tap_text, texts, Recorder, CONTACTS};
use phoneworld_data::{Action, Key, UiElement};
use phoneworld_phone::Device;
use phoneworld_reconstruct::{reconstruct, ReconOptions};

const SWIPE_UP: Action = Action::Swipe { x1: 540.0, y1: 1900.0, x2: 540.0, y2: 900.0, ms: 300 };

/// `shown` has every text only `one` showed (at least three) and none only `other` showed.
fn shows_the_one_not_the_other(shown: &BTreeSet<String>, one: (&str, &BTreeSet<String>), other: (&str, &BTreeSet<String>)) {
    shows_the_one_not_the_other_but(shown, one, other, 0);
}

/// As `shows_the_one_not_the_other`, but up to `slack` texts each way may be missing or stay
/// (a badge the screen's layout has no place for).
fn shows_the_one_not_the_other_but(
    shown: &BTreeSet<String>,
    one: (&str, &BTreeSet<String>),
    other: (&str, &BTreeSet<String>),
    slack: usize,
) {
    let only_one: Vec<&String> = one.1.difference(other.1).collect();
    let only_other: Vec<&String> = other.1.difference(one.1).collect();
    assert!(only_one.len() >= 3, "{only_one:?}");
    let missing: Vec<&&String> = only_one.iter().filter(|t| !shown.contains(**t)).collect();
    let stayed: Vec<&&String> = only_other.iter().filter(|t| shown.contains(**t)).collect();
    assert!(missing.len() <= slack, "{}'s texts {missing:?} missing from {shown:?}", one.0);
    assert!(stayed.len() <= slack, "{}'s texts {stayed:?} on {shown:?}", other.0);
}

#[test]
fn detail_screens_follow_the_tapped_row_and_lists_scroll_to_rows_seen_further_down() {
    let dir = scratch("content-state");
    let mut source = Recorder::new(&dir);
    source.act(&Action::OpenApp { app: CONTACTS.into() });
    let list_top = texts(&mut source.device);
    let mut details = Vec::new();
    for name in ["Aisha Khan", "Ben Carter"] {
        let tap = tap_text(&mut source.device, name);
        source.act(&tap);
        details.push(texts(&mut source.device));
        source.act(&Action::Key { key: Key::Back });
    }
    source.act(&SWIPE_UP);
    let scrolled = texts(&mut source.device);
    source.act(&SWIPE_UP);
    let scrolled_twice = texts(&mut source.device);
    let trace = source.finish();
    let mut rebuilt = rebuilt_contacts(&dir, trace);

    // Ben's row opens Ben's details, not the first detail screen the traces showed (Aisha's).
    let tap = tap_text(&mut rebuilt, "Ben Carter");
    rebuilt.step(&tap);
    shows_the_one_not_the_other(&texts(&mut rebuilt), ("Ben", &details[1]), ("Aisha", &details[0]));
    rebuilt.step(&Action::Key { key: Key::Back });
    // A row never tapped opens the detail screen with its own name in place.
    let tap = tap_text(&mut rebuilt, "Carlos Mendoza");
    rebuilt.step(&tap);
    assert!(texts(&mut rebuilt).contains("Carlos Mendoza"), "{:?}", texts(&mut rebuilt));
    assert!(!texts(&mut rebuilt).contains("Ben Carter"));
    rebuilt.step(&Action::Key { key: Key::Back });

    // The same swipes bring the rows the trace saw further down into view.
    let below: Vec<&String> = scrolled_twice.difference(&list_top).filter(|t| t.chars().count() > 1).collect();
    assert!(!below.is_empty());
    rebuilt.step(&SWIPE_UP);
    let first: Vec<&String> = scrolled.difference(&list_top).filter(|t| t.chars().count() > 1).collect();
    assert!(first.iter().all(|t| texts(&mut rebuilt).contains(*t)), "{first:?} on {:?}", texts(&mut rebuilt));
    rebuilt.step(&SWIPE_UP);
    let now = texts(&mut rebuilt);
    let found = below.iter().filter(|t| now.contains(**t)).count();
    assert!(found * 10 >= below.len() * 8, "{found} of {below:?} on {now:?}");
}

#[test]
fn typing_that_showed_results_shows_them_in_the_rebuilt_app() {
    let dir = scratch("typed-search");
    let mut source = Recorder::new(&dir);
    source.act(&Action::OpenApp { app: "com.phoneworld.messages".into() });
    let search_bar = tap_on(&mut source.device, "search bar", |e| e.content_description.as_deref() == Some("Search conversations"));
    source.act(&search_bar);
    let field = tap_on(&mut source.device, "search field", |e| e.is_editable == Some(true));
    source.act(&field);
    source.act(&Action::TypeText { text: "coffee".into(), clear: false });
    let results = texts(&mut source.device);
    let trace = source.finish();

    let options = ReconOptions { visual: false, ..ReconOptions::default() };
    let r = reconstruct(&[trace], &dir.join("app"), &options).unwrap();
    let typed: Vec<&str> = r.model.screens.iter().flat_map(|s| &s.handlers).filter(|h| h.typed).map(|h| h.name.as_str()).collect();
    assert_eq!(typed.len(), 1, "{typed:?}");
    let step = r.fidelity[0].per_step.iter().find(|s| s.action == "type_text").unwrap();
    assert_eq!(step.ok, Some(true), "{step:?}");
    // The results screen keeps the typed text in its field.
    assert!(step.missing.iter().all(|m| !m.contains("coffee")), "{step:?} vs {results:?}");
}

/// Unfavoriting the first favorite moves the next one into its place: the tap there opened
/// the next contact, and that visit belongs to the next contact's cell, not to the place.
#[test]
fn a_favorite_that_moved_up_keeps_its_own_detail_screen() {
    let desc = |d: &str| {
        let d = d.to_owned();
        move |e: &UiElement| e.content_description.as_deref() == Some(d.as_str())
    };
    let dir = scratch("moved-favorite");
    let mut source = Recorder::new(&dir);
    source.act(&Action::OpenApp { app: CONTACTS.into() });
    let tab = tap_on(&mut source.device, "the Favorites tab", desc("Favorites"));
    source.act(&tab);
    let favorites: Vec<String> = source
        .device
        .ui_elements()
        .into_iter()
        .filter_map(|e| e.content_description?.strip_suffix(", favorite").map(str::to_owned))
        .collect();
    assert!(favorites.len() >= 2, "{favorites:?}");
    let (first, second) = (&favorites[0], &favorites[1]);
    let cell = tap_on(&mut source.device, first, desc(&format!("{first}, favorite")));
    source.act(&cell);
    let first_texts = texts(&mut source.device);
    let unfavorite = tap_on(&mut source.device, "unfavorite", desc("Remove from favorites"));
    source.act(&unfavorite);
    source.act(&Action::Key { key: Key::Back });
    // Until the "removed" snackbar is gone.
    source.act(&Action::Wait { ms: 10_000 });
    // The second favorite now sits where the first was.
    let cell = tap_on(&mut source.device, second, desc(&format!("{second}, favorite")));
    source.act(&cell);
    let second_texts = texts(&mut source.device);
    source.act(&Action::Key { key: Key::Back });
    let trace = source.finish();
    let mut rebuilt = rebuilt_contacts(&dir, trace);
    // The rebuilt tab is a button labelled like the tab.
    let tab = tap_text(&mut rebuilt, "Favorites");
    rebuilt.step(&tab);
    let cell = tap_on(&mut rebuilt, second, desc(&format!("{second}, favorite")));
    rebuilt.step(&cell);
    shows_the_one_not_the_other(&texts(&mut rebuilt), (second, &second_texts), (first, &first_texts));
}

#[test]
fn a_dish_screen_shows_the_dish_its_row_names_in_whichever_restaurant() {
    const FOOD: &str = "com.phoneworld.food";
    let dir = scratch("followed-items");
    let mut source = Recorder::new(&dir);
    source.act(&Action::OpenApp { app: FOOD.into() });
    // Nonna Lucia's first dish opened from its row; Bombay Spice House's from its Add button.
    let mut dishes = Vec::new();
    for (restaurant, dish) in [("Nonna Lucia", "Margherita Pizza"), ("Bombay Spice House", "Butter Chicken")] {
        let tap = tap_text(&mut source.device, restaurant);
        source.act(&tap);
        let tap = if dishes.is_empty() {
            tap_text(&mut source.device, dish)
        } else {
            let add = format!("Add {dish}");
            tap_on(&mut source.device, &add, |e| e.content_description.as_deref() == Some(add.as_str()))
        };
        source.act(&tap);
        dishes.push(texts(&mut source.device));
        assert!(dishes.last().unwrap().contains("Special instructions"), "no dish screen: {:?}", dishes.last());
        source.act(&Action::Key { key: Key::Back });
        source.act(&Action::Key { key: Key::Back });
    }
    let trace = source.finish();
    let mut rebuilt = rebuilt(&dir, trace, FOOD);
    // What names each dish on its screen (its options are the dish screen's first layout's).
    let pizza = ["Margherita Pizza", "San Marzano tomato, fior di latte, basil", "Add · $12.50"];
    let chicken = ["Butter Chicken", "Creamy tomato curry, tandoori chicken", "Add · $16.00"];
    let shows = |seen: &BTreeSet<String>, one: &[&str], other: &[&str]| {
        assert!(one.iter().all(|t| seen.contains(*t)), "{one:?} on {seen:?}");
        assert!(!other.iter().any(|t| seen.contains(*t)), "{other:?} on {seen:?}");
    };
    shows(&dishes[0], &pizza, &chicken);
    shows(&dishes[1], &chicken, &pizza);

    // The first dish row of Bombay Spice House was never tapped, and in the traces that row
    // opened Nonna Lucia's pizza: it names Butter Chicken now, so it opens Butter Chicken.
    let tap = tap_text(&mut rebuilt, "Bombay Spice House");
    rebuilt.step(&tap);
    let tap = tap_text(&mut rebuilt, "Butter Chicken");
    rebuilt.step(&tap);
    shows(&texts(&mut rebuilt), &chicken, &pizza);
    rebuilt.step(&Action::Key { key: Key::Back });
    // Its Add button names it inside "Add Butter Chicken", as shown for this restaurant.
    let add = |e: &UiElement| e.content_description.as_deref() == Some("Add Butter Chicken");
    let tap = tap_on(&mut rebuilt, "Add Butter Chicken", add);
    rebuilt.step(&tap);
    shows(&texts(&mut rebuilt), &chicken, &pizza);
    rebuilt.step(&Action::Key { key: Key::Back });
    rebuilt.step(&Action::Key { key: Key::Back });
    // And Nonna Lucia's row still opens its pizza.
    let tap = tap_text(&mut rebuilt, "Nonna Lucia");
    rebuilt.step(&tap);
    let tap = tap_text(&mut rebuilt, "Margherita Pizza");
    rebuilt.step(&tap);
    shows(&texts(&mut rebuilt), &pizza, &chicken);
}

/// A tap on the checkable chip labeled `label`.
fn chip(device: &mut Device, label: &str) -> Action {
    tap_on(device, label, |e| e.text.as_deref() == Some(label) && e.is_checkable == Some(true))
}

fn chip_on(device: &mut Device, label: &str) -> bool {
    device.ui_elements().into_iter().any(|e| e.text.as_deref() == Some(label) && e.is_checked == Some(true))
}

#[test]
fn filter_chips_that_stay_on_their_screen_show_what_was_seen_with_them_on() {
    const SHOP: &str = "com.phoneworld.shop";
    const SEARCH_BAR: &str = "Search products and brands";
    let search_bar = |e: &UiElement| e.text.as_deref() == Some(SEARCH_BAR);
    let dir = scratch("checked-filters");
    let mut source = Recorder::new(&dir);
    source.act(&Action::OpenApp { app: SHOP.into() });
    let tap = tap_on(&mut source.device, SEARCH_BAR, search_bar);
    source.act(&tap);
    let tap = tap_text(&mut source.device, "Filters");
    source.act(&tap);
    // Home, then Tech (one category at a time), then 4.5+ with Tech, then Home with 4.5+.
    let mut seen = Vec::new();
    for label in ["Home", "Tech", "4.5+", "Home"] {
        let tap = chip(&mut source.device, label);
        source.act(&tap);
        seen.push(texts(&mut source.device));
    }
    let trace = source.finish();
    let (home, tech, tech_top, home_top) = (&seen[0], &seen[1], &seen[2], &seen[3]);

    // One trace has few visits to tell screens apart by: the open filter panel is its own
    // screen only where screens must be alike in most of their structure.
    let mut rebuilt = rebuilt_apart(&dir, trace, SHOP, 0.7);
    let tap = tap_on(&mut rebuilt, SEARCH_BAR, search_bar);
    rebuilt.step(&tap);
    let tap = tap_text(&mut rebuilt, "Filters");
    rebuilt.step(&tap);
    // In another order than the trace's: Tech first. A badge the layout has no place for may
    // be missing or stay.
    let steps = [
        ("Tech", ("Tech", tech), ("Home", home), Some("Home")),
        ("Home", ("Home", home), ("Tech", tech), Some("Tech")),
        // The rating chip keeps the category: Home's results rated 4.5 or more.
        ("4.5+", ("Home with 4.5+", home_top), ("Tech with 4.5+", tech_top), None),
        ("Tech", ("Tech with 4.5+", tech_top), ("Home with 4.5+", home_top), Some("Home")),
    ];
    for (label, one, other, turned_off) in steps {
        let tap = chip(&mut rebuilt, label);
        rebuilt.step(&tap);
        shows_the_one_not_the_other_but(&texts(&mut rebuilt), one, other, 1);
        if let Some(off) = turned_off {
            assert!(chip_on(&mut rebuilt, label) && !chip_on(&mut rebuilt, off), "{label}'s chip turns {off}'s off");
        }
    }
}
