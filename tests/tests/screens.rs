//! Snapshot tests: every screen of both bundled apps in light and dark theme, and the
//! phone's own surfaces (launcher, recents, shade, keyboard, dialogs, sheets, toasts,
//! snackbars, pickers). Each snapshot is the accessibility tree plus the frame hash; a small
//! PNG of each goes to `snapshots/png` for people to look at.

mod common;

use common::*;
use phoneworld_data::Key;
use phoneworld_tests::{assert_screen, Harness};

fn named(base: &str, dark: bool) -> String {
    format!("{base}_{}", if dark { "dark" } else { "light" })
}

/// A fresh phone in the given theme.
fn phone(dark: bool) -> Harness {
    let mut h = Harness::new(0);
    h.set_dark(dark);
    h
}

fn open_settings_screen(h: &mut Harness, row: &str) {
    h.open("Settings");
    h.tap(row);
}

#[test]
fn settings_main_and_subscreens() {
    for dark in [false, true] {
        let mut h = phone(dark);
        h.open("Settings");
        assert_eq!(screen(&h), "main");
        assert_screen!(h, named("settings_main", dark).as_str());

        for (row, id, base) in [
            ("Network & internet", "network", "settings_network"),
            ("Connected devices", "bluetooth", "settings_bluetooth"),
            ("Display", "display", "settings_display"),
            ("Sound & vibration", "sound", "settings_sound"),
            ("Send feedback", "feedback", "settings_feedback"),
            ("About phone", "about", "settings_about"),
        ] {
            let mut h = phone(dark);
            open_settings_screen(&mut h, row);
            assert_eq!(screen(&h), id, "{row} opens {id}");
            assert_screen!(h, named(base, dark).as_str());
        }
    }
}

#[test]
fn settings_wifi_password() {
    for dark in [false, true] {
        let mut h = phone(dark);
        open_settings_screen(&mut h, "Network & internet");
        // HomeNet is secured and not saved: tapping it asks for its password.
        h.tap("HomeNet");
        assert_eq!(screen(&h), "wifi_password");
        assert_screen!(h, named("settings_wifi_password", dark).as_str());
    }
}

#[test]
fn clock_home_tabs() {
    for dark in [false, true] {
        let mut h = phone(dark);
        h.open("Clock");
        assert_screen!(h, named("clock_home_alarm", dark).as_str());
        for (tab, base) in [("Clock", "clock_home_clock"), ("Timer", "clock_home_timer"), ("Stopwatch", "clock_home_stopwatch")] {
            tap_desc(&mut h, tab);
            assert_screen!(h, named(base, dark).as_str());
        }
    }
}

#[test]
fn clock_alarm_edit_and_settings() {
    for dark in [false, true] {
        let mut h = phone(dark);
        h.open("Clock");
        let card =
            expect_where(&mut h, "the 07:00 alarm", |e| e.content_description.as_deref().is_some_and(|d| d.starts_with("Alarm 07:00")));
        tap_el(&mut h, &card);
        assert_eq!(screen(&h), "alarm_edit");
        assert_screen!(h, named("clock_alarm_edit", dark).as_str());

        let mut h = phone(dark);
        h.open("Clock");
        h.tap("Add alarm");
        assert_screen!(h, named("clock_alarm_new", dark).as_str());

        let mut h = phone(dark);
        h.open("Clock");
        h.tap("Clock settings");
        assert_eq!(screen(&h), "clock_settings");
        assert_screen!(h, named("clock_settings_alarms_tab", dark).as_str());
        h.tap("Clock");
        assert_screen!(h, named("clock_settings_clock_tab", dark).as_str());
    }
}

#[test]
fn launcher_and_recents() {
    let mut h = phone(false);
    assert_screen!(h, "launcher_light");
    let mut h = phone(true);
    assert_screen!(h, "launcher_dark");

    let mut h = phone(false);
    h.open("Settings");
    h.open("Clock");
    h.key(Key::Recents);
    assert_eq!(h.device.foreground(), ("com.phoneworld.launcher".to_owned(), "recents".to_owned()));
    assert!(h.find("Close Clock").is_some() && h.find("Close Settings").is_some());
    assert_screen!(h, "recents_two_apps");
}

#[test]
fn keyboard_open() {
    for dark in [false, true] {
        let mut h = phone(dark);
        h.open("Clock");
        h.tap("Add alarm");
        tap_id(&mut h, "label");
        assert!(h.find("Shift").is_some(), "the keyboard is up");
        assert_screen!(h, named("keyboard_alarm_label", dark).as_str());
    }
    // Symbols page, with text typed.
    let mut h = phone(false);
    h.open("Settings");
    h.tap("Send feedback");
    tap_id(&mut h, "feedback_text");
    h.type_on_keyboard("Hi");
    h.tap("Symbols");
    assert_screen!(h, "keyboard_symbols_feedback");
}

#[test]
fn dialog_open() {
    for dark in [false, true] {
        let mut h = phone(dark);
        open_settings_screen(&mut h, "Network & internet");
        h.tap("Airplane mode");
        assert!(h.find("Turn on airplane mode?").is_some());
        assert_screen!(h, named("dialog_airplane_mode", dark).as_str());
    }
}

#[test]
fn bottom_sheet_open() {
    for dark in [false, true] {
        let mut h = phone(dark);
        open_settings_screen(&mut h, "Display");
        h.tap("Screen timeout");
        assert!(h.find("5 minutes").is_some());
        assert_screen!(h, named("sheet_screen_timeout", dark).as_str());
    }
    let mut h = phone(false);
    h.open("Clock");
    let card = expect_where(&mut h, "the 07:00 alarm", |e| e.content_description.as_deref().is_some_and(|d| d.starts_with("Alarm 07:00")));
    long_press_el(&mut h, &card);
    assert!(h.find("Duplicate").is_some());
    assert_screen!(h, "sheet_alarm_menu");
}

#[test]
fn notification_shade() {
    for dark in [false, true] {
        let mut h = phone(dark);
        finish_timer(&mut h);
        open_shade(&mut h);
        assert!(h.find("Time's up: 5:00 timer").is_some());
        assert_screen!(h, named("shade_timer_notification", dark).as_str());
    }
    let mut h = phone(false);
    open_shade(&mut h);
    assert!(h.find("No notifications").is_some());
    assert_screen!(h, "shade_empty");
}

#[test]
fn toast_and_snackbar() {
    let mut h = phone(false);
    h.open("Settings");
    h.tap("Search settings");
    assert!(h.find("Search is not available").is_some());
    assert_screen!(h, "toast_search");

    for dark in [false, true] {
        let mut h = phone(dark);
        open_settings_screen(&mut h, "Sound & vibration");
        h.tap("Mute ringer");
        assert!(h.find("Ringer muted").is_some() && h.find("Undo").is_some());
        assert_screen!(h, named("snackbar_ringer_muted", dark).as_str());
    }
}

#[test]
fn time_picker_minute_mode() {
    for dark in [false, true] {
        let mut h = phone(dark);
        h.open("Clock");
        h.tap("Add alarm");
        tap_desc(&mut h, "Minute");
        assert!(h.find("45 minutes").is_some(), "the minute grid shows");
        assert_screen!(h, named("time_picker_minutes", dark).as_str());
    }
}

#[test]
fn date_picker() {
    for dark in [false, true] {
        let mut h = phone(dark);
        h.open("Clock");
        h.tap("Clock settings");
        h.tap("Pause all alarms");
        wait(&mut h, 2500); // let the toast go
        h.scroll_to("31 October 2025", 4);
        assert!(h.find("October 2025").is_some(), "the picker shows the month of the chosen date");
        assert!(by_desc(&mut h, "22 October 2025").is_selected == Some(true), "a week from today is selected");
        assert_screen!(h, named("date_picker", dark).as_str());
    }
}

#[test]
fn text_menu() {
    let mut h = phone(false);
    open_settings_screen(&mut h, "About phone");
    let field = by_id(&mut h, "device_name_field");
    long_press_el(&mut h, &field);
    assert!(h.find("Copy").is_some() && h.find("Paste").is_some());
    assert_screen!(h, "text_menu_about");
}

#[test]
fn chatly_thread_and_moments_with_colour_emoji() {
    let mut h = phone(false);
    h.open("Chatly");
    h.tap("Jordan Lee");
    assert!(h.find("Perfect. I'll grab snacks 🍿").is_some(), "the thread shows the message with its emoji");
    assert_screen!(h, "chatly_thread_emoji_light");
    let mut h = phone(false);
    h.open("Chatly");
    h.tap("Discover");
    h.tap("Moments");
    assert!(h.find("Sent my first V5 today 🧗").is_some() || h.find("Sunday farmers market haul 🍑🥕 Peaches are back!").is_some());
    assert_screen!(h, "chatly_moments_emoji_light");
}
