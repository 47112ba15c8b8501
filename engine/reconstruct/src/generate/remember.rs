//! What the rebuilt app remembers, inferred from what the traces show before and after:
//! - radio buttons: turning one on turns the others of its group off ([`radio_groups`]);
//! - forms that open empty: a field whose typed text was gone whenever the screen was opened
//!   again shows the screen's own value, which a new visit starts without
//!   ([`fields_opened_empty`]); the others show what was typed (their value is app state);
//! - a dialog of choices opened from several controls (a settings list whose rows open one
//!   dialog, each for its own setting) shows, for each, the choice last made from it, at
//!   first the one the traces showed after it ([`choices_by_opener`]);
//! - text typed into a form and saved shows where the traces showed it next (a sent message,
//!   a new list item's name), until the next save replaces it ([`echoes`]);
//! - a control sets the inputs of the screen it opens that the traces showed changed after
//!   most of its runs (a new alarm is on) ([`handler_effects`]);
//! - data that does not outlive a restart: when, after the app was closed, what the person had
//!   changed showed as it first was more often than as they left it, the app starts from its
//!   first data each time it is started ([`forgets_on_restart`]).
//!
//! All are written into `main.lua` as plain statements a person can read and change.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::model::{RadioGroup, ScreenModel};
use super::widgets::{best_match, Mapper, Widget, WidgetKind};
use crate::abstraction::Abstraction;
use crate::memory::{input_value, norm};
use crate::trace::{Screen, Trace, TraceAction, UiNode};

/// The state key naming the control that opened a dialog following its opener.
pub(crate) fn opener_key(dialog: &str) -> String {
    format!("{dialog}__opener")
}

/// The state key holding the choice made in a dialog opened by `handler`.
pub(crate) fn choice_key(dialog: &str, handler: &str) -> String {
    format!("{dialog}__choice__{handler}")
}

/// The state key keeping what was typed into the field `key` when its form was saved.
pub(crate) fn saved_key(key: &str) -> String {
    format!("{key}__saved")
}

/// A field the screen opens with emptied: its state key and what it shows then (its hint).
pub(super) struct OpensEmpty {
    pub key: String,
    pub hint: String,
}

pub(super) fn is_radio(w: &Widget) -> bool {
    matches!(w.kind, WidgetKind::Checkbox | WidgetKind::Switch) && w.class.rsplit('.').next().unwrap_or("").contains("RadioButton")
}

/// The radio groups of a screen: two or more radio buttons side by side in one container
/// (Android's RadioGroup, a single-choice list). Controls whose changes already pick what the
/// screen shows (`selection`) keep that handler, which turns the others off itself.
pub(super) fn radio_groups(widgets: &[Widget], selection_handler: &str) -> Vec<RadioGroup> {
    fn collect(widgets: &[Widget], selection_handler: &str, out: &mut Vec<RadioGroup>) {
        let group: RadioGroup = widgets
            .iter()
            .filter(|w| is_radio(w) && w.on_change.as_deref() != Some(selection_handler))
            .filter_map(|w| Some((w.id.clone(), w.state_key.clone()?)))
            .collect();
        if group.len() >= 2 {
            out.push(group);
        }
        for w in widgets {
            collect(&w.children, selection_handler, out);
        }
    }
    let mut out = Vec::new();
    collect(widgets, selection_handler, &mut out);
    out
}

/// How a typed field looked when its screen was opened again.
#[derive(Default)]
struct Reopened {
    /// It still showed what was typed.
    kept: usize,
    /// It showed something else, by what (most often its hint).
    cleared: BTreeMap<String, usize>,
}

/// The fields each screen opens with emptied: on the traces' returns to the screen (after
/// leaving it, without closing the app), a field that had been typed into showed its typed
/// text fewer times than something else.
pub(super) fn fields_opened_empty(screens: &[ScreenModel], seen_as: &Sightings<'_>, traces: &[Trace]) -> BTreeMap<String, Vec<OpensEmpty>> {
    let model_of: BTreeMap<&str, &ScreenModel> = screens.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut seen: BTreeMap<(String, String), Reopened> = BTreeMap::new();
    for (t, trace) in traces.iter().enumerate() {
        // Per field key: its text on the latest visit, and whether that text was typed.
        let mut last: BTreeMap<String, (String, bool)> = BTreeMap::new();
        let mut previous: Option<String> = None;
        let mut typed: Vec<String> = Vec::new();
        for (screen, action) in visits(trace) {
            if let Some(TraceAction::TypeText { text }) = action {
                typed.push(norm(text));
            }
            // A restart is not a reopening: what the app keeps across restarts is
            // `forgets_on_restart`'s question.
            if let Some(TraceAction::CloseApp { .. }) = action {
                last.clear();
            }
            let Some(model) = seen_as.model(t, screen, &model_of) else { continue };
            let reopened = previous.as_deref() != Some(model.id.as_str());
            previous = Some(model.id.clone());
            for (key, field, value) in seen_as.inputs(t, screen, model).iter() {
                if !field {
                    continue;
                }
                if let (true, Some((before, true))) = (reopened, last.get(key)) {
                    let entry = seen.entry((model.id.clone(), key.clone())).or_default();
                    if before == value {
                        entry.kept += 1;
                    } else {
                        *entry.cleared.entry(value.clone()).or_default() += 1;
                    }
                }
                let was_typed = !value.is_empty() && typed.iter().any(|t| !t.is_empty() && value.contains(t.as_str()));
                last.insert(key.clone(), (value.clone(), was_typed));
            }
        }
    }
    let mut out: BTreeMap<String, Vec<OpensEmpty>> = BTreeMap::new();
    for ((screen, key), r) in seen {
        let cleared: usize = r.cleared.values().sum();
        if cleared > r.kept {
            // What it showed most often instead (the first of equals): its hint.
            let most = r.cleared.values().copied().max().unwrap_or(0);
            let hint = r.cleared.into_iter().find(|(_, n)| *n == most).map(|(h, _)| h).unwrap_or_default();
            out.entry(screen).or_default().push(OpensEmpty { key, hint });
        }
    }
    out
}

/// Each screen a trace shows, in order, with the action that showed it (none for the first).
fn visits(trace: &Trace) -> impl Iterator<Item = (&Screen, Option<&TraceAction>)> {
    let first = trace.steps.first().map(|s| (Some(&s.screen), None));
    first
        .into_iter()
        .chain(trace.steps.iter().map(|s| (s.next.as_ref(), Some(&s.action))))
        .filter_map(|(id, action)| Some((trace.screens.get(id?)?, action)))
}

/// An input a visit shows: its state key, whether it is a field, and its value (a toggle's
/// `on` or `off`, a field's text).
pub(super) type Input = (String, bool, String);

/// The traces' screens as the rebuilt screens see them, worked out once per concrete screen (a
/// long trace shows the same few screens again and again): the abstract screen each is, and
/// the inputs it shows. The abstraction is fixed while the app is generated; the inputs depend
/// only on the screens' inputs and their state keys, which the passes reading them leave as
/// they are.
pub(super) struct Sightings<'a> {
    abstraction: &'a Abstraction,
    index: RefCell<PerScreen<Option<usize>>>,
    inputs: RefCell<PerScreen<Rc<[Input]>>>,
}

/// By trace, then by concrete screen id (looked up without building a key).
type PerScreen<T> = BTreeMap<usize, BTreeMap<String, T>>;

impl<'a> Sightings<'a> {
    pub(super) fn new(abstraction: &'a Abstraction) -> Sightings<'a> {
        Sightings { abstraction, index: RefCell::default(), inputs: RefCell::default() }
    }

    /// The abstract screen the `t`-th trace's `screen` is (`Abstraction::classify`).
    pub(super) fn index(&self, t: usize, screen: &Screen) -> Option<usize> {
        if let Some(i) = self.index.borrow().get(&t).and_then(|m| m.get(&screen.id)) {
            return *i;
        }
        let i = self.abstraction.classify(t, screen);
        self.index.borrow_mut().entry(t).or_default().insert(screen.id.clone(), i);
        i
    }

    /// The abstract screen's id and its model, if the app has one.
    fn model<'m>(&self, t: usize, screen: &Screen, model_of: &BTreeMap<&str, &'m ScreenModel>) -> Option<&'m ScreenModel> {
        let i = self.index(t, screen)?;
        model_of.get(self.abstraction.screens[i].id.as_str()).copied()
    }

    /// The inputs the `t`-th trace's `screen` shows, as the inputs of `model` (its screen).
    fn inputs(&self, t: usize, screen: &Screen, model: &ScreenModel) -> Rc<[Input]> {
        if let Some(found) = self.inputs.borrow().get(&t).and_then(|m| m.get(&screen.id)) {
            return Rc::clone(found);
        }
        let mut out = Vec::new();
        inputs_shown(screen, model, &mut |key, field, value| out.push((key.to_owned(), field, value)));
        let out: Rc<[Input]> = out.into();
        self.inputs.borrow_mut().entry(t).or_default().insert(screen.id.clone(), Rc::clone(&out));
        out
    }
}

/// Calls `f(state key, is a field, value)` for each input a visit shows: a toggle's `on` or
/// `off`, a field's text.
fn inputs_shown(screen: &Screen, model: &ScreenModel, f: &mut dyn FnMut(&str, bool, String)) {
    let Some(root) = &screen.root else { return };
    let m = Mapper { width: f64::from(screen.width.max(1)), height: f64::from(screen.height.max(1)) };
    root.walk(&mut Vec::new(), &mut |_, n| {
        if !n.visible || !(n.checkable || n.editable) {
            return;
        }
        let kind = |w: &Widget| {
            if n.checkable {
                w.is_toggle()
            } else {
                w.kind == WidgetKind::TextField
            }
        };
        if let Some(key) = best_match(&model.widgets, n, &m, &kind).and_then(|w| w.state_key.as_deref()) {
            f(key, !n.checkable, input_value(n));
        }
    });
}

/// Whether the app's data does not outlive a restart in the traces: after the app was closed,
/// an input the person had changed showed its first value again more often than the value they
/// left it with (the recorder started each session from the same data).
pub(super) fn forgets_on_restart(screens: &[ScreenModel], seen_as: &Sightings<'_>, traces: &[Trace]) -> bool {
    let model_of: BTreeMap<&str, &ScreenModel> = screens.iter().map(|s| (s.id.as_str(), s)).collect();
    let (mut forgot, mut kept) = (0usize, 0usize);
    for (t, trace) in traces.iter().enumerate() {
        // Per state key: its value when first seen in the trace, and when last seen.
        let mut first: BTreeMap<String, String> = BTreeMap::new();
        let mut last: BTreeMap<String, String> = BTreeMap::new();
        // Keys not seen since the app was last closed.
        let mut unseen: BTreeSet<String> = BTreeSet::new();
        for (screen, action) in visits(trace) {
            if let Some(TraceAction::CloseApp { .. }) = action {
                unseen = last.keys().cloned().collect();
            }
            let Some(model) = seen_as.model(t, screen, &model_of) else { continue };
            for (key, _, value) in seen_as.inputs(t, screen, model).iter() {
                if unseen.remove(key) && first.get(key) != last.get(key) {
                    forgot += usize::from(first.get(key) == Some(value));
                    kept += usize::from(last.get(key) == Some(value));
                }
                first.entry(key.clone()).or_insert_with(|| value.clone());
                last.insert(key.clone(), value.clone());
            }
        }
    }
    forgot > kept
}

/// The tabs of the app's first screen (its id first) when starting the app showed the tab the
/// person had left it on more often than the first tab: the app reopens on its last tab.
/// Empty when the first screen has no tabs or the traces showed it start on its first tab.
pub(super) fn reopens_last_tab(seen_as: &Sightings<'_>, traces: &[Trace], entry: &str) -> Vec<String> {
    let screens = &seen_as.abstraction.screens;
    let Some(first) = screens.iter().position(|s| s.id == entry).filter(|&i| !screens[i].tab.is_empty()) else { return Vec::new() };
    let others = (0..screens.len()).filter(|&i| i != first && !screens[i].tab.is_empty() && screens[i].activity == screens[first].activity);
    let tabs: Vec<usize> = std::iter::once(first).chain(others).collect();
    let (mut kept, mut reset) = (0usize, 0usize);
    for (t, trace) in traces.iter().enumerate() {
        let mut last: Option<usize> = None;
        for (screen, action) in visits(trace) {
            let Some(i) = seen_as.index(t, screen).filter(|i| tabs.contains(i)) else { continue };
            if let (Some(TraceAction::OpenApp { .. }), Some(left)) = (action, last.filter(|&l| l != first)) {
                kept += usize::from(i == left);
                reset += usize::from(i == first);
            }
            last = Some(i);
        }
    }
    if kept <= reset {
        return Vec::new();
    }
    tabs.into_iter().map(|i| screens[i].id.clone()).collect()
}

/// For each screen with radio buttons opened from several controls whose first openings
/// showed different choices: the choice each showed first, by the opening handler. The
/// screen's first radio group is the one that follows its opener.
pub(super) fn choices_by_opener(
    screens: &[ScreenModel],
    seen_as: &Sightings<'_>,
    traces: &[Trace],
) -> BTreeMap<String, BTreeMap<String, String>> {
    let model_of: BTreeMap<&str, &ScreenModel> = screens.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut first: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (t, trace) in traces.iter().enumerate() {
        for step in &trace.steps {
            let (TraceAction::Tap { .. }, Some(target), Some(next)) = (&step.action, &step.target, &step.next) else { continue };
            let (Some(from), Some(to)) = (trace.screens.get(&step.screen), trace.screens.get(next)) else { continue };
            let (Some(opener), Some(dialog)) = (seen_as.model(t, from, &model_of), seen_as.model(t, to, &model_of)) else { continue };
            let Some(group) = dialog.radio_groups.first().filter(|_| opener.id != dialog.id) else { continue };
            let m = Mapper { width: f64::from(from.width.max(1)), height: f64::from(from.height.max(1)) };
            let Some(handler) = best_match(&opener.widgets, &target.node, &m, &|w| w.on_tap.is_some()).and_then(|w| w.on_tap.as_ref())
            else {
                continue;
            };
            if !opener.handlers.iter().any(|h| h.name == *handler && h.target == dialog.id) {
                continue;
            }
            let inputs = seen_as.inputs(t, to, dialog);
            let on = inputs.iter().filter(|(_, field, value)| !field && value == "on");
            let chosen = on.filter_map(|(key, ..)| group.iter().find(|(_, k)| k == key)).map(|(id, _)| id.clone()).next();
            if let Some(chosen) = chosen {
                first.entry(dialog.id.clone()).or_default().entry(handler.clone()).or_insert(chosen);
            }
        }
    }
    first.retain(|_, by| by.values().collect::<BTreeSet<_>>().len() >= 2);
    first
}

/// How many steps after the submit a screen showing the typed text counts as its result.
const ECHO_WITHIN_STEPS: usize = 12;

/// Text typed into a field, saved by a control of the field's screen, and shown afterwards
/// as text on a screen (a sent message in the thread, a new note's name on the list).
#[derive(Debug, Clone)]
pub(super) struct Echo {
    /// The field's screen and the control that saved it.
    pub form: String,
    pub submit: String,
    /// The field's state key.
    pub key: String,
    /// Whether the field showed something else right after saving (it was emptied).
    pub clears: bool,
    /// The screen that showed it, the node showing it, and that screen's size.
    pub shown_on: String,
    pub node: UiNode,
    pub size: (u32, u32),
    /// Fields of that screen that showed something else than they were built with (and not
    /// the typed text), with what they showed: their hint, as the save left them blank.
    pub blanks: Vec<(String, String)>,
}

/// The typed texts the traces showed again after a control of the form saved them: for each
/// text typed into a field (at least [`crate::memory`]'s few characters), the first tap on
/// another control of the same screen is its submit, and the first screen within
/// [`ECHO_WITHIN_STEPS`] steps showing the text outside a field is where it shows. One echo
/// per field and screen (the first seen).
pub(super) fn echoes<'t, 'm>(screens: &'m [ScreenModel], seen_as: &Sightings<'_>, traces: &'t [Trace]) -> Vec<Echo> {
    let model_of: BTreeMap<&str, &'m ScreenModel> = screens.iter().map(|s| (s.id.as_str(), s)).collect();
    let screen_at = |t: usize, trace: &'t Trace, id: &str| -> Option<(&'t Screen, &'m ScreenModel)> {
        let s = trace.screens.get(id)?;
        Some((s, seen_as.model(t, s, &model_of)?))
    };
    let mut out: Vec<Echo> = Vec::new();
    for (t, trace) in traces.iter().enumerate() {
        for (k, step) in trace.steps.iter().enumerate() {
            let (TraceAction::TypeText { text }, Some(target)) = (&step.action, &step.target) else { continue };
            let Some(typed) = crate::memory::worth_looking_for(text) else { continue };
            let Some((screen, form)) = screen_at(t, trace, &step.screen) else { continue };
            let m = Mapper { width: f64::from(screen.width.max(1)), height: f64::from(screen.height.max(1)) };
            let field = best_match(&form.widgets, &target.node, &m, &|w| w.kind == WidgetKind::TextField);
            let Some(key) = field.and_then(|f| f.state_key.clone()) else { continue };
            // The submit: the first tap on the form, staying on it until then, on no field.
            let mut submit = None;
            for (j, later) in trace.steps.iter().enumerate().skip(k + 1) {
                let Some((s, here)) = screen_at(t, trace, &later.screen) else { break };
                if here.id != form.id {
                    break;
                }
                let (TraceAction::Tap { .. }, Some(target)) = (&later.action, &later.target) else { continue };
                let m = Mapper { width: f64::from(s.width.max(1)), height: f64::from(s.height.max(1)) };
                let Some(w) = best_match(&form.widgets, &target.node, &m, &|_| true) else { break };
                if !matches!(w.kind, WidgetKind::TextField | WidgetKind::Checkbox | WidgetKind::Switch) {
                    submit = Some((j, w.id.clone()));
                }
                break;
            }
            let Some((j, submit)) = submit else { continue };
            // The form as the trace showed it next (at once, or back from a dialog the submit
            // opened): the field emptied or not.
            let back_on_form = trace.steps[j..]
                .iter()
                .take(ECHO_WITHIN_STEPS)
                .filter_map(|later| screen_at(t, trace, later.next.as_deref()?))
                .find(|(_, next)| next.id == form.id);
            let clears = back_on_form.is_some_and(|(s, next)| {
                let mut emptied = false;
                inputs_shown(s, next, &mut |k, field, value| emptied |= field && k == key && !value.contains(typed.as_str()));
                emptied
            });
            let sighting = trace.steps.iter().skip(j).take(ECHO_WITHIN_STEPS).find_map(|later| {
                let (s, shown_on) = screen_at(t, trace, later.next.as_deref()?)?;
                let mut node = None;
                s.root.as_ref()?.walk(&mut Vec::new(), &mut |_, n| {
                    if node.is_none() && n.visible && !n.editable && n.children.is_empty() && norm(&n.text).contains(typed.as_str()) {
                        node = Some(n.shallow());
                    }
                });
                let node = node?;
                let mut blanks = Vec::new();
                inputs_shown(s, shown_on, &mut |key, field, value| {
                    let mut built = None;
                    for w in &shown_on.widgets {
                        w.walk(&mut |w| {
                            if w.state_key.as_deref() == Some(key) && !w.opens_empty {
                                built = Some(norm(&w.text));
                            }
                        });
                    }
                    if field && built.is_some_and(|b| b != value) && !value.contains(typed.as_str()) {
                        blanks.push((key.to_owned(), value));
                    }
                });
                Some((shown_on.id.clone(), node, (s.width, s.height), blanks))
            });
            let Some((shown_on, node, size, blanks)) = sighting else { continue };
            if !out.iter().any(|e| e.key == key && e.shown_on == shown_on) {
                out.push(Echo { form: form.id.clone(), submit, key, clears, shown_on, node, size, blanks });
            }
        }
    }
    out
}

/// The state key telling that the item of the checkbox `key` was picked into `screen`.
pub(crate) fn picked_key(screen: &str, key: &str) -> String {
    format!("{screen}__picked__{key}")
}

/// An item picked with a checkbox of a dialog that the screen its confirm leads to showed
/// afterwards, and not on the visit before (contacts picked into a group show in the group).
#[derive(Debug, Clone)]
pub(super) struct Pick {
    /// The confirm's handler, and the checkbox's state key.
    pub handler: String,
    pub key: String,
    /// The screen that showed the item, the node showing its name, and that screen's size.
    pub shown_on: String,
    pub node: UiNode,
    pub size: (u32, u32),
}

fn bounds_of(n: &UiNode) -> [f64; 4] {
    n.bounds.map(f64::from)
}

/// A screen's leaf texts outside fields (normalised) and their nodes.
type LeafTexts = BTreeMap<String, UiNode>;

/// `leaf_texts`, read once per concrete screen.
fn leaf_texts_once<'s>(cache: &mut BTreeMap<&'s str, Rc<LeafTexts>>, screen: &'s Screen) -> Rc<LeafTexts> {
    Rc::clone(cache.entry(screen.id.as_str()).or_insert_with(|| Rc::new(leaf_texts(screen))))
}

/// The leaf texts (outside fields) a screen shows, by their text.
fn leaf_texts(screen: &Screen) -> LeafTexts {
    let mut out = BTreeMap::new();
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, n| {
            if n.visible && !n.editable && n.children.is_empty() && !n.text.trim().is_empty() {
                out.entry(norm(&n.text)).or_insert_with(|| n.shallow());
            }
        });
    }
    out
}

/// The checked checkboxes of a screen with their row's name: the first text beside the
/// checkbox in its parent.
fn checked_rows(screen: &Screen) -> Vec<(&UiNode, String)> {
    let mut out = Vec::new();
    if let Some(root) = &screen.root {
        root.walk(&mut Vec::new(), &mut |_, parent| {
            for c in parent.children.iter().filter(|c| c.visible && c.checkable && c.checked) {
                let mut name = None;
                for other in parent.children.iter().filter(|o| !std::ptr::eq(*o, c)) {
                    other.walk(&mut Vec::new(), &mut |_, n| {
                        if name.is_none() && !n.editable && !n.text.trim().is_empty() {
                            name = Some(norm(&n.text));
                        }
                    });
                }
                if let Some(name) = name {
                    out.push((c, name));
                }
            }
        });
    }
    out
}

/// The items picked in dialogs that showed on the screen their confirm led to: for each tap
/// that led from a screen with checked checkboxes to another screen the trace had shown before,
/// each checked row whose name that screen showed now, and not on its visit before nor in place
/// of another text there. One pick per
/// confirm and checkbox (the first seen).
pub(super) fn picks(screens: &[ScreenModel], seen_as: &Sightings<'_>, traces: &[Trace]) -> Vec<Pick> {
    let model_of: BTreeMap<&str, &ScreenModel> = screens.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut out: Vec<Pick> = Vec::new();
    for (t, trace) in traces.iter().enumerate() {
        // The texts of each screen's latest visit, read once per concrete screen.
        let mut last_seen: BTreeMap<String, Rc<LeafTexts>> = BTreeMap::new();
        let mut texts_of: BTreeMap<&str, Rc<LeafTexts>> = BTreeMap::new();
        if let Some((first, model)) =
            trace.steps.first().and_then(|s| trace.screens.get(&s.screen)).and_then(|s| Some((s, seen_as.model(t, s, &model_of)?)))
        {
            last_seen.insert(model.id.clone(), leaf_texts_once(&mut texts_of, first));
        }
        for step in &trace.steps {
            let Some((to, shown)) =
                step.next.as_ref().and_then(|n| trace.screens.get(n)).and_then(|s| Some((s, seen_as.model(t, s, &model_of)?)))
            else {
                continue;
            };
            let now = leaf_texts_once(&mut texts_of, to);
            let from = trace.screens.get(&step.screen);
            if let (TraceAction::Tap { .. }, Some(target), Some(from), Some(before)) =
                (&step.action, &step.target, from, last_seen.get(&shown.id))
            {
                if let Some(dialog) = seen_as.model(t, from, &model_of).filter(|d| d.id != shown.id) {
                    let m = Mapper { width: f64::from(from.width.max(1)), height: f64::from(from.height.max(1)) };
                    let handler = best_match(&dialog.widgets, &target.node, &m, &|w| w.on_tap.is_some()).and_then(|w| w.on_tap.clone());
                    let leads = handler.filter(|name| dialog.handlers.iter().any(|h| h.name == *name && h.target == shown.id));
                    for (checkbox, name) in leads.iter().flat_map(|_| checked_rows(from)) {
                        let is_box = |w: &Widget| w.is_toggle();
                        let Some(key) = best_match(&dialog.widgets, checkbox, &m, &is_box).and_then(|w| w.state_key.clone()) else {
                            continue;
                        };
                        let (Some(handler), Some(node)) = (leads.clone(), now.get(&name)) else { continue };
                        // A value shown in place of another (a setting's summary) was chosen, not added.
                        let replaced = before.values().any(|b| super::widgets::iou(bounds_of(b), bounds_of(node)) >= 0.5);
                        if replaced || before.contains_key(&name) || out.iter().any(|p| p.handler == handler && p.key == key) {
                            continue;
                        }
                        out.push(Pick { handler, key, shown_on: shown.id.clone(), node: node.clone(), size: (to.width, to.height) });
                    }
                }
            }
            last_seen.insert(shown.id.clone(), now);
        }
    }
    out
}

/// The runs of a handler that saw one input of its target: how many, and each new value it
/// showed (is it a field, the value) with how often.
type Runs = (usize, BTreeMap<(bool, String), usize>);

/// What a handler does to the inputs of the screen it leads to: for each tap that ran it,
/// the inputs that screen showed are compared with how the trace last showed them. A value the
/// screen showed changed after more than half of the handler's runs that saw the input, to the
/// same value each of those times, is the handler's doing (a new alarm is on; a new note's
/// body is blank). Values as Lua literals: a toggle's `true` or `false`; a field's text, or
/// empty where the text is what the field is built to show when empty (its hint).
pub(super) fn handler_effects(
    screens: &[ScreenModel],
    seen_as: &Sightings<'_>,
    traces: &[Trace],
) -> BTreeMap<String, Vec<(String, String)>> {
    let model_of: BTreeMap<&str, &ScreenModel> = screens.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut seen: BTreeMap<(String, String), Runs> = BTreeMap::new();
    for (t, trace) in traces.iter().enumerate() {
        let mut last: BTreeMap<String, String> = BTreeMap::new();
        let remember = |last: &mut BTreeMap<String, String>, screen: &Screen| {
            if let Some(model) = seen_as.model(t, screen, &model_of) {
                for (key, _, value) in seen_as.inputs(t, screen, model).iter() {
                    last.insert(key.clone(), value.clone());
                }
            }
        };
        if let Some(first) = trace.steps.first().and_then(|s| trace.screens.get(&s.screen)) {
            remember(&mut last, first);
        }
        for step in &trace.steps {
            // What a restart changes is `forgets_on_restart`'s question.
            if let TraceAction::CloseApp { .. } = step.action {
                last.clear();
            }
            let Some(to) = step.next.as_ref().and_then(|n| trace.screens.get(n)) else { continue };
            if let (TraceAction::Tap { .. }, Some(target), Some(from)) = (&step.action, &step.target, trace.screens.get(&step.screen)) {
                let handler = seen_as.model(t, from, &model_of).zip(seen_as.model(t, to, &model_of)).and_then(|(opener, shown)| {
                    let m = Mapper { width: f64::from(from.width.max(1)), height: f64::from(from.height.max(1)) };
                    let name = best_match(&opener.widgets, &target.node, &m, &|w| w.on_tap.is_some())?.on_tap.clone()?;
                    let leads = opener.id != shown.id && opener.handlers.iter().any(|h| h.name == name && h.target == shown.id);
                    leads.then_some((name, shown))
                });
                if let Some((name, shown)) = handler {
                    for (key, field, value) in seen_as.inputs(t, to, shown).iter() {
                        let Some(before) = last.get(key) else { continue };
                        let entry = seen.entry((name.clone(), key.clone())).or_default();
                        entry.0 += 1;
                        if before != value {
                            *entry.1.entry((*field, value.clone())).or_default() += 1;
                        }
                    }
                }
            }
            remember(&mut last, to);
        }
    }
    let hint_of = |key: &str| {
        let mut hint = None;
        for s in screens {
            for w in &s.widgets {
                w.walk(&mut |w| {
                    if w.state_key.as_deref() == Some(key) {
                        hint = Some(norm(&w.text));
                    }
                });
            }
        }
        hint
    };
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for ((handler, key), (runs, changed)) in seen {
        let Some(((field, value), n)) = changed.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))) else { continue };
        if 2 * n <= runs {
            continue;
        }
        let literal = match (field, value.as_str()) {
            (false, on) => (on == "on").to_string(),
            (true, text) if hint_of(&key).as_deref() == Some(text) => "\"\"".to_owned(),
            (true, text) => crate::tasks::lit(text),
        };
        out.entry(handler).or_default().push((key, literal));
    }
    out
}
