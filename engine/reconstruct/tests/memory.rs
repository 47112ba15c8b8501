//! What a rebuilt app remembers, from traces recorded on the mock phone: a saved form's text
//! shows where the trace showed it (and what is typed next shows there instead), a new form
//! opens empty, and choosing one radio button turns the others of its group off. Replay
//! measures it: every revisit whose checked value or typed text changed is reproduced.

mod common;

use common::{scratch, tap_on, texts, Recorder};
use phoneworld_data::{Action, Key, UiElement};
use phoneworld_phone::{Catalog, Device, DeviceConfig};
use phoneworld_reconstruct::{reconstruct, ReconOptions, Reconstruction};

const NOTES: &str = "com.phoneworld.notes";
const SETTINGS: &str = "com.phoneworld.settings";

fn described(desc: &'static str) -> impl Fn(&UiElement) -> bool {
    move |e| e.content_description.as_deref() == Some(desc)
}

fn the_title_field(e: &UiElement) -> bool {
    e.is_editable == Some(true) && e.resource_id.as_deref().is_some_and(|id| id.ends_with("/title"))
}

fn labelled(text: &'static str) -> impl Fn(&UiElement) -> bool {
    move |e| e.text.as_deref() == Some(text)
}

fn checked(device: &mut Device, text: &str) -> bool {
    device.ui_elements().into_iter().find(|e| e.text.as_deref() == Some(text)).and_then(|e| e.is_checked) == Some(true)
}

/// Rebuilds the trace into `dir/app`; the reconstruction and a fresh phone with the app open.
fn rebuild(dir: &std::path::Path, trace: std::path::PathBuf, package: &str) -> (Reconstruction, Device) {
    let app = dir.join("app");
    let options = ReconOptions { visual: false, ..ReconOptions::default() };
    let rebuilt = reconstruct(&[trace], &app, &options).unwrap();
    let catalog = Catalog::load_default(std::slice::from_ref(&app)).unwrap();
    let mut device = Device::new(catalog, DeviceConfig::default()).unwrap();
    device.step(&Action::OpenApp { app: package.into() });
    (rebuilt, device)
}

/// Every revisit the trace changed is reproduced by replaying it on the rebuilt app.
fn remembers_every_change(rebuilt: &Reconstruction, at_least: usize) {
    let memory = &rebuilt.fidelity[0].memory;
    assert!(memory.changed_revisits >= at_least, "{memory:?}");
    assert_eq!(memory.reproduced, memory.changed_revisits, "{:#?}", rebuilt.fidelity[0].per_step);
}

#[test]
fn a_saved_note_title_shows_on_the_list_and_a_new_note_opens_empty() {
    let dir = scratch("memory-notes");
    let mut source = Recorder::new(&dir);
    source.act(&Action::OpenApp { app: NOTES.into() });
    for title in ["Groceries", "Books to read"] {
        let tap = tap_on(&mut source.device, "New note", described("New note"));
        source.act(&tap);
        let tap = tap_on(&mut source.device, "the title", the_title_field);
        source.act(&tap);
        source.act(&Action::TypeText { text: title.into(), clear: true });
        // Back hides the keyboard; the arrow saves the note.
        source.act(&Action::Key { key: Key::Back });
        let tap = tap_on(&mut source.device, "Navigate up", described("Navigate up"));
        source.act(&tap);
        assert!(source.device.foreground().1 == "home" && texts(&mut source.device).contains(title));
    }
    let (rebuilt, mut phone) = rebuild(&dir, source.finish(), NOTES);
    remembers_every_change(&rebuilt, 2);

    // What is typed now, not what the trace typed, shows on the list after saving.
    let tap = tap_on(&mut phone, "New note", described("New note"));
    phone.step(&tap);
    let title = phone.ui_elements().into_iter().find(the_title_field).expect("a title field");
    assert_eq!(title.text.as_deref().unwrap_or_default(), "", "a new note opens empty");
    let tap = tap_on(&mut phone, "the title", the_title_field);
    phone.step(&tap);
    phone.step(&Action::TypeText { text: "Ideas".into(), clear: true });
    phone.step(&Action::Key { key: Key::Back });
    let tap = tap_on(&mut phone, "Navigate up", described("Navigate up"));
    phone.step(&tap);
    assert!(texts(&mut phone).contains("Ideas"), "{:?}", texts(&mut phone));
    // Opened again, the form is empty again.
    let tap = tap_on(&mut phone, "New note", described("New note"));
    phone.step(&tap);
    let title = phone.ui_elements().into_iter().find(the_title_field).expect("a title field");
    assert_eq!(title.text.as_deref().unwrap_or_default(), "");
}

#[test]
fn one_radio_button_of_a_group_is_on_and_stays_chosen() {
    let dir = scratch("memory-settings");
    let mut source = Recorder::new(&dir);
    source.act(&Action::OpenApp { app: SETTINGS.into() });
    for choice in ["Large", "Small"] {
        let tap = tap_on(&mut source.device, "Display", labelled("Display"));
        source.act(&tap);
        let tap = tap_on(&mut source.device, choice, labelled(choice));
        source.act(&tap);
        let tap = tap_on(&mut source.device, "Navigate up", described("Navigate up"));
        source.act(&tap);
    }
    let (rebuilt, mut phone) = rebuild(&dir, source.finish(), SETTINGS);
    remembers_every_change(&rebuilt, 1);

    let tap = tap_on(&mut phone, "Display", labelled("Display"));
    phone.step(&tap);
    assert!(checked(&mut phone, "Default"), "as the trace first showed it");
    let tap = tap_on(&mut phone, "Largest", labelled("Largest"));
    phone.step(&tap);
    assert!(checked(&mut phone, "Largest"));
    assert!(!checked(&mut phone, "Default"), "choosing one turns the others off");
    let tap = tap_on(&mut phone, "Navigate up", described("Navigate up"));
    phone.step(&tap);
    let tap = tap_on(&mut phone, "Display", labelled("Display"));
    phone.step(&tap);
    assert!(checked(&mut phone, "Largest"), "the choice is remembered");
}
