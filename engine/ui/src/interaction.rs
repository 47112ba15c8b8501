//! What a touch on a node does. The view builder records one [`Hit`] per interactive node;
//! the step loop carries it out.

use serde_json::Value;

/// Where an input writes: a root and the path below it (positions counted from 1).
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub root: TargetRoot,
    pub segments: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetRoot {
    State,
    Local,
    System,
}

impl Target {
    /// The layout-style path (`local.label`), for focus records.
    pub fn to_path_string(&self) -> String {
        let root = match self.root {
            TargetRoot::State => "state",
            TargetRoot::Local => "local",
            TargetRoot::System => "system",
        };
        std::iter::once(root.to_owned()).chain(self.segments.iter().cloned()).collect::<Vec<_>>().join(".")
    }

    pub fn parse(path: &str) -> Option<Target> {
        let mut parts = path.split('.');
        let root = match parts.next()? {
            "state" => TargetRoot::State,
            "local" => TargetRoot::Local,
            "system" => TargetRoot::System,
            _ => return None,
        };
        Some(Target { root, segments: parts.map(str::to_owned).collect() })
    }
}

/// A shell (system UI) action.
#[derive(Debug, Clone, PartialEq)]
pub enum SystemAction {
    Back,
    Home,
    Recents,
    Launch(String),
    SwitchTo(String),
    CloseTask(String),
    ClearRecents,
    LauncherPage(usize),
    TypeChar(char),
    Backspace,
    Shift,
    Symbols,
    Enter,
    Choice(usize),
    DismissOverlay,
    SnackbarAction,
    Copy,
    Paste,
    Cut,
    OpenNotification(u64),
    NotificationAction(u64, usize),
    MiniAppMenu(String),
    CloseMiniApp(String),
    ClearNotifications,
    QuickToggle(&'static str),
    CloseShade,
    /// A tap on the heads-up banner of this notification: opens it.
    HeadsUp(u64),
    /// A button of the modal interruption, by index.
    InterruptionButton(usize),
    /// A tap on the dimmed screen around a modal interruption.
    InterruptionOutside,
}

/// Where a list row's item comes from.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ItemSource {
    #[default]
    None,
    /// A path into the store (`state.alarms.3`, the third alarm): read when the event fires.
    Path(String),
    /// An item computed by the layout (not in the store): kept as is, shared (a kept list row
    /// puts its hits back by the dozen every step).
    Value(std::sync::Arc<Value>),
}

/// What a handler's event table is made of. It is turned into JSON only when the event
/// fires, so building a screen copies no items or parameters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EventSource {
    pub item: ItemSource,
    /// The row's position in its list, counted from 1.
    pub index: Option<usize>,
    pub id: Option<String>,
    pub value: Option<Value>,
}

/// What a touch does.
#[derive(Debug, Clone, PartialEq)]
pub enum Interaction {
    /// Runs an app handler with an event table.
    Handler {
        app: String,
        handler: String,
        event: EventSource,
    },
    /// Flips a boolean input, then runs its handler.
    Toggle {
        app: String,
        target: Target,
        handler: Option<String>,
        event: EventSource,
    },
    /// Sets an input to a value, then runs its handler.
    Set {
        app: String,
        target: Target,
        value: Value,
        handler: Option<String>,
        event: EventSource,
    },
    /// Sets a slider from the touch position along its track.
    Slider {
        app: String,
        target: Target,
        min: f64,
        max: f64,
        step: f64,
        handler: Option<String>,
        event: EventSource,
    },
    /// Focuses a text field.
    Focus {
        app: String,
        key: String,
        target: Target,
        multiline: bool,
        /// The field asks for digits (`keyboard: "number"` or `"phone"`): the keyboard opens
        /// on its symbols page, where the digits are.
        digits: bool,
        on_change: Option<String>,
        on_submit: Option<String>,
        event: EventSource,
    },
    /// Long press on a text field: the Copy / Paste menu.
    TextMenu {
        app: String,
        key: String,
        target: Target,
        on_change: Option<String>,
        event: EventSource,
    },
    /// A map: a drag pans it, a double tap zooms in at the touch. The camera (`{x, y, zoom}`,
    /// metres and zoom level) is written to `target`, then `handler` runs.
    Map {
        app: String,
        target: Target,
        x: f64,
        y: f64,
        zoom: u8,
        /// Pixels per metre at this zoom.
        scale: f64,
        handler: Option<String>,
        event: EventSource,
    },
    /// Changes a composite widget's own UI state (picker field, shown month).
    Widget {
        key: String,
        value: Value,
    },
    System(SystemAction),
}

/// A scroll container: where its offset is kept and who hears that it reached the end.
#[derive(Debug, Clone, PartialEq)]
pub struct ScrollInfo {
    pub app: String,
    pub key: String,
    pub on_end: Option<String>,
    pub event: EventSource,
}

/// The interactions of one node.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hit {
    pub tap: Option<Interaction>,
    pub long_press: Option<Interaction>,
    pub scroll: Option<ScrollInfo>,
}
