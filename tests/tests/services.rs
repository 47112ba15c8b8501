//! System services for cross-app work: the share sheet, notification actions, and a
//! super-app hosting a mini-app (capsule chrome, wallet payments, share to a chat).

use std::path::PathBuf;

use phoneworld_data::{Action, Key};
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};
use phoneworld_tests::{Harness, ScratchApp};
use serde_json::json;

fn harness() -> Harness {
    let root = project_root();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/services");
    let catalog = Catalog::load(&[root.join("apps/settings"), fixtures], &[root.join("layouts")]).unwrap();
    assert!(catalog.broken.is_empty(), "{:?}", catalog.broken);
    Harness { device: Device::new(catalog, DeviceConfig::default()).unwrap(), results: Vec::new() }
}

#[test]
fn the_share_sheet_hands_text_to_the_chosen_app() {
    let mut h = harness();
    h.open("Sharer").tap("Share");
    assert!(h.find("Share from Sharer").is_some(), "{}", h.device.ui_tree_text());
    assert!(h.find("Host").is_some());
    assert!(h.find("Sharer").is_none(), "the source app is not a target of its own share");
    h.tap("Host");
    assert_eq!(h.device.foreground().0, "com.phoneworld.test.host");
    assert_eq!(h.app_state("com.phoneworld.test.host")["received"], json!("hello from sharer"));
    // Back on the sheet dismisses it without sharing.
    h.open("Sharer").tap("Share").key(Key::Back);
    assert!(h.find("Share from Sharer").is_none());
}

#[test]
fn notification_actions_run_their_handler_from_the_shade() {
    let mut h = harness();
    h.open("Sharer").tap("Notify");
    assert!(h.find("Sharer notification: Ping").is_some(), "the status bar shows it");
    h.act(Action::Swipe { x1: 540.0, y1: 10.0, x2: 540.0, y2: 1500.0, ms: 300 });
    assert!(h.find("Something to do").is_some());
    h.tap("Mark done");
    assert_eq!(h.app_state("com.phoneworld.test.sharer")["done"], json!(true));
    assert!(h.device.store().session.notifications.is_empty());
}

#[test]
fn a_mini_app_runs_in_host_chrome_and_pays_from_the_host_wallet() {
    let mut h = harness();
    assert!(h.find("Mini").is_none(), "mini-apps are not on the launcher");
    h.open("Host").tap("Open mini");
    assert_eq!(h.device.foreground(), ("com.phoneworld.test.mini".to_owned(), "main".to_owned()));
    assert!(h.find("Mini cafe").is_some() && h.find("More").is_some() && h.find("Close mini-app").is_some());
    assert!(h.find("Hi Ann Lee").is_some(), "host.profile() reads the host's profile");

    // Cancel leaves the wallet alone.
    h.tap("Pay 12.50");
    assert!(h.find("Pay Mini cafe").is_some(), "{}", h.device.ui_tree_text());
    h.tap("Cancel");
    let mini = h.app_state("com.phoneworld.test.mini");
    assert_eq!((mini["paid"].clone(), mini["reason"].clone()), (json!(false), json!("cancelled")));
    assert_eq!(h.app_state("com.phoneworld.test.host")["wallet"]["balance"], json!(20));

    // Paying debits the wallet and records the transaction, by the host's own service; the
    // mini-app hears only whether it paid, why not and the transaction, never what else the
    // service returned.
    h.tap("Pay 12.50").tap("Pay");
    assert_eq!(h.app_state("com.phoneworld.test.mini")["paid"], json!(true));
    let answer = h.app_state("com.phoneworld.test.mini")["answer"].clone();
    assert_eq!(answer, json!({"order": 7, "paid": true, "reason": "", "transaction": {"amount": 12.5}}));
    let wallet = h.app_state("com.phoneworld.test.host")["wallet"].clone();
    assert_eq!(wallet["balance"], json!(7.5));
    assert_eq!(wallet["transactions"][0]["merchant"], json!("Mini cafe"));
    assert_eq!(wallet["transactions"][0]["amount"], json!(12.5));

    // Not enough left: the payment fails and the mini-app hears why.
    h.tap("Pay 12.50").tap("Pay");
    let mini = h.app_state("com.phoneworld.test.mini");
    assert_eq!((mini["paid"].clone(), mini["reason"].clone()), (json!(false), json!("insufficient balance")));
    assert_eq!(h.app_state("com.phoneworld.test.host")["wallet"]["balance"], json!(7.5));

    // Share to a chat picked in the host's chat list.
    h.tap("Share order").tap("Cy");
    let chats = h.app_state("com.phoneworld.test.host")["chats"].clone();
    assert_eq!(chats[1]["messages"][0]["text"], json!("Order 7 is ready"));
    assert_eq!(chats[0]["messages"], json!([]));

    // The capsule: ··· offers going back; × closes the mini-app into its host.
    h.tap("More");
    assert!(h.find("Back to Host").is_some());
    h.key(Key::Back).tap("Close mini-app");
    assert_eq!(h.device.foreground().0, "com.phoneworld.test.host");
    assert!(!h.device.store().session.tasks.contains_key("com.phoneworld.test.mini"));
}

#[test]
fn paste_from_the_text_menu_is_a_change_the_app_hears() {
    let mut h = harness();
    h.open("Sharer");
    h.device.store_mut().session.clipboard = "pasted words".into();
    h.long_press("note");
    h.tap("Paste");
    assert_eq!(h.app_state("com.phoneworld.test.sharer")["note"], json!("pasted words"));
    h.long_press("note");
    h.tap("Cut");
    assert_eq!(h.app_state("com.phoneworld.test.sharer")["note"], json!(""));
    assert_eq!(h.device.store().session.clipboard, "pasted words");
}

/// A mini-app written by anyone, hosted by the bundled Chatly: it reaches Chatly only through
/// the services Chatly declares, which keep to Chatly's rules.
#[test]
fn a_mini_app_reaches_its_host_only_through_the_services_the_host_declares() {
    let app = ScratchApp::new(
        "foreign-mini",
        &[
            (
                "app.ron",
                r#"App(package: "com.example.foreign", label: "Foreign", icon: "star", entry: "main", scripts: ["main.lua"], mini_app_of: "com.phoneworld.chat")"#,
            ),
            (
                "main.lua",
                r#"
function look(ev) state.set("profile", host.profile()) end
function take(ev) host.pay{ amount = -500, merchant = "Refund", handler = "heard" } end
function heard(ev) state.set("answer", ev.args) end
"#,
            ),
            ("screens/main.ron", r#"Screen(on_enter: "look", root: Column(children: [Button(text: "Take", on_tap: "take")]))"#),
        ],
    );
    let mut h = Harness::with_apps(&[project_root().join("apps"), app.dir.clone()]);
    let wallet = h.app_state("com.phoneworld.chat")["wallet"].clone();
    h.device.open_screen("com.example.foreign", "main", json!({})).unwrap();
    // host.profile() is the profile Chatly names, and nothing else of its data.
    let profile = h.app_state("com.example.foreign")["profile"].clone();
    assert_eq!(profile["name"], json!("Alex Morgan"));
    assert!(profile.get("balance").is_none() && profile.get("chats").is_none(), "{profile}");
    // A payment of a negative amount would fill the mini-app's pockets: Chatly refuses it.
    h.tap("Take");
    assert!(h.find("Pay Refund").is_some(), "{}", h.device.ui_tree_text());
    h.tap("Pay");
    let answer = h.app_state("com.example.foreign")["answer"].clone();
    assert_eq!((answer["paid"].clone(), answer["reason"].clone()), (json!(false), json!("invalid amount")));
    assert_eq!(h.app_state("com.phoneworld.chat")["wallet"], wallet, "the wallet is as it was");
}
