//! Every interactive widget operated the way an agent does it (find on screen, tap, drag,
//! type), asserting what a user would notice: app data, system settings, what the screen shows.

mod common;

use common::*;
use phoneworld_data::{Action, Key, UiElement};
use phoneworld_tests::{Harness, ScratchApp};
use serde_json::{json, Value};

fn alarms(h: &Harness) -> Vec<Value> {
    h.app_state(CLOCK)["alarms"].as_array().cloned().unwrap_or_default()
}

fn alarm_by_id(h: &Harness, id: i64) -> Value {
    alarms(h).into_iter().find(|a| a["id"] == json!(id)).unwrap_or_else(|| panic!("no alarm {id}: {:?}", alarms(h)))
}

fn new_alarm(h: &mut Harness) {
    h.open("Clock");
    h.tap("Add alarm");
    assert_eq!(screen(h), "alarm_edit");
}

fn text_of(e: &UiElement) -> &str {
    e.text.as_deref().unwrap_or("")
}

// ------------------------------------------------------------------ pickers

#[test]
fn time_picker_set_by_tapping_fields_and_grid() {
    let mut h = Harness::new(1);
    new_alarm(&mut h);
    tap_desc(&mut h, "Hour");
    tap_desc(&mut h, "7 hours"); // the cell showing "07"
    tap_desc(&mut h, "Minute");
    assert!(by_desc(&mut h, "Minute").is_selected == Some(true), "the minute field is active");
    h.tap("45");
    assert_eq!(text_of(&by_desc(&mut h, "Hour")), "07");
    assert_eq!(text_of(&by_desc(&mut h, "Minute")), "45");
    assert!(on_screen(&mut h, "Alarm in 22 hours and 45 minutes"), "the editor says when it rings");
    h.tap("Save");
    assert_eq!(screen(&h), "home");
    assert_eq!(alarm_by_id(&h, 3)["time"], json!(7 * 60 + 45));
    assert!(h.find("07:45").is_some(), "the new alarm is listed");
}

#[test]
fn time_picker_arrows_step_and_wrap() {
    let mut h = Harness::new(1);
    new_alarm(&mut h); // 07:00
    h.tap("Decrease minute"); // 06:59? no: minutes wrap inside the hour
    assert_eq!(text_of(&by_desc(&mut h, "Minute")), "59");
    assert_eq!(text_of(&by_desc(&mut h, "Hour")), "07", "the minute arrow does not carry into the hour");
    h.tap("Increase hour");
    h.tap("Increase minute");
    assert_eq!(text_of(&by_desc(&mut h, "Hour")), "08");
    assert_eq!(text_of(&by_desc(&mut h, "Minute")), "00");
    for _ in 0..9 {
        h.tap("Decrease hour");
    }
    assert_eq!(text_of(&by_desc(&mut h, "Hour")), "23", "the hour wraps below midnight");
    h.tap("Save");
    assert_eq!(alarm_by_id(&h, 3)["time"], json!(23 * 60));
}

fn open_vacation_picker(h: &mut Harness) {
    h.open("Clock");
    h.tap("Clock settings");
    h.tap("Pause all alarms");
    assert_eq!(h.app_state(CLOCK)["settings"]["vacation"], json!(true));
    assert_eq!(h.app_state(CLOCK)["settings"]["vacation_until"], json!("2025-10-22"), "a week from today by default");
    h.scroll_to("Next month", 3);
}

#[test]
fn date_picker_month_arrows_and_day_tap() {
    let mut h = Harness::new(1);
    open_vacation_picker(&mut h);
    h.tap("Next month");
    assert!(on_screen(&mut h, "November 2025"));
    let day = h.scroll_to("20 November 2025", 3);
    tap_el(&mut h, &day);
    assert_eq!(h.app_state(CLOCK)["settings"]["vacation_until"], json!("2025-11-20"));
    assert!(on_screen(&mut h, "Alarms resume on Thursday"), "the toast names the weekday");
    assert!(by_desc(&mut h, "20 November 2025").is_selected == Some(true));
    h.scroll_to("Alarms resume on Thu, Nov 20, 2025", 0);
}

#[test]
fn date_picker_rejects_a_past_day() {
    let mut h = Harness::new(1);
    open_vacation_picker(&mut h);
    h.tap("Previous month");
    assert!(on_screen(&mut h, "September 2025"));
    let day = h.scroll_to("10 September 2025", 3);
    tap_el(&mut h, &day);
    assert_eq!(h.app_state(CLOCK)["settings"]["vacation_until"], json!("2025-10-16"), "the app moves it to tomorrow");
    assert!(on_screen(&mut h, "Pick a date after today"));
}

// ------------------------------------------------------------------ slider

/// The x of `value` on a slider track (the thumb is 20 dp, centered on the value).
fn slider_x(track: &UiElement, min: f64, max: f64, value: f64) -> f64 {
    let b = track.bbox_pixels.expect("box");
    let thumb = 20.0 * 420.0 / 160.0;
    b.x_min + thumb / 2.0 + (value - min) / (max - min) * (b.x_max - b.x_min - thumb)
}

#[test]
fn slider_drag_and_tap() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Display");
    assert_eq!(h.system("brightness"), json!(60));
    let track = h.expect("Brightness level");
    let (_, y) = center(&track);
    let from = slider_x(&track, 0.0, 100.0, 60.0);
    let to = slider_x(&track, 0.0, 100.0, 25.0);
    let r = h.act(Action::Drag { x1: from, y1: y, x2: to, y2: y, ms: 800 }).clone();
    assert!(r.ok, "{:?}", r.note);
    assert_eq!(h.system("brightness"), json!(25));
    assert!(on_screen(&mut h, "Brightness 25%"));

    let track = h.expect("Brightness level");
    let x = slider_x(&track, 0.0, 100.0, 90.0);
    h.tap_at(x, y);
    assert_eq!(h.system("brightness"), json!(90));
    assert!(on_screen(&mut h, "Brightness 90%"));
    // Past the end of the track the value clamps at the maximum.
    let b = track.bbox_pixels.unwrap();
    h.act(Action::Drag { x1: x, y1: y, x2: b.x_max + 200.0, y2: y, ms: 800 });
    assert_eq!(h.system("brightness"), json!(100));
    h.key(Key::Back);
    assert!(on_screen(&mut h, "Light theme, brightness 100%"), "the main list shows the new brightness");
}

#[test]
fn slider_with_step_snaps_and_runs_its_handler() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Sound & vibration");
    let track = h.expect("Ring volume");
    let (_, y) = center(&track);
    h.tap_at(slider_x(&track, 0.0, 100.0, 33.0), y);
    assert_eq!(h.app_state(SETTINGS)["ring_volume"], json!(35), "step 5 rounds 33 to 35");
    h.tap_at(track.bbox_pixels.unwrap().x_min + 1.0, y);
    assert_eq!(h.app_state(SETTINGS)["ring_volume"], json!(0));
    assert!(on_screen(&mut h, "Ringer silenced"), "on_change ran");
    assert!(on_screen(&mut h, "Silent"));
}

// ------------------------------------------------------------------ toggles

#[test]
fn wifi_switch_toggles() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Network & internet");
    assert_eq!(h.system("wifi"), json!(true));
    h.tap("Wi-Fi");
    assert_eq!(h.system("wifi"), json!(false));
    assert_eq!(h.expect("Wi-Fi").is_checked, Some(false));
    assert!(on_screen(&mut h, "Wi-Fi is off"));
    assert_eq!(h.app_state(SETTINGS)["connected_network"], json!(""), "turning Wi-Fi off disconnects");
    assert!(h.find("Wi-Fi signal full").is_none(), "the status bar drops the Wi-Fi icon");
    h.tap("Wi-Fi");
    assert_eq!(h.system("wifi"), json!(true));
    assert!(on_screen(&mut h, "Available networks"));
}

#[test]
fn checkbox_toggles() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Sound & vibration");
    assert_eq!(h.app_state(SETTINGS)["vibrate"], json!(true));
    h.tap("Vibrate for calls");
    assert_eq!(h.app_state(SETTINGS)["vibrate"], json!(false));
    assert_eq!(h.expect("Vibrate for calls").is_checked, Some(false));
    h.tap("Vibrate for calls");
    assert_eq!(h.app_state(SETTINGS)["vibrate"], json!(true));
}

#[test]
fn radio_buttons_pick_font_size() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Display");
    let large = h.scroll_to("Large", 4);
    assert_eq!(large.is_checked, Some(false));
    tap_el(&mut h, &large);
    assert_eq!(h.system("font_scale"), json!(1.15));
    assert!(on_screen(&mut h, "Font size changed"));
    assert_eq!(h.expect("Large").is_checked, Some(true));
    assert_eq!(h.expect("Default").is_checked, Some(false), "one radio of the group is checked");
}

#[test]
fn weekday_chips_make_a_repeating_alarm() {
    let mut h = Harness::new(1);
    new_alarm(&mut h);
    assert!(on_screen(&mut h, "Once"));
    h.tap("Monday");
    h.tap("Wednesday");
    assert_eq!(h.expect("Monday").is_checked, Some(true));
    assert!(on_screen(&mut h, "Mon, Wed"));
    h.tap("Monday");
    h.tap("Sunday");
    assert!(on_screen(&mut h, "Wed, Sun"));
    h.tap("Save");
    assert_eq!(alarm_by_id(&h, 3)["days"], json!([2, 6]));
}

#[test]
fn every_weekday_chip_is_reachable_with_five_selected() {
    // With Monday to Friday selected the chips are wider (check marks); Saturday and Sunday
    // must still be on screen and tappable.
    let mut h = Harness::new(1);
    h.open("Clock");
    let card = expect_where(&mut h, "07:00 alarm", |e| e.content_description.as_deref().is_some_and(|d| d.starts_with("Alarm 07:00")));
    tap_el(&mut h, &card);
    for day in ["Saturday", "Sunday"] {
        let e = h.expect(day);
        let b = e.bbox_pixels.unwrap();
        assert!(b.x_max <= 1080.0 && b.x_max - b.x_min >= 126.0, "{day} chip is cut off: {b:?}");
        h.tap(day);
    }
    h.tap("Save");
    assert_eq!(alarm_by_id(&h, 1)["days"], json!([0, 1, 2, 3, 4, 5, 6]));
    assert!(on_screen(&mut h, "Mon, Tue, Wed, Thu, Fri, Sat, Sun"));
}

// ------------------------------------------------------------------ navigation widgets

#[test]
fn tabs_switch_panes() {
    let mut h = Harness::new(1);
    h.open("Clock");
    h.tap("Clock settings");
    assert!(on_screen(&mut h, "Alarm sound"));
    h.tap("Clock");
    assert!(on_screen(&mut h, "Clock style"));
    assert!(!on_screen(&mut h, "Alarm sound"));
    assert_eq!(by_desc(&mut h, "Clock").is_selected, Some(true));
    h.tap("Analog");
    assert_eq!(h.app_state(CLOCK)["settings"]["style"], json!("analog"));
    h.tap("Alarms");
    assert!(on_screen(&mut h, "Alarm sound"));
    h.tap("Rooster");
    assert_eq!(h.app_state(CLOCK)["settings"]["sound"], json!("Rooster"));
}

#[test]
fn bottom_navigation_switches_destinations() {
    let mut h = Harness::new(1);
    h.open("Clock");
    for (tab, shows) in [("Clock", "World clock"), ("Timer", "05:00"), ("Stopwatch", "00:00.00"), ("Alarm", "Wake up")] {
        tap_desc(&mut h, tab);
        assert_eq!(by_desc(&mut h, tab).is_selected, Some(true), "{tab} is selected");
        assert!(on_screen(&mut h, shows), "{tab} shows {shows}");
    }
    // A timer preset chip in the Timer pane.
    tap_desc(&mut h, "Timer");
    h.tap("1 min");
    assert_eq!(h.app_state(CLOCK)["timer"]["duration"], json!(60_000));
    assert!(on_screen(&mut h, "01:00"));
}

#[test]
fn list_scrolls_to_an_item_below_the_fold() {
    let mut h = Harness::new(1);
    h.open("Clock");
    // Five copies of the weekend alarm through its long-press sheet.
    for _ in 0..5 {
        let card = expect_where(&mut h, "09:30 alarm", |e| e.content_description.as_deref().is_some_and(|d| d.starts_with("Alarm 09:30")));
        long_press_el(&mut h, &card);
        h.tap("Duplicate");
    }
    assert_eq!(alarms(&h).len(), 7);
    // A late alarm, sorted last.
    h.tap("Add alarm");
    tap_desc(&mut h, "23 hours");
    tap_id(&mut h, "label");
    h.type_on_keyboard("Late");
    h.tap("Save");
    assert_eq!(alarms(&h).len(), 8);
    assert_eq!(alarms(&h).last().unwrap()["label"], json!("Late"));
    assert!(h.find("Late").is_none(), "the last alarm starts below the fold");
    let late = h.scroll_to("Late", 6);
    tap_el(&mut h, &late);
    assert_eq!(screen(&h), "alarm_edit");
    assert_eq!(text_of(&by_desc(&mut h, "Hour")), "23");
}

// ------------------------------------------------------------------ text

/// Swipes the app content (above the keyboard) up until the element with resource id `id`
/// shows; the harness's `swipe_up` starts at 70% of the height, which is on the keyboard.
fn reveal_id(h: &mut Harness, id: &str) -> UiElement {
    let suffix = format!(":id/{id}");
    for _ in 0..4 {
        if let Some(e) = h.elements().into_iter().find(|e| e.resource_id.as_deref().is_some_and(|r| r.ends_with(&suffix))) {
            return e;
        }
        h.act(Action::Swipe { x1: 540.0, y1: 1300.0, x2: 540.0, y2: 700.0, ms: 300 });
    }
    by_id(h, id)
}

#[test]
fn keyboard_typing_into_alarm_label_is_saved() {
    let mut h = Harness::new(1);
    new_alarm(&mut h);
    tap_id(&mut h, "label");
    assert!(h.find("Shift").is_some(), "the keyboard is up");
    h.type_on_keyboard("Gym day");
    h.tap("Delete");
    h.type_on_keyboard("Y");
    let field = reveal_id(&mut h, "label");
    assert_eq!(field.is_focused, Some(true));
    assert_eq!(text_of(&field), "Gym daY");
    h.tap("Save");
    assert_eq!(screen(&h), "home");
    assert_eq!(alarm_by_id(&h, 3)["label"], json!("Gym daY"));
    assert!(on_screen(&mut h, "Gym daY"));
}

#[test]
fn focused_field_stays_visible_above_the_keyboard() {
    let mut h = Harness::new(1);
    new_alarm(&mut h);
    tap_id(&mut h, "label");
    let kb_top =
        expect_where(&mut h, "keyboard", |e| e.package_name.as_deref() == Some("com.phoneworld.keyboard")).bbox_pixels.unwrap().y_min;
    let field = h.elements().into_iter().find(|e| e.resource_id.as_deref().is_some_and(|r| r.ends_with(":id/label")));
    let field = field.expect("the focused label field is on screen while typing");
    assert!(field.bbox_pixels.unwrap().y_max <= kb_top, "the field is above the keyboard");
}

#[test]
fn type_text_action_and_enter_submit() {
    let mut h = Harness::new(1);
    new_alarm(&mut h);
    tap_id(&mut h, "label");
    h.type_text("Run");
    h.key(Key::Enter); // the label's on_submit saves
    assert_eq!(screen(&h), "home");
    assert_eq!(alarm_by_id(&h, 3)["label"], json!("Run"));

    h.open("Settings");
    h.tap("Send feedback");
    tap_id(&mut h, "feedback_text");
    h.type_text("Great phone");
    h.key(Key::Enter); // multiline: a new line, not a submit
    h.type_text("Really");
    h.key(Key::Back); // hides the keyboard
    assert!(h.find("Shift").is_none());
    h.tap("Send");
    assert_eq!(h.app_state(SETTINGS)["feedback"][0]["text"], json!("Great phone\nReally"));
    assert_eq!(screen(&h), "main");
    assert!(on_screen(&mut h, "Thanks for your feedback"));
}

#[test]
fn clipboard_copy_and_paste_through_the_text_menu() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("About phone");
    let field = by_id(&mut h, "device_name_field");
    long_press_el(&mut h, &field);
    h.tap("Copy");
    assert_eq!(h.device.store().session.clipboard, "Pixel 9");
    h.key(Key::Back);
    h.tap("Send feedback");
    let field = by_id(&mut h, "feedback_text");
    long_press_el(&mut h, &field);
    h.tap("Paste");
    assert_eq!(text_of(&by_id(&mut h, "feedback_text")), "Pixel 9");
    h.tap("Send");
    assert_eq!(h.app_state(SETTINGS)["feedback"][0]["text"], json!("Pixel 9"));
}

#[test]
fn paste_with_an_empty_clipboard_is_a_noop() {
    let mut h = Harness::new(1);
    new_alarm(&mut h);
    let field = by_id(&mut h, "label");
    long_press_el(&mut h, &field);
    let paste = h.expect("Paste");
    let (x, y) = center(&paste);
    let r = h.act(Action::Tap { x, y }).clone();
    assert!(!r.ok);
    assert_eq!(r.note.as_deref(), Some("the clipboard is empty"));
}

// ------------------------------------------------------------------ overlays

#[test]
fn dialog_buttons() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Network & internet");
    h.tap("Airplane mode");
    assert!(on_screen(&mut h, "Turn on airplane mode?"));
    h.tap("Cancel");
    assert!(!on_screen(&mut h, "Turn on airplane mode?"));
    assert_eq!(h.system("airplane_mode"), json!(false));
    h.tap("Airplane mode");
    h.tap("Turn on");
    assert_eq!(h.system("airplane_mode"), json!(true));
    assert_eq!(h.system("wifi"), json!(false));
    assert!(on_screen(&mut h, "Airplane mode on"));
    assert!(on_screen(&mut h, "Airplane mode is on. Turn on Wi-Fi to connect to a network."));
}

#[test]
fn dialog_scrim_tap_dismisses() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Network & internet");
    h.tap("Airplane mode");
    h.tap_at(540.0, 300.0); // the scrim, above the dialog card
    assert!(!on_screen(&mut h, "Turn on airplane mode?"));
    assert_eq!(h.system("airplane_mode"), json!(false));
}

#[test]
fn bottom_sheet_option() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Display");
    h.tap("Screen timeout");
    h.tap("5 minutes");
    assert_eq!(h.app_state(SETTINGS)["screen_timeout"], json!("5 minutes"));
    assert!(on_screen(&mut h, "After 5 minutes of inactivity"));
    assert!(!on_screen(&mut h, "15 seconds"), "the sheet closed");
}

#[test]
fn snackbar_undo_restores() {
    let mut h = Harness::new(1);
    h.open("Clock");
    let card = expect_where(&mut h, "07:00 alarm", |e| e.content_description.as_deref().is_some_and(|d| d.starts_with("Alarm 07:00")));
    long_press_el(&mut h, &card);
    h.tap("Delete");
    assert_eq!(alarms(&h).len(), 1);
    assert!(on_screen(&mut h, "Alarm deleted"));
    h.tap("Undo");
    assert_eq!(alarms(&h).len(), 2);
    assert_eq!(alarms(&h)[0]["id"], json!(1), "restored at its old position");
    assert!(on_screen(&mut h, "Wake up"));

    h.open("Settings");
    h.tap("Sound & vibration");
    h.tap("Mute ringer");
    assert_eq!(h.app_state(SETTINGS)["ring_volume"], json!(0));
    h.tap("Undo");
    assert_eq!(h.app_state(SETTINGS)["ring_volume"], json!(70));
}

#[test]
fn snackbar_expires() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Sound & vibration");
    h.tap("Mute ringer");
    wait(&mut h, 4000);
    assert!(h.find("Undo").is_none(), "the snackbar is gone after 4 s");
}

// ------------------------------------------------------------------ system navigation

#[test]
fn back_pops_then_goes_home() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Display");
    h.key(Key::Back);
    assert_eq!(screen(&h), "main");
    h.key(Key::Back);
    assert_eq!(h.device.foreground().1, "home");
    assert_eq!(h.device.foreground().0, "com.phoneworld.launcher");
    // The nav bar's back button and the top bar's ← do the same.
    h.open("Settings");
    h.tap("Display");
    h.tap("Navigate up");
    assert_eq!(screen(&h), "main");
    tap_id(&mut h, "back");
    assert_eq!(h.device.foreground().0, "com.phoneworld.launcher");
}

#[test]
fn back_closes_overlays_and_keyboard_first() {
    let mut h = Harness::new(1);
    new_alarm(&mut h);
    tap_id(&mut h, "label");
    h.key(Key::Back);
    assert!(h.find("Shift").is_none(), "back hides the keyboard");
    assert_eq!(screen(&h), "alarm_edit");
    h.key(Key::Back);
    assert_eq!(screen(&h), "home");
}

#[test]
fn home_key_keeps_the_task() {
    let mut h = Harness::new(1);
    h.open("Clock");
    h.tap("Clock settings");
    h.key(Key::Home);
    assert_eq!(h.device.foreground(), ("com.phoneworld.launcher".to_owned(), "home".to_owned()));
    h.tap("Clock"); // the launcher icon
    assert_eq!(h.device.foreground(), (CLOCK.to_owned(), "clock_settings".to_owned()), "the app resumes where it was");
}

#[test]
fn recents_switches_between_apps() {
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Display");
    h.open("Clock");
    h.key(Key::Recents);
    assert_eq!(h.device.foreground().1, "recents");
    h.tap("Settings");
    assert_eq!(h.device.foreground(), (SETTINGS.to_owned(), "display".to_owned()));
    tap_id(&mut h, "recent_apps");
    h.tap("Clock");
    assert_eq!(h.device.foreground(), (CLOCK.to_owned(), "home".to_owned()));
    // Recents twice returns to the last app; closing a card ends its task.
    h.key(Key::Recents);
    h.tap("Close Settings");
    assert!(h.find("Close Settings").is_none());
    assert!(!h.device.store().session.tasks.contains_key(SETTINGS));
    h.key(Key::Recents);
    assert_eq!(h.device.foreground().0, CLOCK);
}

#[test]
fn notification_tap_opens_its_target() {
    let mut h = Harness::new(1);
    finish_timer(&mut h);
    h.key(Key::Home);
    assert!(h.find("Clock notification: Timer").is_some(), "the status bar shows the app's icon");
    open_shade(&mut h);
    let n = h.expect("Time's up: 5:00 timer");
    tap_el(&mut h, &n);
    assert_eq!(h.device.foreground(), (CLOCK.to_owned(), "home".to_owned()));
    assert!(on_screen(&mut h, "Timer"), "opened on the Timer tab");
    assert_eq!(by_desc(&mut h, "Timer").is_selected, Some(true));
    assert!(h.device.store().session.notifications.is_empty(), "the notification is consumed");
    assert!(!h.device.store().session.shade_open);
}

#[test]
fn shade_quick_tile_and_swipe_up_closes() {
    let mut h = Harness::new(1);
    open_shade(&mut h);
    h.tap("Bluetooth");
    assert_eq!(h.system("bluetooth"), json!(true));
    let r = h.act(Action::Swipe { x1: 540.0, y1: 1500.0, x2: 540.0, y2: 200.0, ms: 300 }).clone();
    assert!(r.ok);
    assert!(!h.device.store().session.shade_open);
    h.tap("Settings");
    assert!(on_screen(&mut h, "Bluetooth on") || on_screen(&mut h, "Pixel Buds Pro"), "Settings sees Bluetooth on");
}

#[test]
fn launcher_opens_apps() {
    let mut h = Harness::new(1);
    h.tap("Settings");
    assert_eq!(h.device.foreground(), (SETTINGS.to_owned(), "main".to_owned()));
    h.key(Key::Home);
    h.tap("Clock");
    assert_eq!(h.device.foreground(), (CLOCK.to_owned(), "home".to_owned()));
}

// ------------------------------------------------------------------ touch targets

const MIN_TARGET: f64 = 126.0; // 48 dp at 420 dpi
const KEYBOARD_PKG: &str = "com.phoneworld.keyboard";
static CHECKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Clickable elements smaller than 48 dp on the current screen (elements cut off by the
/// edge of a scrolling container are skipped: their visible box is not their size).
fn small_targets(h: &mut Harness, where_: &str, out: &mut Vec<String>) {
    let els = h.elements();
    CHECKED.fetch_add(els.iter().filter(|e| e.is_clickable == Some(true)).count(), std::sync::atomic::Ordering::Relaxed);
    let scrolls: Vec<_> = els.iter().filter(|e| e.is_scrollable == Some(true)).filter_map(|e| e.bbox_pixels).collect();
    for e in &els {
        if e.is_clickable != Some(true) {
            continue;
        }
        let b = e.bbox_pixels.unwrap();
        let (w, hgt) = (b.x_max - b.x_min, b.y_max - b.y_min);
        let label = format!("{where_}: {:?}/{:?} {} ({w}x{hgt})", e.text, e.content_description, e.class_name.as_deref().unwrap_or(""));
        if e.package_name.as_deref() == Some(KEYBOARD_PKG) {
            if hgt < MIN_TARGET {
                out.push(format!("keyboard key too short: {label}"));
            }
            continue;
        }
        let clipped = scrolls.iter().any(|s| {
            b.x_min >= s.x_min
                && b.x_max <= s.x_max
                && b.y_min >= s.y_min
                && b.y_max <= s.y_max
                && (b.y_min <= s.y_min + 0.5 || b.y_max >= s.y_max - 0.5)
        });
        if clipped && hgt < MIN_TARGET {
            continue;
        }
        if w < MIN_TARGET || hgt < MIN_TARGET {
            out.push(label);
        }
    }
}

/// Checks the current screen, then every position of its scrollable content.
fn check_scrolling(h: &mut Harness, where_: &str, out: &mut Vec<String>) {
    small_targets(h, where_, out);
    for _ in 0..4 {
        let before = h.device.store().clone();
        let r = h.device.step(&Action::Swipe { x1: 540.0, y1: 1700.0, x2: 540.0, y2: 1100.0, ms: 300 });
        if !r.ok || h.device.store().session.tasks == before.session.tasks {
            break;
        }
        small_targets(h, &format!("{where_} (scrolled)"), out);
    }
}

#[test]
fn touch_targets_are_at_least_48dp() {
    let mut out = Vec::new();
    let mut h = Harness::new(1);
    small_targets(&mut h, "launcher", &mut out);
    h.open("Settings");
    check_scrolling(&mut h, "settings/main", &mut out);
    for row in ["Network & internet", "Connected devices", "Display", "Sound & vibration", "Send feedback", "About phone"] {
        let mut h = Harness::new(1);
        h.open("Settings");
        h.tap(row);
        check_scrolling(&mut h, row, &mut out);
    }
    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Connected devices");
    h.tap("Bluetooth");
    check_scrolling(&mut h, "bluetooth on", &mut out);
    h.tap("Pair new device");
    small_targets(&mut h, "snackbar", &mut out);

    let mut h = Harness::new(1);
    h.open("Settings");
    h.tap("Network & internet");
    h.tap("HomeNet");
    check_scrolling(&mut h, "wifi_password", &mut out);
    tap_id(&mut h, "password");
    small_targets(&mut h, "keyboard letters", &mut out);
    h.tap("Symbols");
    small_targets(&mut h, "keyboard symbols", &mut out);
    h.key(Key::Back);
    let field = by_id(&mut h, "password");
    long_press_el(&mut h, &field);
    small_targets(&mut h, "text menu", &mut out);
    h.key(Key::Back);
    h.key(Key::Back);
    h.tap("Airplane mode");
    small_targets(&mut h, "dialog", &mut out);
    h.tap("Cancel");
    h.key(Key::Back);
    h.tap("Display");
    h.tap("Screen timeout");
    small_targets(&mut h, "sheet", &mut out);

    let mut h = Harness::new(1);
    h.open("Clock");
    for tab in ["Alarm", "Clock", "Timer", "Stopwatch"] {
        tap_desc(&mut h, tab);
        check_scrolling(&mut h, &format!("clock/{tab}"), &mut out);
    }
    tap_desc(&mut h, "Alarm");
    h.tap("Add alarm");
    check_scrolling(&mut h, "alarm_edit (hours)", &mut out);
    let mut h = Harness::new(1);
    h.open("Clock");
    let card = expect_where(&mut h, "07:00 alarm", |e| e.content_description.as_deref().is_some_and(|d| d.starts_with("Alarm 07:00")));
    tap_el(&mut h, &card);
    check_scrolling(&mut h, "alarm_edit (existing, weekdays selected)", &mut out);
    let mut h = Harness::new(1);
    h.open("Clock");
    h.tap("Add alarm");
    tap_desc(&mut h, "Minute");
    check_scrolling(&mut h, "alarm_edit (minutes)", &mut out);
    let mut h = Harness::new(1);
    h.open("Clock");
    h.tap("Clock settings");
    h.tap("Pause all alarms");
    check_scrolling(&mut h, "clock_settings alarms + date picker", &mut out);
    let mut h = Harness::new(1);
    h.open("Clock");
    h.tap("Clock settings");
    h.tap("Clock");
    check_scrolling(&mut h, "clock_settings clock", &mut out);

    let mut h = Harness::new(1);
    finish_timer(&mut h);
    open_shade(&mut h);
    small_targets(&mut h, "shade", &mut out);
    h.key(Key::Back);
    h.open("Settings");
    h.key(Key::Recents);
    small_targets(&mut h, "recents", &mut out);

    assert!(CHECKED.load(std::sync::atomic::Ordering::Relaxed) > 500, "the screens above have many clickable elements");
    assert!(out.is_empty(), "touch targets under 48 dp:\n{}", out.join("\n"));
}

#[test]
fn a_buttons_color_is_its_labels_colour() {
    let dir = std::env::temp_dir().join(format!("pw-button-colour-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("screens")).unwrap();
    std::fs::write(dir.join("app.ron"), r#"App(package: "t.button", label: "Button", icon: "palette", entry: "main")"#).unwrap();
    let screen = r##"Screen(root: Column(children: [
        Button(id: "red", text: "WWWW", variant: "text", color: "#FF0000", background: "#0000FF", width: 200, height: 60),
        Button(id: "plain", text: "WWWW", variant: "text", background: "#0000FF", width: 200, height: 60),
    ]))"##;
    std::fs::write(dir.join("screens/main.ron"), screen).unwrap();
    let catalog = phoneworld_phone::Catalog::load(std::slice::from_ref(&dir), &[phoneworld_phone::project_root().join("layouts")]).unwrap();
    assert!(catalog.broken.is_empty(), "{:?}", catalog.broken);
    let device = phoneworld_phone::Device::new(catalog, phoneworld_phone::DeviceConfig::default()).unwrap();
    let mut h = Harness { device, results: Vec::new() };
    h.device.open_screen("t.button", "main", json!({})).unwrap();
    // Pixels of the button's box that are pure red.
    let reds = |h: &mut Harness, id: &str| {
        let b = by_id(h, id).bbox_pixels.unwrap();
        let frame = h.device.frame();
        let red = |x: u32, y: u32| {
            let i = ((y * frame.width + x) * 4) as usize;
            frame.pixels[i] > 200 && frame.pixels[i + 1] < 60 && frame.pixels[i + 2] < 60
        };
        (b.y_min as u32..b.y_max as u32)
            .flat_map(|y| (b.x_min as u32..b.x_max as u32).map(move |x| (x, y)))
            .filter(|(x, y)| red(*x, *y))
            .count()
    };
    assert!(reds(&mut h, "red") > 50, "the label is drawn in red");
    assert_eq!(reds(&mut h, "plain"), 0, "the theme's colour otherwise");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_field_that_asks_for_digits_opens_the_keyboard_on_its_digits() {
    let app = ScratchApp::new(
        "digits",
        &[
            ("app.ron", r#"App(package: "t.digits", label: "Digits", icon: "dialpad", entry: "main", state: {"zip": "", "name": ""})"#),
            (
                "screens/main.ron",
                r#"Screen(root: Column(children: [
            TextField(id: "zip", value: "state.zip", label: "ZIP", keyboard: "number"),
            TextField(id: "phone", value: "state.phone", label: "Phone", keyboard: "phone"),
            TextField(id: "name", value: "state.name", label: "Name"),
        ]))"#,
            ),
        ],
    );
    let mut h = Harness::with_apps(std::slice::from_ref(&app.dir));
    h.device.open_screen("t.digits", "main", json!({})).unwrap();
    for (field, digits) in [("zip", true), ("name", false), ("phone", true)] {
        tap_id(&mut h, field);
        assert_eq!(h.find("7").is_some(), digits, "{field}: digit keys shown");
        assert_eq!(h.find("Shift").is_some(), !digits, "{field}: letter keys shown");
    }
    h.tap("1").tap("2");
    assert_eq!(h.app_state("t.digits")["phone"], json!("12"));
}

#[test]
fn a_focused_field_stays_with_its_row_when_a_row_is_inserted_above_it() {
    // Typing "new" into a row makes a new row arrive at the top, as a message would.
    let app = ScratchApp::new(
        "stable-keys",
        &[
            (
                "app.ron",
                r#"App(package: "t.keys", label: "Keys", icon: "list", entry: "main", scripts: ["main.lua"], state: {"items": [{"id": 1, "name": ""}, {"id": 2, "name": ""}]})"#,
            ),
            (
                "main.lua",
                "function typed(ev)\n  if ev.value == \"new\" then state.insert(\"items\", { id = 9, name = \"\" }, 1) end\nend\n",
            ),
            (
                "screens/main.ron",
                r#"Screen(root: List(items: "{state.items}", row: TextField(id: "name_{item.id}", value: "item.name", label: "Name", on_change: "typed")))"#,
            ),
        ],
    );
    let mut h = Harness::with_apps(std::slice::from_ref(&app.dir));
    h.device.open_screen("t.keys", "main", json!({})).unwrap();
    tap_id(&mut h, "name_1");
    h.type_text("new");
    h.type_text("er");
    let items = h.app_state("t.keys")["items"].clone();
    assert_eq!(items[0], json!({"id": 9, "name": ""}), "the new row is left alone");
    assert_eq!(items[1], json!({"id": 1, "name": "newer"}), "typing went on in the same row's field");
    assert_eq!(by_id(&mut h, "name_1").is_focused, Some(true));
}
