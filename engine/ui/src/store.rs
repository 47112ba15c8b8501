//! The one serializable store of a device: every app's data, system settings, and the
//! UI/session state (navigation, focus, overlays, clock, RNG). Snapshots and hashes are taken
//! of this and nothing else.

use std::collections::BTreeMap;

use phoneworld_data::Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One screen on an app's back stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScreenEntry {
    pub screen: String,
    pub params: Value,
    /// Screen-local UI state (`local.*`).
    pub local: Value,
    /// Scroll offsets in pixels by node key.
    pub scroll: BTreeMap<String, f32>,
    /// Internal state of composite widgets (picker field, shown month) by node key.
    pub widgets: BTreeMap<String, Value>,
}

impl ScreenEntry {
    pub fn new(screen: &str, params: Value) -> ScreenEntry {
        let params = if params.is_null() { Value::Object(serde_json::Map::new()) } else { params };
        ScreenEntry {
            screen: screen.to_owned(),
            params,
            local: Value::Object(serde_json::Map::new()),
            scroll: BTreeMap::new(),
            widgets: BTreeMap::new(),
        }
    }
}

/// What fills the screen between the status and navigation bars.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "package", rename_all = "snake_case")]
pub enum Foreground {
    Home,
    Recents,
    App(String),
}

/// The text field that has input focus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Focus {
    pub app: String,
    /// Node key of the field on its screen.
    pub key: String,
    /// Layout path the field edits (`local.label`, `state.note`).
    pub path: String,
    pub multiline: bool,
    pub on_change: Option<String>,
    pub on_submit: Option<String>,
    /// The event table the field's handlers receive (item, index, id, params).
    pub event: Value,
    /// The keyboard shows symbols instead of letters.
    pub symbols: bool,
    /// The next letter is upper case.
    pub shift: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    pub id: u64,
    pub app: String,
    pub title: String,
    pub text: String,
    pub icon: String,
    pub screen: Option<String>,
    pub params: Value,
    pub posted_ms: i64,
    /// Action buttons (each runs a handler of the posting app).
    #[serde(default)]
    pub actions: Vec<Choice>,
}

/// A modal or transient surface over the app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Overlay {
    Dialog {
        app: String,
        title: String,
        text: String,
        buttons: Vec<Choice>,
    },
    Sheet {
        app: String,
        title: String,
        options: Vec<Choice>,
    },
    /// Copy / Paste / Select all for a text field (long press).
    TextMenu {
        app: String,
        key: String,
        path: String,
        /// The field's change handler and event: Cut and Paste change its text.
        #[serde(default)]
        on_change: Option<String>,
        #[serde(default)]
        event: Value,
        x: f32,
        y: f32,
    },
    /// The share sheet: apps that receive shares.
    Share {
        app: String,
        text: String,
        item: Value,
        targets: Vec<String>,
    },
    /// A super-app's payment sheet, raised by one of its mini-apps.
    Payment {
        app: String,
        host: String,
        amount: f64,
        merchant: String,
        note: String,
        handler: Option<String>,
        args: Value,
    },
    /// A super-app's chat picker: where to send a mini-app's message.
    ChatPicker {
        app: String,
        host: String,
        text: String,
    },
    /// The ··· menu of a mini-app's capsule.
    MiniAppMenu {
        app: String,
        host: String,
    },
}

/// A button of a dialog or an option of a sheet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub text: String,
    pub icon: String,
    pub handler: Option<String>,
    pub args: Value,
}

/// A toast or snackbar, shown until `until_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transient {
    pub app: String,
    pub text: String,
    pub action: Option<Choice>,
    pub until_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timer {
    pub id: u64,
    pub app: String,
    pub due_ms: i64,
    pub handler: String,
    pub args: Value,
}

/// UI and session state: everything that is not app data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub clock_ms: i64,
    pub rng: Rng,
    pub foreground: Foreground,
    /// Back stacks of running apps.
    pub tasks: BTreeMap<String, Vec<ScreenEntry>>,
    /// Running apps, most recent first.
    pub recents: Vec<String>,
    pub focus: Option<Focus>,
    pub clipboard: String,
    pub notifications: Vec<Notification>,
    pub next_notification_id: u64,
    pub shade_open: bool,
    pub overlay: Option<Overlay>,
    pub toast: Option<Transient>,
    pub snackbar: Option<Transient>,
    pub timers: Vec<Timer>,
    pub next_timer_id: u64,
    pub launcher_page: usize,
    pub recents_scroll: f32,
    /// Scroll offset of the open bottom sheet's options.
    #[serde(default)]
    pub sheet_scroll: f32,
    /// What the agent answered and how it finished (for verifiers).
    pub answer: Option<String>,
    pub finished: Option<String>,
    pub steps: u64,
    /// Seeded interruptions: pending, shown, and how they went.
    #[serde(default, skip_serializing_if = "crate::interruptions::Interruptions::is_empty")]
    pub interruptions: crate::interruptions::Interruptions,
}

/// The navigation rules: what the keyboard, an open overlay and the shade do when the user
/// moves. Every navigation of the device goes through these, so each rule holds in one place.
impl Session {
    /// Something else comes to the front (an app, home, recents): the keyboard, any overlay
    /// and the shade go away.
    pub fn bring_to_front(&mut self, foreground: Foreground) {
        self.focus = None;
        self.overlay = None;
        self.shade_open = false;
        self.foreground = foreground;
    }

    /// Another screen of the app shows: the keyboard goes away.
    pub fn change_screen(&mut self) {
        self.focus = None;
    }

    /// A dialog or sheet the app asked for opens over the screen: the keyboard goes away; a
    /// bottom sheet starts scrolled to its top.
    pub fn open_overlay(&mut self, overlay: Overlay) {
        self.focus = None;
        if matches!(overlay, Overlay::Sheet { .. }) {
            self.sheet_scroll = 0.0;
        }
        self.overlay = Some(overlay);
    }

    /// Back closes what lies over the screen first, one layer at a time: an overlay, then the
    /// shade, then the keyboard. False when nothing was open (Back then leaves the screen).
    pub fn close_top_layer(&mut self) -> bool {
        if self.overlay.is_some() {
            self.overlay = None;
        } else if self.shade_open {
            self.shade_open = false;
        } else if self.focus.is_some() {
            self.focus = None;
        } else {
            return false;
        }
        true
    }

    /// The notification shade is pulled down: the keyboard goes away.
    pub fn open_shade(&mut self) {
        self.shade_open = true;
        self.focus = None;
    }
}

/// The whole mutable state of a device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Store {
    /// App data by package, shared copy-on-write (a fork or restore copies pointers; the
    /// first change to an app's data copies that app's data only).
    pub apps: BTreeMap<String, std::sync::Arc<Value>>,
    /// System settings (`system.*`).
    pub system: Value,
    pub session: Session,
}

/// The virtual clock starts here: 2025-10-15 09:00 (a Wednesday).
pub const EPOCH_START_MS: i64 = 20_376 * 86_400_000 + 9 * 3_600_000;

pub fn default_system() -> Value {
    serde_json::json!({
        "wifi": true,
        "bluetooth": false,
        "airplane_mode": false,
        "dark_theme": false,
        "brightness": 60,
        "font_scale": 1.0,
        "ringtone": "Pixel Bloom",
        "device_name": "Pixel 9",
    })
}

impl Store {
    /// The heads-up notification over the screen, if any.
    pub fn heads_up_notification(&self) -> Option<&Notification> {
        let session = &self.session;
        let h = session.interruptions.heads_up.as_ref()?;
        if session.shade_open || h.until_ms <= session.clock_ms || !matches!(session.foreground, Foreground::App(_) | Foreground::Home) {
            return None;
        }
        session.notifications.iter().find(|n| n.id == h.notification)
    }

    pub fn new(seed: u64) -> Store {
        Store {
            apps: BTreeMap::new(),
            system: default_system(),
            session: Session {
                clock_ms: EPOCH_START_MS,
                rng: Rng::new(seed),
                foreground: Foreground::Home,
                tasks: BTreeMap::new(),
                recents: Vec::new(),
                focus: None,
                clipboard: String::new(),
                notifications: Vec::new(),
                next_notification_id: 1,
                shade_open: false,
                overlay: None,
                toast: None,
                snackbar: None,
                timers: Vec::new(),
                next_timer_id: 1,
                launcher_page: 0,
                recents_scroll: 0.0,
                sheet_scroll: 0.0,
                answer: None,
                finished: None,
                steps: 0,
                interruptions: Default::default(),
            },
        }
    }

    /// The foreground app's package, if an app is in front.
    pub fn foreground_app(&self) -> Option<&str> {
        match &self.session.foreground {
            Foreground::App(p) => Some(p),
            _ => None,
        }
    }

    /// The top screen of an app's back stack.
    pub fn top(&self, app: &str) -> Option<&ScreenEntry> {
        self.session.tasks.get(app).and_then(|s| s.last())
    }

    /// An app's data, writable (copied first if a snapshot or fork shares it).
    pub fn app_mut(&mut self, app: &str) -> &mut Value {
        std::sync::Arc::make_mut(
            self.apps.entry(app.to_owned()).or_insert_with(|| std::sync::Arc::new(Value::Object(serde_json::Map::new()))),
        )
    }

    pub fn top_mut(&mut self, app: &str) -> Option<&mut ScreenEntry> {
        self.session.tasks.get_mut(app).and_then(|s| s.last_mut())
    }
}
