//! The generated app as data: its screens, their widgets and handlers, and what the passes
//! (`remember`, `routes`, `shown`, `selection`, `surfaces`) learned about them. The passes
//! read and fill these; `ron_writer` and the Lua writer in `generate` turn them into files.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::widgets::{self, Widget};
use crate::abstraction::{Abstraction, Role};
use crate::trace::ScreenKind;

/// A navigation handler: a widget that led to another screen.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Handler {
    pub name: String,
    pub widget: String,
    /// The screen it leads to (the launcher's abstract id when `home`).
    pub target: String,
    /// Leads to the launcher (the phone's home screen).
    #[serde(default)]
    pub home: bool,
    pub count: usize,
    pub long_press: bool,
    /// Goes back rather than forward: Back from this screen led to the same target.
    #[serde(default)]
    pub pops: bool,
    /// From a dialog to a screen that did not open it: the dialog closes and the target takes
    /// its place (a menu's item, a prompt's answer), so Back from there skips the dialog.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dismisses: bool,
    /// Other screens the same widget led to (less often), with counts.
    pub alternatives: Vec<(String, usize)>,
    /// Typing into the widget (a text field) showed the target: a search that shows results.
    #[serde(default)]
    pub typed: bool,
    /// For a typed handler: the app-state key of the target's field, which takes the text.
    #[serde(default)]
    pub carry: Option<String>,
    /// Not seen here: the same field on this other screen did it.
    #[serde(default)]
    pub like: Option<String>,
    /// A tap on a widget not selected selects it (the traces stayed); only a tap on the
    /// selected one leads on. Holds the widget selected at first.
    #[serde(default)]
    pub selects_first: Option<String>,
    /// Fields that held text every time the widget led on; it stayed (`stayed` times) when
    /// one was empty, so it leads on only when all hold text. Each is the app-state keys of
    /// the generated fields with that field's id (a form scrolled shows it in another place).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<Vec<String>>,
    /// Those of `requires` that held a number every time (an amount): text is not enough.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires_number: Vec<String>,
    #[serde(default)]
    pub stayed: usize,
    /// Saves fields of the form before anything else (`remember::echoes`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub saves: Vec<Save>,
    /// Stays on its screen: it only saves (a send button whose message shows in place).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stays: bool,
    /// Inputs of the target it sets, as the traces showed them after it: state key and Lua
    /// value (`remember::handler_effects`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sets: Vec<(String, String)>,
    /// Checkboxes whose checked items it puts on its target: the checkbox's state key and the
    /// key showing the item there (`remember::picks`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub picks: Vec<(String, String)>,
    /// Not used in the traces: a dialog's button (or a choice in a dialog without buttons)
    /// closes the dialog, as dialogs do (`closes`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closes_dialog: bool,
    /// Not used in the traces: labelled as the screen it opens is titled (`titled`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub titled: bool,
    /// Where it leads instead after the controls that opened its screen (`routes::learn`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<Route>,
    /// Where it leads instead when a box of its screen is checked (`routes::learn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_checked: Option<CheckedRoute>,
    /// State keys of the fields it shows in place (`in_place`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opens: Vec<String>,
    /// Screens it opens beneath its target, bottom first: Back from the target went through
    /// them in the traces, which never showed them opened (`beneath`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beneath: Vec<String>,
}

impl Handler {
    /// A tap the traces showed that only leads to its target: nothing typed, saved, required,
    /// chosen or opened in place on the way, nor a target that depends on what came before.
    pub(crate) fn plain_move(&self) -> bool {
        let seen = self.count > 0 && self.like.is_none() && !self.titled && !self.closes_dialog;
        let nothing_else = !self.stays
            && self.saves.is_empty()
            && self.requires.is_empty()
            && self.sets.is_empty()
            && self.picks.is_empty()
            && self.opens.is_empty()
            && self.routes.is_empty()
            && self.selects_first.is_none()
            && self.when_checked.is_none()
            && self.carry.is_none();
        seen && nothing_else && !self.typed && !self.long_press
    }

    /// How it reaches its usual target.
    pub(crate) fn way(&self) -> Way {
        Way { home: self.home, pops: self.pops, dismisses: self.dismisses }
    }
}

/// One generated screen.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScreenModel {
    pub id: String,
    pub title: String,
    /// The title the screen shows (a toolbar's, a dialog's heading), normalized (`titled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    pub role: Role,
    pub kind: ScreenKind,
    pub visits: usize,
    /// Built with every widget (a most-used screen) or only its interactive ones.
    pub full: bool,
    pub activity: String,
    pub widgets: Vec<Widget>,
    pub handlers: Vec<Handler>,
    /// The screen moved on by itself in the traces (a splash): where to, and how often.
    pub moves_on: Option<(String, usize)>,
    #[serde(skip)]
    pub background: Option<[u8; 3]>,
    /// Flat-coloured rectangles of the example's screenshot, drawn under every widget.
    #[serde(skip)]
    pub surfaces: Vec<Surface>,
    /// The colours the example's screenshot shows where the phone draws its status and
    /// navigation bars.
    #[serde(skip)]
    pub system_bars: Option<([u8; 3], [u8; 3])>,
    /// Where the example this screen was built from came from.
    pub example: String,
    /// Texts that follow the row that opened the screen.
    #[serde(default)]
    pub shown: Option<Shown>,
    /// Groups of radio buttons: turning one on turns the others off (`remember`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub radio_groups: Vec<RadioGroup>,
    /// The choice of the first radio group each opening handler showed first, where they
    /// differ: the screen shows the choice made from the control that opened it (`remember`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub choice_by_opener: BTreeMap<String, String>,
}

impl ScreenModel {
    /// The widget with id `id`, wherever it is in the screen's tree.
    pub(crate) fn widget(&self, id: &str) -> Option<&Widget> {
        widgets::find_widget(&self.widgets, id)
    }

    /// The handler a tap (or long press) at the centre of `aimed` runs: that of the innermost
    /// widget inside it drawn there (a menu row's title takes the taps aimed at the row).
    pub(crate) fn handler_at_centre(aimed: &Widget, long_press: bool) -> Option<String> {
        let handler_of = |w: &Widget| if long_press { w.on_long_press.clone() } else { w.on_tap.clone() };
        let b = aimed.source_box;
        let centre = ((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0);
        let mut name = None;
        aimed.walk(&mut |w| {
            let c = w.source_box;
            if c[0] <= centre.0 && centre.0 <= c[2] && c[1] <= centre.1 && centre.1 <= c[3] {
                name = handler_of(w).or(name.take());
            }
        });
        name
    }

    /// Whether a tap on the widget of `h` runs `h` (not a handler of a widget drawn over it).
    pub(crate) fn runs_own_handler(&self, h: &Handler) -> bool {
        let mut runs = true;
        for w in &self.widgets {
            w.walk(&mut |w| {
                if w.id == h.widget {
                    runs = ScreenModel::handler_at_centre(w, h.long_press).is_none_or(|name| name == h.name);
                }
            });
        }
        runs
    }

    /// Whether the widget shows saved text (`remember::echoes`): it shows only once saved.
    pub(crate) fn shows_saved_text(&self, widget: &str) -> bool {
        let mut echo = false;
        for w in &self.widgets {
            w.walk(&mut |w| echo |= w.id == widget && w.echo.is_some());
        }
        echo
    }

    /// Its texts follow the item the opening row names (`shown_after` picks them).
    pub(crate) fn follows_items(&self) -> bool {
        self.shown.as_ref().is_some_and(|s| !s.items.is_empty())
    }

    /// Some of its texts follow its own checked controls (`select_shown` picks them).
    pub(crate) fn follows_checked(&self) -> bool {
        self.shown.as_ref().is_some_and(|s| s.selection.is_some())
    }
}

/// The whole generated app, and what replay needs to know about it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppModel {
    pub package: String,
    pub label: String,
    pub entry: String,
    /// Back on the entry screen stayed there in the traces: an empty first screen under it
    /// puts it back whenever Back reveals it.
    pub entry_guard: bool,
    /// The traces showed the app's data as it first was after every restart: each start of
    /// the app starts from it (`remember`).
    #[serde(default)]
    pub fresh_start: bool,
    /// The tabs of the entry screen (its id first) when the traces showed the app reopen on the
    /// tab it was left on; empty otherwise (`remember`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopens_tab: Vec<String>,
    pub screens: Vec<ScreenModel>,
    pub abstraction: Abstraction,
    /// The traces it was built from (`source` of each), in order.
    pub sources: Vec<String>,
    /// Edges between screens that the app does not reproduce with a handler, and why.
    pub unreproduced_edges: Vec<serde_json::Value>,
    /// What could not be used and was left out (a screenshot that does not decode), and how
    /// screenshots were read (the Tesseract version).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Pictures cut out of the screenshots: bundle path to PNG bytes (written with the app).
    #[serde(skip)]
    pub images: BTreeMap<String, Vec<u8>>,
}

/// The empty first screen of an app with an entry guard.
pub const GUARD_SCREEN: &str = "start";

/// Virtual ms after which a splash screen moves on.
pub const MOVE_ON_MS: u64 = 1500;

/// How a control of abstract screen `from` reaches `to` (where it led `count` times).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Way {
    /// To the launcher: the phone's home screen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub home: bool,
    /// Back, to the screen it came from.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pops: bool,
    /// A dialog closes and the target takes its place.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dismisses: bool,
}

/// What a form's submit control does with one of its fields (see [`echoes`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Save {
    /// The field's state key.
    pub key: String,
    /// The field is emptied after saving (it shows the screen's own value, `local.<key>`).
    pub clears: bool,
    /// Fields of the screen showing the saved text that showed their hint then (a new note
    /// opens blank): emptied by the save.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blanks: Vec<String>,
}

/// Radio buttons of one group: (widget id, state key), in screen order.
pub(crate) type RadioGroup = Vec<(String, String)>;

/// Where a control leads when its screen was opened by the handler `opener`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Route {
    pub opener: String,
    pub target: String,
    /// Times it led there after that opener.
    pub count: usize,
    pub way: Way,
}

/// Where a control leads when the box whose state is `key` is checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedRoute {
    pub key: String,
    pub target: String,
    /// Times it led there with the box checked.
    pub count: usize,
    pub way: Way,
}

/// A flat-coloured rectangle: `[x, y, width, height]` in app-area dp, and its colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    pub rect: [f64; 4],
    pub colour: [u8; 3],
}

/// The texts of a screen that changed with the row that opened it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Shown {
    /// Slots (`<widget id>` for a text, `<widget id>__desc` for a description) and what the
    /// screen's example shows in them.
    pub default: BTreeMap<String, String>,
    /// Per opening row (`<screen>__<widget id>`): every slot's text after tapping it.
    pub variants: BTreeMap<String, BTreeMap<String, String>>,
    /// Per item a tapped row named (a dish, a restaurant): every slot's text after it, wherever
    /// its row stood. A list whose rows follow the screen's own opener (a restaurant's dishes)
    /// shows in each place the item the app shows there now, not the one the traces saw.
    #[serde(default)]
    pub items: BTreeMap<String, BTreeMap<String, String>>,
    /// Per opening row: the item it named on every visit. Where the row names that item at
    /// the tap, the row's own texts are used (a call log row: that call, not any call of the
    /// same person).
    #[serde(default)]
    pub named: BTreeMap<String, String>,
    /// Per opening row (`<screen>__<widget id>`): the slots of that screen that name the row,
    /// each with the text generated there (used where the screen's shown texts lack the slot),
    /// in `labels` order. The generated Lua reads them as shown at the tap and looks the item
    /// up in `items`.
    #[serde(default)]
    pub rows: BTreeMap<String, Vec<(String, String)>>,
    /// What the screen shows for each set of its own checkable controls on (filter chips).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Selection>,
}

/// What a screen shows for each set of its checkable controls seen on.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Selection {
    /// The screen's checkable controls (widget ids).
    pub checkable: Vec<String>,
    /// Per control of a group of which every visit had exactly one on, two of them at least
    /// once each (category chips): the others of its group, which turning it on turns off.
    pub choices: BTreeMap<String, Vec<String>>,
    /// The slots that follow the controls (the others follow what opened the screen).
    pub slots: BTreeSet<String>,
    /// Each set of controls seen on, in order of first visit, with what most of its visits
    /// showed in `slots` (empty where they showed nothing: fewer results).
    pub states: Vec<(BTreeSet<String>, Texts)>,
}

/// Texts by slot, of a visit or of a selection.
pub(crate) type Texts = BTreeMap<String, String>;
