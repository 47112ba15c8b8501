//! A control that stays until its form is filled: Contacts' Save shows "Name is required"
//! while the name is empty and opens the new contact once it is not.

mod common;

use common::{rebuilt_contacts, scratch, tap_on, tap_text, texts, Recorder, CONTACTS};
use phoneworld_data::{Action, Key};
use phoneworld_phone::Device;

fn create_contact(device: &mut Device) -> Action {
    tap_on(device, "the Create contact button", |e| e.content_description.as_deref() == Some("Create contact"))
}

fn first_name_field(device: &mut Device) -> Action {
    tap_on(device, "the First name field", |e| e.resource_name.as_deref().is_some_and(|id| id.ends_with("/first_name")))
}

#[test]
fn save_stays_while_the_name_is_empty_and_leads_on_once_it_is_typed() {
    let dir = scratch("form-requires");
    let mut source = Recorder::new(&dir);
    source.act(&Action::OpenApp { app: CONTACTS.into() });
    // Save tapped more often on the empty form than on a filled one: three stays, two saves.
    for (name, empty_saves) in [("Ada", 2), ("Bo", 1)] {
        let a = create_contact(&mut source.device);
        source.act(&a);
        for _ in 0..empty_saves {
            let a = tap_text(&mut source.device, "Save");
            source.act(&a);
            assert!(texts(&mut source.device).contains("Name is required"));
        }
        let a = first_name_field(&mut source.device);
        source.act(&a);
        source.act(&Action::TypeText { text: name.into(), clear: false });
        let a = tap_text(&mut source.device, "Save");
        source.act(&a);
        assert!(texts(&mut source.device).contains(name), "{name} was not saved");
        source.act(&Action::Key { key: Key::Back });
    }
    let trace = source.finish();

    let mut rebuilt = rebuilt_contacts(&dir, trace);
    let a = create_contact(&mut rebuilt);
    rebuilt.step(&a);
    let form = texts(&mut rebuilt);
    assert!(form.contains("Save"), "{form:?}");
    // Empty: Save stays on the form.
    let a = tap_text(&mut rebuilt, "Save");
    rebuilt.step(&a);
    assert_eq!(texts(&mut rebuilt), form, "Save left the empty form");
    // Filled: Save leads on, as it did every time the name was typed.
    let a = first_name_field(&mut rebuilt);
    rebuilt.step(&a);
    rebuilt.step(&Action::TypeText { text: "Cy".into(), clear: false });
    let a = tap_text(&mut rebuilt, "Save");
    rebuilt.step(&a);
    let after = texts(&mut rebuilt);
    assert!(!after.contains("Save"), "Save stayed on the filled form: {after:?}");
}
