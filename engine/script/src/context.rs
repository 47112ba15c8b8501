//! What a handler works on, and what it asks the phone to do.

use std::sync::Arc;

use phoneworld_data::Rng;
use serde_json::Value;

/// Something a handler asks of the phone, applied in order after the handler succeeds.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Push {
        screen: String,
        params: Value,
    },
    Replace {
        screen: String,
        params: Value,
    },
    Pop,
    Home,
    OpenApp {
        app: String,
        screen: Option<String>,
        params: Value,
    },
    DeepLink {
        uri: String,
    },
    Toast {
        text: String,
    },
    /// `ui.snackbar{...}`, `ui.dialog{...}`, `ui.sheet{...}`, `ui.notify{...}`: the table as given.
    Snackbar(Value),
    Dialog(Value),
    Sheet(Value),
    Notify(Value),
    TimerAfter {
        id: u64,
        ms: u64,
        handler: String,
        args: Value,
    },
    TimerCancel {
        id: u64,
    },
    /// `ui.share{text=, item=}`: the share sheet.
    Share(Value),
    /// `host.open(package, screen, params)`: a super-app opens one of its mini-apps.
    OpenMiniApp {
        app: String,
        screen: Option<String>,
        params: Value,
    },
    /// `host.pay{...}`: the host's payment sheet.
    Pay(Value),
    /// `host.share_to_chat{text=}`: the host's chat picker.
    ShareToChat(Value),
}

/// The working copies a handler reads and writes. The phone builds one per event and keeps it
/// only if the handler returns without error.
#[derive(Debug, Clone)]
pub struct EventCtx {
    pub app: String,
    pub state: Value,
    pub local: Value,
    pub system: Value,
    pub content: Arc<Value>,
    pub clipboard: String,
    pub now_ms: i64,
    pub rng: Rng,
    pub next_timer_id: u64,
    pub effects: Vec<Effect>,
    /// For a mini-app: the host's user profile (`host.profile()`); null otherwise.
    pub host_profile: Value,
    /// The app's city, for `map.*` (an app whose manifest has a `map`).
    pub map: Option<Arc<phoneworld_map::City>>,
    /// How finely the handler read the clock, and whether it drew a random number: what it
    /// answered depends on those besides the data it read (a view's answer is kept while
    /// they stay the same).
    pub read: Reads,
    /// The handler wrote into `state` (set, insert or remove): only then is the app's data
    /// replaced when its changes are committed.
    pub wrote_state: bool,
}

impl EventCtx {
    /// An event of `app` on empty data at the epoch, random numbers seeded with 1: what a
    /// test or tool fills in the fields it cares about (`EventCtx { state, ..EventCtx::empty(app) }`).
    pub fn empty(app: &str) -> EventCtx {
        EventCtx {
            app: app.to_owned(),
            state: Value::Object(Default::default()),
            local: Value::Object(Default::default()),
            system: Value::Object(Default::default()),
            content: Arc::new(Value::Object(Default::default())),
            clipboard: String::new(),
            now_ms: 0,
            rng: Rng::new(1),
            next_timer_id: 1,
            effects: Vec::new(),
            host_profile: Value::Null,
            map: None,
            read: Reads::default(),
            wrote_state: false,
        }
    }
}

/// How finely a handler read the clock: not at all, the date, the minute, or to the ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClockRead {
    #[default]
    Not,
    Day,
    Minute,
    Millis,
}

impl ClockRead {
    /// What of `now_ms` the reading depended on: equal keys, equal readings.
    pub fn key(self, now_ms: i64) -> Option<i64> {
        match self {
            ClockRead::Not => None,
            ClockRead::Day => Some(now_ms.div_euclid(86_400_000)),
            ClockRead::Minute => Some(now_ms.div_euclid(60_000)),
            ClockRead::Millis => Some(now_ms),
        }
    }
}

/// What a handler read besides its data (see [`EventCtx::read`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reads {
    pub clock: ClockRead,
    pub chance: bool,
}

impl EventCtx {
    /// The virtual time now (ms), noting how finely the caller uses it.
    pub fn now(&mut self, used: ClockRead) -> i64 {
        self.read.clock = self.read.clock.max(used);
        self.now_ms
    }

    /// The event's random numbers, noting that they were drawn from.
    pub fn chance(&mut self) -> &mut Rng {
        self.read.chance = true;
        &mut self.rng
    }
}
