//! `app.ron`: what an app is called, where it starts and what it ships.

use std::collections::BTreeMap;

use serde::Deserialize;

/// An app's manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename = "App", deny_unknown_fields)]
pub struct Manifest {
    /// Package name, e.g. `com.phoneworld.clock`.
    pub package: String,
    /// Launcher label.
    pub label: String,
    /// Material icon name for the launcher.
    pub icon: String,
    /// Launcher icon background (`#RRGGBB`).
    #[serde(default = "default_icon_color")]
    pub color: String,
    /// The screen an app opens on.
    pub entry: String,
    /// Lua files, loaded in order into the app's environment.
    #[serde(default)]
    pub scripts: Vec<String>,
    /// Read-only content: name → file (RON or JSON) inside the app folder.
    #[serde(default)]
    pub content: BTreeMap<String, String>,
    /// The app's data when it is installed.
    #[serde(default)]
    pub state: BTreeMap<String, serde_json::Value>,
    /// Deep links: URI prefix (`clock://alarm`) → screen.
    #[serde(default)]
    pub deep_links: BTreeMap<String, String>,
    /// Handler run when the app starts for the first time in a session (optional).
    #[serde(default)]
    pub on_launch: Option<String>,
    /// Handler run once when the phone is created, with the seeded RNG (optional).
    #[serde(default)]
    pub on_install: Option<String>,
    /// Handler that receives shared text or items; the app is then a share-sheet target.
    #[serde(default)]
    pub share: Option<String>,
    /// For a mini-app: the package of the super-app that hosts it.
    #[serde(default)]
    pub mini_app_of: Option<String>,
    /// For an app that shows a map: where its city comes from.
    #[serde(default)]
    pub map: Option<MapSpec>,
    /// For a super-app: what it offers its mini-apps, implemented in its own scripts.
    #[serde(default)]
    pub services: Option<HostServices>,
}

/// What a super-app offers its mini-apps. The phone knows none of the host's data: a service is
/// a handler of the host's own scripts, or a place in the host's data it names (a path as Lua
/// writes it: `wallet.balance`). A mini-app sees only what these give back.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostServices {
    /// Handler run when the user confirms a mini-app's `host.pay`, with `ev.args` = `amount`,
    /// `merchant`, `note` and `app` (the mini-app's package). It returns
    /// `{ paid = true|false, reason = "...", transaction = {...} }`, handed to the mini-app.
    pub pay: Option<String>,
    /// Handler run when the user picks a chat for a mini-app's `host.share_to_chat`, with
    /// `ev.args` = `chat` (1-based position in `chats`), `text` and `app`.
    pub send_to_chat: Option<String>,
    /// The balance the payment sheet shows.
    pub balance: Option<String>,
    /// The list the chat picker shows (each entry's `name`).
    pub chats: Option<String>,
    /// What `host.profile()` gives a mini-app.
    pub profile: Option<String>,
}

/// The city of an app's `Map` widgets and of its scripts' `map.*` functions: generated from a
/// seed kept in the app's state, with the places of a content file pinned at their addresses.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSpec {
    /// State key of the city's seed (an integer, set by the install hook from the seeded RNG).
    pub seed: String,
    /// Content key of the places (a list of objects with `id`, `name`, `category`, `address`).
    pub places: String,
    /// State key of the user's address (where the location dot is).
    pub home: String,
}

fn default_icon_color() -> String {
    "#1A73E8".to_owned()
}
