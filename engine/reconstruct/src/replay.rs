//! Fidelity: replay a trace's actions on the generated app and check, step by step, that
//! the app lands on the abstract screen the trace shows next, and how alike the screens are.
//! A "nothing ever changes" baseline is scored the same way, so self-loops cannot flatter.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use phoneworld_data::{Action, Key, UiElement};
use phoneworld_phone::{Catalog, Device, DeviceConfig};
use serde::Serialize;

use crate::abstraction::{is_system_chrome, Role};
use crate::error::ReconError;
use crate::generate::widgets::{best_match, Mapper};
use crate::generate::{iou, AppModel};
use crate::memory::{self, Holds, Memory};
use crate::trace::{Screen, ScreenKind, Trace, TraceAction, TraceStep, UiNode};
use crate::trace_stack::TraceStack;
use crate::visual::{ssim, Rgb, COMPARE_SIZE};

const LAUNCHER: &str = "com.phoneworld.launcher";

/// Which abstract screen something is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Screen(usize),
    Launcher,
    /// A trace screen no abstract screen matches (dropped or never seen).
    Unknown(String),
    /// Where the phone went that is not the app: `package/screen`.
    Outside(String),
}

/// One replayed step.
#[derive(Debug, Clone, Serialize)]
pub struct StepDetail {
    pub step: usize,
    pub action: String,
    /// How the action was replayed: `widget`, `point`, `launcher_icon`, `key`, `none`.
    pub mode: String,
    pub from: String,
    pub expected: Option<String>,
    pub landed: String,
    pub ok: Option<bool>,
    pub baseline_ok: Option<bool>,
    /// The phone was put back on the trace's screen before this step.
    pub resynced: bool,
    /// Share of the next screen's elements found on the phone (text, description or id).
    pub similarity: Option<f64>,
    pub elements_matched: usize,
    pub elements_total: usize,
    /// The first few elements of the next screen not found on the phone (text or description).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// On a revisit: what the person checked or typed that shows differently than on the
    /// screen's earlier visit (`key=value`), and whether the phone showed all of it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remembered: Option<bool>,
}

/// The visual similarity of one screen.
#[derive(Debug, Clone, Serialize)]
pub struct VisualScore {
    pub screen: String,
    pub ssim: f64,
}

/// The baseline: an app in which nothing ever changes.
#[derive(Debug, Clone, Serialize)]
pub struct Baseline {
    pub succeeded: usize,
    pub transition_accuracy: f64,
    pub screen_coverage: f64,
}

/// The fidelity report of one trace.
#[derive(Debug, Clone, Serialize)]
pub struct FidelityReport {
    pub trace: String,
    pub format: String,
    pub app: String,
    pub steps: usize,
    /// Steps whose next screen the trace gives (the others cannot be judged).
    pub judged: usize,
    pub succeeded: usize,
    pub transition_accuracy: f64,
    pub screen_coverage: f64,
    pub screens_in_trace: usize,
    pub screens_reached: usize,
    pub element_recall: f64,
    pub elements_matched: usize,
    pub elements_total: usize,
    /// Among matched elements: share with the same kind of widget, and mean box overlap.
    pub class_agreement: f64,
    pub bounds_iou: f64,
    pub visual_similarity: Option<f64>,
    pub visual: Vec<VisualScore>,
    /// Revisits where what the person checked or typed shows differently, and how many of
    /// them the rebuilt app reproduces (`memory`).
    pub memory: Memory,
    pub baseline: Baseline,
    pub resyncs: usize,
    pub script_errors: usize,
    pub failures: BTreeMap<String, usize>,
    /// Screenshots that could not be compared (the file, and why).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub per_step: Vec<StepDetail>,
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

pub(crate) fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        round4(a as f64 / b as f64)
    }
}

struct Replayer<'a> {
    model: &'a AppModel,
    device: Device,
    trace_index: usize,
    /// The abstract screen of each trace screen seen (`label_of`); one trace per replayer.
    labels: std::cell::RefCell<BTreeMap<String, Label>>,
    /// The phone's tree by screen hash (`phone_tree`).
    trees: BTreeMap<u64, Option<std::rc::Rc<UiNode>>>,
    /// Comparisons by trace screen and screen hash (`compare_with`).
    comparisons: BTreeMap<(String, u64), Comparison>,
    /// The generated widget matching a step's target, by abstract screen and target
    /// (`widget_point`): a trace taps the same few controls again and again.
    matched: BTreeMap<(usize, TargetKey), Option<Matched>>,
}

/// The generated widget a step's target stands for.
#[derive(Clone)]
struct Matched {
    id: String,
    /// Only scrolling shows it.
    below_the_fold: bool,
}

/// What `best_match` reads of a target node, and the size of the screen it is on.
type TargetKey = (String, String, String, String, [i32; 4], bool, (u32, u32));

/// Most entries a replay cache keeps: a trace shows tens of screens, its app a few states each.
const REPLAY_CACHE: usize = 256;

/// Most targets `widget_point` keeps: tens of screens with tens of controls each.
const TARGET_CACHE: usize = 4096;

/// Keeps a derived value, forgetting all once the cache is full (memory stays bounded).
fn remember<K: Ord, V>(cache: &mut BTreeMap<K, V>, key: K, value: V) {
    remember_up_to(REPLAY_CACHE, cache, key, value);
}

fn remember_up_to<K: Ord, V>(most: usize, cache: &mut BTreeMap<K, V>, key: K, value: V) {
    if cache.len() >= most {
        cache.clear();
    }
    cache.insert(key, value);
}

impl Replayer<'_> {
    /// The abstract screen of a trace screen (classified once per screen id).
    fn label_of(&self, trace: &Trace, id: &str) -> Label {
        if let Some(label) = self.labels.borrow().get(id) {
            return label.clone();
        }
        let label = self.classify(trace, id);
        self.labels.borrow_mut().insert(id.to_owned(), label.clone());
        label
    }

    fn classify(&self, trace: &Trace, id: &str) -> Label {
        let Some(screen) = trace.screens.get(id) else { return Label::Unknown(id.to_owned()) };
        match self.model.abstraction.classify_nearest(self.trace_index, screen) {
            Some(i) if self.model.abstraction.screens[i].role == Role::Launcher => Label::Launcher,
            Some(i) if self.model.screen(&self.model.abstraction.screens[i].id).is_some() => Label::Screen(i),
            _ => Label::Unknown(id.to_owned()),
        }
    }

    fn name(&self, label: &Label) -> String {
        match label {
            Label::Screen(i) => self.model.abstraction.screens[*i].id.clone(),
            Label::Launcher => "launcher".into(),
            Label::Unknown(id) => format!("unknown:{id}"),
            Label::Outside(s) => format!("outside:{s}"),
        }
    }

    fn observe(&self) -> Label {
        let (pkg, screen) = self.device.foreground();
        if pkg == LAUNCHER && screen == "home" {
            return Label::Launcher;
        }
        if pkg == self.model.package {
            if let Some(i) = self.model.abstraction.index_of(&screen) {
                return Label::Screen(i);
            }
        }
        Label::Outside(format!("{pkg}/{screen}"))
    }

    /// Whether going from `from` (a dialog) to screen `to` closes the dialog, as the rebuilt
    /// app does it: its controls leading there say (`dismisses`, or going back); without one,
    /// the app's own screens take a dialog's place and another app's open over it.
    fn dismisses(&self, from: &Label, to: usize) -> bool {
        let target = &self.model.abstraction.screens[to];
        let handlers = match from {
            Label::Screen(i) => {
                self.model.screen(&self.model.abstraction.screens[*i].id).map(|s| s.handlers.as_slice()).unwrap_or_default()
            }
            _ => &[],
        };
        let mut leading = handlers.iter().filter(|h| h.target == target.id).peekable();
        match leading.peek() {
            Some(_) => leading.any(|h| h.dismisses || h.pops),
            None => target.role == Role::App,
        }
    }

    /// Whether the label is a screen that goes on the trace's back stack: one the trace saw
    /// (not one it knows only by a hash, nor an empty hierarchy), the app's or another app's it
    /// opened.
    fn stacks(&self, label: &Label) -> bool {
        matches!(label, Label::Screen(i) if {
            let s = &self.model.abstraction.screens[*i];
            s.role != Role::Launcher && !matches!(s.kind, ScreenKind::HashOnly | ScreenKind::Empty)
        })
    }

    /// Puts the phone on a screen, with the screens the trace had beneath it (`stack`); false
    /// when that is not possible.
    fn put_on(&mut self, label: &Label, stack: &TraceStack) -> bool {
        match label {
            Label::Screen(i) => {
                // A fresh start of the app, then the screens down to this one: its stack is
                // [entry, ..., screen], so Back from it goes where it went in the trace.
                let package = self.model.package.clone();
                self.device.step(&Action::CloseApp { app: package.clone() });
                let mut opened = false;
                for s in stack.path_to(*i) {
                    let id = self.model.abstraction.screens[s].id.clone();
                    opened = self.device.open_screen(&package, &id, serde_json::json!({})).is_ok();
                }
                opened
            }
            Label::Launcher => {
                self.device.step(&Action::Key { key: Key::Home });
                true
            }
            _ => false,
        }
    }

    /// The center of the generated widget matching the step's target on the current screen.
    fn widget_point(&mut self, screen: &Screen, target: &UiNode) -> Option<(f64, f64)> {
        let Label::Screen(i) = self.observe() else { return None };
        let model_screen = self.model.screen(&self.model.abstraction.screens[i].id)?;
        let key = (
            i,
            (
                target.class.clone(),
                target.resource_id.clone(),
                target.text.clone(),
                target.content_desc.clone(),
                target.bounds,
                target.editable,
                (screen.width, screen.height),
            ),
        );
        let Matched { id, below_the_fold } = match self.matched.get(&key) {
            Some(found) => found.clone(),
            None => {
                let m = Mapper { width: f64::from(screen.width.max(1)), height: f64::from(screen.height.max(1)) };
                let found = best_match(&model_screen.widgets, target, &m, &|_| true)
                    .map(|w| Matched { id: w.id.clone(), below_the_fold: w.below_the_fold() });
                remember_up_to(TARGET_CACHE, &mut self.matched, key, found.clone());
                found
            }
        }?;
        // The whole tree, not the element list: a button's own node is not a leaf.
        let suffix = format!(":id/{id}");
        let package = self.model.package.clone();
        let is_it = |n: &UiNode| n.resource_id.ends_with(&suffix) && n.resource_id.starts_with(&package);
        let find = |tree: &UiNode| tap_box(tree, &is_it);
        let mut b = self.phone_tree().as_deref().and_then(find);
        // Not on screen: perhaps under the keyboard.
        if b.is_none() && self.keyboard_out_of_the_way(None) {
            b = self.phone_tree().as_deref().and_then(find);
        }
        // Below the fold: the real screen showed it (behind its navigation bar, or on a
        // taller screen); the rebuilt one scrolls to it.
        let mut swipes = 0;
        while b.is_none() && below_the_fold && swipes < MAX_SCROLLS_TO_TARGET {
            let Some(area) = self.phone_tree().as_deref().and_then(largest_scrollable) else { break };
            let (x, h) = (f64::from(area[0] + area[2]) / 2.0, f64::from(area[3] - area[1]));
            let (from, to) = (f64::from(area[1]) + 0.7 * h, f64::from(area[1]) + 0.3 * h);
            self.device.step(&Action::Swipe { x1: x, y1: from, x2: x, y2: to, ms: 300 });
            b = self.phone_tree().as_deref().and_then(find);
            swipes += 1;
        }
        let b = b?;
        Some((f64::from(b[0] + b[2]) / 2.0, f64::from(b[1] + b[3]) / 2.0))
    }

    /// The phone's whole tree (the element list leaves out containers such as the keyboard),
    /// read once per screen the phone shows.
    fn phone_tree(&mut self) -> Option<std::rc::Rc<UiNode>> {
        let hash = self.device.screen_hash();
        if let Some(tree) = self.trees.get(&hash) {
            return tree.clone();
        }
        let xml = self.device.ui_xml();
        let tree = crate::import::hierarchy::read_uiautomator_xml(Path::new("(phone)"), &xml).ok().map(std::rc::Rc::new);
        remember(&mut self.trees, hash, tree.clone());
        tree
    }

    /// How many of a trace screen's elements the phone shows now (see `compare`), worked out
    /// once per trace screen and phone screen.
    fn compare_with(&mut self, screen: &Screen) -> Comparison {
        let key = (screen.id.clone(), self.device.screen_hash());
        if let Some(c) = self.comparisons.get(&key) {
            return c.clone();
        }
        let c = compare(screen, &self.device.ui_elements());
        remember(&mut self.comparisons, key, c.clone());
        c
    }

    /// Hides the keyboard when it covers the point or the target: real apps resize above
    /// the keyboard, which traces do not record.
    fn keyboard_out_of_the_way(&mut self, p: Option<(f64, f64)>) -> bool {
        let Some(tree) = self.phone_tree() else { return false };
        let mut keyboard: Option<[i32; 4]> = None;
        tree.walk(&mut Vec::new(), &mut |_, n| {
            if keyboard.is_none() && crate::abstraction::is_keyboard(n) {
                keyboard = Some(n.bounds);
            }
        });
        let Some(k) = keyboard else { return false };
        let covered = p.is_none_or(|(x, y)| x >= f64::from(k[0]) && x < f64::from(k[2]) && y >= f64::from(k[1]) && y < f64::from(k[3]));
        if covered {
            self.device.step(&Action::Key { key: Key::Back });
        }
        covered
    }

    /// The phone actions for a trace step, and how they were chosen.
    fn translate(&mut self, trace: &Trace, step: &TraceStep, from: &Label, expected: Option<&Label>) -> (Vec<Action>, &'static str) {
        let unknown;
        let screen = match trace.screens.get(&step.screen) {
            Some(s) => s,
            None => {
                unknown = Screen::hash_only(&step.screen, 1080, 2400);
                &unknown
            }
        };
        let (sx, sy) = (1080.0 / f64::from(screen.width.max(1)), 2400.0 / f64::from(screen.height.max(1)));
        let point = |x: f64, y: f64| ((x * sx).clamp(0.0, 1079.0), (y * sy).clamp(0.0, 2399.0));
        match &step.action {
            TraceAction::Tap { x, y } | TraceAction::LongPress { x, y } => {
                let long = matches!(step.action, TraceAction::LongPress { .. });
                if *from == Label::Launcher {
                    let names_app = step.target.as_ref().is_some_and(|t| {
                        let label = self.model.label.to_lowercase();
                        t.node.text.to_lowercase() == label || t.node.content_desc.to_lowercase() == label
                    });
                    if names_app || matches!(expected, Some(Label::Screen(_))) {
                        return (vec![Action::OpenApp { app: self.model.package.clone() }], "launcher_icon");
                    }
                }
                let (p, mode) = match step.target.as_ref().and_then(|t| self.widget_point(screen, &t.node)) {
                    Some(p) => (p, "widget"),
                    // A touch off the screen (a view scrolled out of it) reaches nothing, as on
                    // the phone: moved onto the edge it would press what is there.
                    None if !on_screen(screen, *x, *y) => return (Vec::new(), "none"),
                    None => (point(*x, *y), "point"),
                };
                let action = if long { Action::LongPress { x: p.0, y: p.1, ms: 800 } } else { Action::Tap { x: p.0, y: p.1 } };
                self.keyboard_out_of_the_way(Some(p));
                (vec![action], mode)
            }
            TraceAction::Swipe { x1, y1, x2, y2 } => {
                let (a, b) = (point(*x1, *y1), point(*x2, *y2));
                (vec![Action::Swipe { x1: a.0, y1: a.1, x2: b.0, y2: b.1, ms: 300 }], "point")
            }
            TraceAction::TypeText { text } => {
                let mut actions = Vec::new();
                let mut mode = "point";
                if let Some(p) = step.target.as_ref().and_then(|t| self.widget_point(screen, &t.node)) {
                    actions.push(Action::Tap { x: p.0, y: p.1 });
                    mode = "widget";
                }
                actions.push(Action::TypeText { text: text.clone(), clear: !actions.is_empty() });
                (actions, mode)
            }
            TraceAction::Key { key } => {
                let key = match key.as_str() {
                    "back" => Key::Back,
                    "home" => Key::Home,
                    "enter" => Key::Enter,
                    "recents" => Key::Recents,
                    "delete" => Key::Delete,
                    "menu" => Key::Menu,
                    _ => return (Vec::new(), "none"),
                };
                (vec![Action::Key { key }], "key")
            }
            TraceAction::OpenApp { app } if *app == self.model.package || app.eq_ignore_ascii_case(&self.model.label) => {
                (vec![Action::OpenApp { app: self.model.package.clone() }], "launcher_icon")
            }
            TraceAction::CloseApp { app } if *app == self.model.package => (vec![Action::CloseApp { app: app.clone() }], "key"),
            TraceAction::OpenApp { .. } | TraceAction::CloseApp { .. } => (Vec::new(), "none"),
            TraceAction::Wait => (vec![Action::Wait { ms: 1000 }], "key"),
        }
    }
}

/// The box to tap for the first node `is_it` finds: the innermost node it finds inside that
/// one, as a widget's wrapper carries its id too (a field's box is a column around the
/// input, and a tap at the column's centre may miss the input).
fn tap_box(tree: &UiNode, is_it: &dyn Fn(&UiNode) -> bool) -> Option<[i32; 4]> {
    let mut found: Option<&UiNode> = None;
    tree.walk(&mut Vec::new(), &mut |_, n| {
        if found.is_none() && is_it(n) {
            found = Some(n);
        }
    });
    let mut node = found?;
    while let Some(inner) = node.children.iter().find(|c| is_it(c)) {
        node = inner;
    }
    Some(node.bounds)
}

/// The most swipes the replay takes to bring a target below the fold into view.
const MAX_SCROLLS_TO_TARGET: usize = 4;

/// The box of the largest scrollable node of a tree.
fn largest_scrollable(tree: &UiNode) -> Option<[i32; 4]> {
    let mut best: Option<[i32; 4]> = None;
    let area = |b: [i32; 4]| i64::from(b[2] - b[0]) * i64::from(b[3] - b[1]);
    tree.walk(&mut Vec::new(), &mut |_, n| {
        if n.scrollable && n.height() > 0 && best.is_none_or(|b| area(n.bounds) > area(b)) {
            best = Some(n.bounds);
        }
    });
    best
}

/// Coarse widget families, so `AppCompatTextView` and `TextView` agree.
fn family(class: &str) -> &'static str {
    let c = class.rsplit('.').next().unwrap_or(class);
    if c.contains("EditText") || c.contains("TextField") {
        "edit"
    } else if c.contains("Button") && !c.contains("Image") {
        "button"
    } else if c.contains("Switch") || c.contains("Check") || c.contains("Toggle") || c.contains("Radio") {
        "check"
    } else if c.contains("Text") {
        "text"
    } else if c.contains("Image") {
        "image"
    } else {
        "group"
    }
}

fn norm(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The elements of a trace screen that a person would notice: text, descriptions, controls.
fn significant(screen: &Screen) -> Vec<UiNode> {
    let mut out = Vec::new();
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, n| {
            let inside =
                n.visible && n.width() > 0 && n.height() > 0 && n.bounds[0] < screen.width as i32 && n.bounds[1] < screen.height as i32;
            let speaks = !n.text.trim().is_empty() || !n.content_desc.trim().is_empty() || (n.clickable && n.children.is_empty());
            // What was read off the screenshot is the rebuild's doing, not the trace's element.
            let seen = n.package == crate::see::SEEN_PACKAGE;
            if inside && speaks && !seen && !is_system_chrome(n) {
                out.push(n.shallow());
            }
        });
    }
    out
}

/// How much a wordless control and the phone's element in its place must overlap (IoU).
const WORDLESS_IOU: f64 = 0.5;

/// How many of the missing elements a step lists.
const MISSING_LISTED: usize = 8;

/// How a trace screen's elements were found on the phone.
#[derive(Clone)]
struct Comparison {
    matched: usize,
    total: usize,
    /// Matched elements of the same widget family.
    agree: usize,
    iou_sum: f64,
    missing: Vec<String>,
}

/// A phone element with its text, description and id as `compare` matches them.
type Words<'e> = (&'e UiElement, Option<String>, Option<String>, Option<String>);

/// How many of a trace screen's elements are on the phone, and how alike they are.
fn compare(screen: &Screen, elements: &[UiElement]) -> Comparison {
    let source = significant(screen);
    let (w, h) = (f64::from(screen.width.max(1)), f64::from(screen.height.max(1)));
    let (mut matched, mut agree, mut iou_sum) = (0, 0, 0.0);
    let mut missing = Vec::new();
    let short_id = |id: &str| crate::abstraction::snake(id.rsplit('/').next().unwrap_or(id));
    // Each element's words once, not once per trace node.
    let phone: Vec<Words<'_>> = elements
        .iter()
        .filter(|e| e.package_name.as_deref() != Some("com.android.systemui"))
        .map(|e| (e, e.text.as_deref().map(norm), e.content_description.as_deref().map(norm), e.resource_id.as_deref().map(short_id)))
        .collect();
    for n in &source {
        let nb = [f64::from(n.bounds[0]) / w, f64::from(n.bounds[1]) / h, f64::from(n.bounds[2]) / w, f64::from(n.bounds[3]) / h];
        let (text, desc, id) = (norm(&n.text), norm(&n.content_desc), short_id(&n.resource_id));
        // A control with no words and no id (an ad's clickable view, a game surface) is known
        // only by its place: a clickable element over most of it.
        let wordless = text.is_empty() && desc.is_empty() && n.resource_id.is_empty();
        let mut best: Option<(f64, &UiElement)> = None;
        for (e, e_text, e_desc, e_id) in &phone {
            let eb = e.bbox.map(|b| [b.x_min, b.y_min, b.x_max, b.y_max]).unwrap_or([0.0; 4]);
            let overlap = iou(nb, eb);
            let text_eq = !text.is_empty() && e_text.as_deref() == Some(text.as_str());
            let desc_eq = !desc.is_empty() && [e_desc, e_text].into_iter().flatten().any(|t| *t == desc);
            let id_eq = !n.resource_id.is_empty() && e_id.as_deref() == Some(id.as_str());
            let place_eq = wordless && e.is_clickable == Some(true) && overlap >= WORDLESS_IOU;
            if !(text_eq || desc_eq || id_eq || place_eq) {
                continue;
            }
            if best.is_none_or(|(o, _)| overlap > o) {
                best = Some((overlap, e));
            }
        }
        if let Some((overlap, e)) = best {
            matched += 1;
            iou_sum += overlap;
            if family(e.class_name.as_deref().unwrap_or("")) == family(&n.class) {
                agree += 1;
            }
        } else if missing.len() < MISSING_LISTED {
            let label = [&n.text, &n.content_desc, &n.resource_id].into_iter().find(|t| !t.trim().is_empty());
            missing.push(label.map_or_else(|| n.short_class().to_owned(), |t| t.trim().to_owned()));
        }
    }
    Comparison { matched, total: source.len(), agree, iou_sum, missing }
}

/// Replays one trace on the generated app in `app_dir`.
pub fn replay(app_dir: &Path, trace: &Trace, visual: bool) -> Result<FidelityReport, ReconError> {
    let model = AppModel::load(app_dir)?;
    let catalog = Catalog::load_default(&[app_dir.to_path_buf()]).map_err(|e| ReconError::Input(format!("{}: {e}", app_dir.display())))?;
    if let Some((dir, err)) = catalog.broken.iter().find(|(d, _)| d.starts_with(app_dir)) {
        return Err(ReconError::Input(format!("{}: the generated app does not load: {err}", dir.display())));
    }
    replay_with(&model, catalog, trace, visual)
}

/// Replays one trace with an already loaded model and catalog.
pub fn replay_with(model: &AppModel, catalog: Arc<Catalog>, trace: &Trace, visual: bool) -> Result<FidelityReport, ReconError> {
    replay_writing_frames(model, catalog, trace, visual, None)
}

/// Like [`replay_with`]; with `frames`, writes into that folder, for every judged step whose
/// next screen has a screenshot, the screenshot (`step_NNNN.original.png`) and the phone's
/// frame after the replayed step (`step_NNNN.rebuilt.png`) at the frame's size, and for every
/// screen scored for visual similarity the pair it was scored on (`screen_<id>.*.png`).
pub fn replay_writing_frames(
    model: &AppModel,
    catalog: Arc<Catalog>,
    trace: &Trace,
    visual: bool,
    frames: Option<&Path>,
) -> Result<FidelityReport, ReconError> {
    replay_to_end(model, catalog, trace, visual, frames).map(|(report, _)| report)
}

/// Replays a trace and hands back the phone as the last step left it (to check a task's
/// verifier on what the replayed demonstration did).
pub fn replay_to_end(
    model: &AppModel,
    catalog: Arc<Catalog>,
    trace: &Trace,
    visual: bool,
    frames: Option<&Path>,
) -> Result<(FidelityReport, Device), ReconError> {
    if let Some(dir) = frames {
        std::fs::create_dir_all(dir).map_err(|e| ReconError::io(dir, e))?;
    }
    let mut shots = ShotCache::default();
    let mut device = Device::new(Arc::clone(&catalog), DeviceConfig::default()).map_err(|e| ReconError::Input(e.to_string()))?;
    // A trace goes through every screen of the app many times over.
    device.keep_layouts(REPLAY_CACHE);
    let trace_index = model.sources.iter().position(|s| *s == trace.source).unwrap_or(usize::MAX);
    let mut r = Replayer {
        model,
        device,
        trace_index,
        labels: Default::default(),
        trees: BTreeMap::new(),
        comparisons: BTreeMap::new(),
        matched: BTreeMap::new(),
    };
    let mut per_step = Vec::new();
    let mut failures: BTreeMap<String, usize> = BTreeMap::new();
    let (mut judged, mut succeeded, mut baseline_ok_count, mut resyncs, mut script_errors) = (0, 0, 0, 0, 0);
    let (mut matched_total, mut elements_total, mut agree_total, mut iou_total) = (0, 0, 0, 0.0);
    let mut trace_screens: BTreeSet<Label> = BTreeSet::new();
    let mut reached: BTreeSet<Label> = BTreeSet::new();
    let mut memory = Memory::default();
    // What each abstract screen held when the trace last entered it and on its latest visit,
    // and what was typed so far.
    let mut held: BTreeMap<Label, (Holds, Holds)> = BTreeMap::new();
    let mut typed: BTreeSet<String> = BTreeSet::new();
    let first = trace.steps.first().map(|s| r.label_of(trace, &s.screen));
    if let (Some(first), Some(screen)) = (&first, trace.steps.first().and_then(|s| trace.screens.get(&s.screen))) {
        let holds = memory::holds(screen, &typed);
        held.insert(first.clone(), (holds.clone(), holds));
    }
    // The app's back stack as the trace had it, for putting the phone back on a screen.
    let mut stack = TraceStack::default();
    if let Some(Label::Screen(i)) = first.as_ref().filter(|l| r.stacks(l)) {
        stack.enter(*i, model.abstraction.screens[*i].kind == ScreenKind::Dialog, true);
    }
    if let Some(first) = &first {
        if r.put_on(first, &stack) {
            reached.insert(first.clone());
        }
    }
    for (k, step) in trace.steps.iter().enumerate() {
        let from = r.label_of(trace, &step.screen);
        let expected = step.next.as_ref().map(|n| r.label_of(trace, n));
        trace_screens.insert(from.clone());
        if let Some(e) = &expected {
            trace_screens.insert(e.clone());
        }
        let mut resynced = false;
        if r.observe() != from {
            // The trace went on from another screen: first let time pass, as it did there
            // (a splash moves on); only then put the phone on the trace's screen.
            r.device.step(&Action::Wait { ms: 2 * crate::generate::MOVE_ON_MS });
            if r.observe() != from && r.put_on(&from, &stack) {
                resynced = true;
                resyncs += 1;
            }
        }
        let (actions, mode) = r.translate(trace, step, &from, expected.as_ref());
        for a in &actions {
            let result = r.device.step(a);
            script_errors += result.script_errors.len();
        }
        if let TraceAction::TypeText { text } = &step.action {
            typed.extend(memory::worth_looking_for(text));
        }
        let back = matches!(&step.action, TraceAction::Key { key } if key == "back");
        let closed = matches!(&step.action, TraceAction::CloseApp { app } if *app == r.model.package);
        match &expected {
            // Back out of the app's last screen, or the app closed: it starts afresh.
            Some(Label::Launcher) if back => stack.clear(),
            _ if closed => stack.clear(),
            // A screen the trace knows only by a hash is a guess of what it was: not on the stack.
            Some(next @ Label::Screen(i)) if r.stacks(next) => {
                let dialog = r.model.abstraction.screens[*i].kind == ScreenKind::Dialog;
                if back {
                    stack.back_to(*i, dialog);
                } else {
                    stack.enter(*i, dialog, r.dismisses(&from, *i));
                }
            }
            _ => {}
        }
        let landed = r.observe();
        if matches!(landed, Label::Screen(_) | Label::Launcher) {
            reached.insert(landed.clone());
        }
        let mut detail = StepDetail {
            step: k,
            action: crate::graph::action_label(&step.action),
            mode: mode.to_owned(),
            from: r.name(&from),
            expected: expected.as_ref().map(|e| r.name(e)),
            landed: r.name(&landed),
            ok: None,
            baseline_ok: None,
            resynced,
            similarity: None,
            elements_matched: 0,
            elements_total: 0,
            missing: Vec::new(),
            reason: None,
            changed: Vec::new(),
            remembered: None,
        };
        if let Some(expected) = &expected {
            judged += 1;
            let known = |l: &Label| matches!(l, Label::Screen(_) | Label::Launcher);
            let ok = known(expected) && *expected == landed;
            let baseline = known(expected) && *expected == from;
            succeeded += usize::from(ok);
            baseline_ok_count += usize::from(baseline);
            detail.ok = Some(ok);
            detail.baseline_ok = Some(baseline);
            if !ok {
                let reason = if !known(expected) {
                    "the trace's next screen is not in the app (dropped or unmatched)"
                } else if actions.is_empty() {
                    "the action cannot be replayed on the app"
                } else {
                    "landed on another screen"
                };
                *failures.entry(reason.to_owned()).or_default() += 1;
                detail.reason = Some(reason.to_owned());
            }
            if let Some(next) = step.next.as_ref().and_then(|n| trace.screens.get(n)).filter(|s| s.root.is_some()) {
                if let Label::Screen(_) = expected {
                    let now = memory::holds(next, &typed);
                    // A revisit: the trace left the screen and came back.
                    let entered = *expected != from;
                    if let Some((at_entry, latest)) = held.get(expected).filter(|_| entered) {
                        let changes = memory::changed(&[at_entry, latest], &now);
                        if !changes.is_empty() {
                            let remembered = landed == *expected && memory::phone_shows(&changes, &r.device.ui_elements());
                            memory.count(remembered);
                            detail.changed = changes.iter().map(|(key, fact)| format!("{key}={}", fact.value)).collect();
                            detail.remembered = Some(remembered);
                        }
                    }
                    match held.get_mut(expected) {
                        Some((_, latest)) if !entered => *latest = now,
                        _ => {
                            held.insert(expected.clone(), (now.clone(), now));
                        }
                    }
                }
                // The home screen is the phone's own, not the app's: its icons are not judged.
                if *expected != Label::Launcher {
                    let c = r.compare_with(next);
                    matched_total += c.matched;
                    elements_total += c.total;
                    agree_total += c.agree;
                    iou_total += c.iou_sum;
                    detail.elements_matched = c.matched;
                    detail.elements_total = c.total;
                    detail.similarity = (c.total > 0).then(|| ratio(c.matched, c.total));
                    detail.missing = c.missing;
                }
            }
            if let (Some(dir), Some(next)) = (frames, step.next.as_ref().and_then(|n| trace.screens.get(n))) {
                if let Some((original, rebuilt)) = shots.pair(trace, next, &mut r.device) {
                    original.write_png(&dir.join(format!("step_{k:04}.original.png")))?;
                    rebuilt.write_png(&dir.join(format!("step_{k:04}.rebuilt.png")))?;
                }
            }
        }
        per_step.push(detail);
    }
    let (visual_scores, warnings) = if visual { visual_scores(&r, catalog, trace, frames)? } else { Default::default() };
    let visual_similarity =
        (!visual_scores.is_empty()).then(|| round4(visual_scores.iter().map(|v| v.ssim).sum::<f64>() / visual_scores.len() as f64));
    let baseline_cover = usize::from(first.as_ref().is_some_and(|f| matches!(f, Label::Screen(_) | Label::Launcher)));
    let report = FidelityReport {
        trace: trace.source.clone(),
        format: trace.source_format.clone(),
        app: model.package.clone(),
        steps: trace.steps.len(),
        judged,
        succeeded,
        transition_accuracy: ratio(succeeded, judged),
        screen_coverage: ratio(reached.intersection(&trace_screens).count(), trace_screens.len()),
        screens_in_trace: trace_screens.len(),
        screens_reached: reached.intersection(&trace_screens).count(),
        element_recall: ratio(matched_total, elements_total),
        elements_matched: matched_total,
        elements_total,
        class_agreement: ratio(agree_total, matched_total),
        bounds_iou: if matched_total == 0 { 0.0 } else { round4(iou_total / matched_total as f64) },
        visual_similarity,
        visual: visual_scores,
        memory,
        baseline: Baseline {
            succeeded: baseline_ok_count,
            transition_accuracy: ratio(baseline_ok_count, judged),
            screen_coverage: ratio(baseline_cover, trace_screens.len()),
        },
        resyncs,
        script_errors,
        failures,
        warnings,
        per_step,
    };
    Ok((report, r.device))
}

/// Screenshots a replay has loaded, by file (a trace shows the same screens again and again).
#[derive(Default)]
struct ShotCache {
    loaded: BTreeMap<String, Option<Rgb>>,
}

impl ShotCache {
    /// The screen's screenshot, if it has one that loads.
    fn get(&mut self, trace: &Trace, screen: &Screen) -> Option<Result<&Rgb, String>> {
        let rel = screen.screenshot.as_ref()?;
        let mut error = None;
        let shot = self.loaded.entry(rel.clone()).or_insert_with(|| {
            Rgb::load(&Path::new(&trace.base_dir).join(rel)).map_err(|e| error = Some(format!("{e}; the screenshot is left out"))).ok()
        });
        match (shot.as_ref(), error) {
            (_, Some(e)) => Some(Err(e)),
            (Some(shot), None) => Some(Ok(shot)),
            (None, None) => None,
        }
    }

    /// The screenshot, cut to the screen's aspect and scaled to the phone's frame, beside the
    /// frame: the pair the visual similarity compares.
    fn pair(&mut self, trace: &Trace, screen: &Screen, device: &mut Device) -> Option<(Rgb, Rgb)> {
        let shot = self.get(trace, screen)?.ok()?;
        let frame = device.frame();
        let rendered = Rgb::from_rgba(frame.width, frame.height, &frame.pixels);
        Some((shot.resized(shot.width, screen_rows(shot, screen), rendered.width, rendered.height), rendered))
    }
}

/// Whether a point (the screen's pixels) is on the screen.
fn on_screen(screen: &Screen, x: f64, y: f64) -> bool {
    (0.0..f64::from(screen.width.max(1))).contains(&x) && (0.0..f64::from(screen.height.max(1))).contains(&y)
}

/// The rows of a screenshot that show the screen.
fn screen_rows(shot: &Rgb, screen: &Screen) -> u32 {
    crate::visual::rows_showing(shot, screen.width, screen.height)
}

/// SSIM between each generated screen and the trace's first screenshot of it, and the
/// screenshots that could not be read; with `frames`, the compared pairs are written there.
fn visual_scores(
    r: &Replayer<'_>,
    catalog: Arc<Catalog>,
    trace: &Trace,
    frames: Option<&Path>,
) -> Result<(Vec<VisualScore>, Vec<String>), ReconError> {
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut shots = ShotCache::default();
    let (cw, ch) = COMPARE_SIZE;
    for step in &trace.steps {
        for id in std::iter::once(&step.screen).chain(step.next.as_ref()) {
            let Label::Screen(i) = r.label_of(trace, id) else { continue };
            let Some(screen) = trace.screens.get(id) else { continue };
            if screen.screenshot.is_none() || !done.insert(i) {
                continue;
            }
            let shot = match shots.get(trace, screen) {
                Some(Ok(shot)) => shot,
                Some(Err(e)) => {
                    warnings.push(e);
                    continue;
                }
                None => continue,
            };
            let Ok(mut device) = Device::new(Arc::clone(&catalog), DeviceConfig::default()) else { continue };
            let screen_id = r.model.abstraction.screens[i].id.clone();
            if device.open_screen(&r.model.package, &screen_id, serde_json::json!({})).is_err() {
                continue;
            }
            let a = shot.gray(shot.width, screen_rows(shot, screen), cw, ch);
            let frame = device.frame();
            let rendered = Rgb::from_rgba(frame.width, frame.height, &frame.pixels);
            let b = rendered.gray(rendered.width, rendered.height, cw, ch);
            out.push(VisualScore { screen: screen_id.clone(), ssim: round4(ssim(&a, &b, cw, ch)) });
            if let Some(dir) = frames {
                let original = shot.resized(shot.width, screen_rows(shot, screen), rendered.width, rendered.height);
                original.write_png(&dir.join(format!("screen_{screen_id}.original.png")))?;
                rendered.write_png(&dir.join(format!("screen_{screen_id}.rebuilt.png")))?;
            }
        }
    }
    Ok((out, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tap_on_a_field_goes_to_the_input_not_the_column_around_it() {
        let node = |class: &str, bounds: [i32; 4], children: Vec<UiNode>| UiNode {
            resource_id: "app:id/note_text".into(),
            children,
            ..UiNode::new(class, bounds)
        };
        let input = node("android.widget.EditText", [0, 458, 1079, 605], Vec::new());
        let column = node("android.widget.LinearLayout", [0, 458, 1079, 2261], vec![input]);
        let tree = UiNode { children: vec![column], ..UiNode::new("android.widget.FrameLayout", [0, 0, 1080, 2400]) };
        let is_it = |n: &UiNode| n.resource_id == "app:id/note_text";
        assert_eq!(tap_box(&tree, &is_it), Some([0, 458, 1079, 605]));
        assert_eq!(tap_box(&tree, &|n: &UiNode| n.resource_id == "app:id/other"), None);
    }
}
