//! Whether a rebuilt app remembers: when a trace comes back to a screen and a checked value,
//! a field's text or something the person typed shows differently than on the earlier visit,
//! does the rebuilt app show it the new way too?
//!
//! What a screen "holds" ([`Holds`]) is read from the trace's node tree:
//! - `check:<id>#<n>`: the n-th checkable node with that id (or text) is on or off;
//! - `field:<id>#<n>`: the text of the n-th editable node with that id;
//! - `typed:<text>`: whether a text the person typed earlier in the trace is shown (outside
//!   the field it was typed into). An item added on one screen shows up here; a deleted one
//!   goes away.
//!
//! Clocks, counters and other texts that change by themselves are not read: only what the
//! person did (checked, typed) is asked to be remembered.

use std::collections::{BTreeMap, BTreeSet};

use phoneworld_data::UiElement;
use serde::Serialize;

use crate::abstraction::is_system_chrome;
use crate::generate::iou;
use crate::trace::{Screen, UiNode};

/// Typed texts shorter than this are not looked for (a digit is everywhere).
const TYPED_MIN_CHARS: usize = 3;

/// Least overlap for a phone control to stand for a trace control it does not share an id or
/// text with.
const PLACE_IOU: f64 = 0.5;

/// What one visit of a screen holds, by fact key (see the module docs).
pub(crate) type Holds = BTreeMap<String, Fact>;

/// One held value, and where the trace showed it (to find it on the phone).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fact {
    pub value: String,
    /// The node's box as a share of the screen; `None` for `typed:` facts.
    bounds: Option<[f64; 4]>,
    short_id: String,
    text: String,
}

impl Fact {
    fn same_value(&self, other: &Fact) -> bool {
        self.value == other.value
    }
}

/// The revisit measure of one replay.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Memory {
    /// Revisits of a screen where a checked value, a field's text or a typed text differs from
    /// the screen's earlier visit in the trace.
    pub changed_revisits: usize,
    /// Of those, the ones where the rebuilt app was on that screen and showed every changed
    /// value the new way.
    pub reproduced: usize,
    /// `reproduced / changed_revisits`, `None` when the trace has no changed revisit.
    pub share: Option<f64>,
}

impl Memory {
    pub(crate) fn count(&mut self, reproduced: bool) {
        self.changed_revisits += 1;
        self.reproduced += usize::from(reproduced);
        self.share = Some(crate::replay::ratio(self.reproduced, self.changed_revisits));
    }
}

fn short_id(resource_id: &str) -> String {
    crate::abstraction::snake(resource_id.rsplit('/').next().unwrap_or(resource_id))
}

/// A text with its runs of white space made one space.
pub(crate) fn norm(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The texts typed so far that are worth looking for.
pub(crate) fn worth_looking_for(text: &str) -> Option<String> {
    let t = norm(text);
    (t.chars().count() >= TYPED_MIN_CHARS).then_some(t)
}

/// What a trace screen holds, given the texts typed before it was shown.
pub(crate) fn holds(screen: &Screen, typed: &BTreeSet<String>) -> Holds {
    let mut out = Holds::new();
    let Some(root) = &screen.root else { return out };
    let (w, h) = (f64::from(screen.width.max(1)), f64::from(screen.height.max(1)));
    let mut ordinals: BTreeMap<String, usize> = BTreeMap::new();
    let mut shown_texts: Vec<String> = Vec::new();
    root.walk(&mut Vec::new(), &mut |_, n: &UiNode| {
        if !n.visible || n.width() <= 0 || n.height() <= 0 || is_system_chrome(n) || n.package == crate::see::SEEN_PACKAGE {
            return;
        }
        let kind = if n.checkable {
            "check"
        } else if n.editable {
            "field"
        } else {
            if !n.text.trim().is_empty() {
                shown_texts.push(norm(&n.text));
            }
            return;
        };
        let id = short_id(&n.resource_id);
        // A field's text is its value, not its name.
        let name = if id.is_empty() && n.checkable { norm(&n.text) } else { id.clone() };
        let ordinal = ordinals.entry(format!("{kind}:{name}")).or_default();
        let key = format!("{kind}:{name}#{ordinal}");
        *ordinal += 1;
        let value = input_value(n);
        let bounds = [f64::from(n.bounds[0]) / w, f64::from(n.bounds[1]) / h, f64::from(n.bounds[2]) / w, f64::from(n.bounds[3]) / h];
        out.insert(key, Fact { value, bounds: Some(bounds), short_id: id, text: norm(&n.text) });
    });
    for t in typed {
        let shown = shown_texts.iter().any(|s| s.contains(t.as_str()));
        out.insert(format!("typed:{t}"), typed_fact(shown));
    }
    out
}

/// What an input node holds: a toggle's `on` or `off`, a field's text.
pub(crate) fn input_value(n: &UiNode) -> String {
    match (n.checkable, n.checked) {
        (true, true) => "on".to_owned(),
        (true, false) => "off".to_owned(),
        (false, _) => norm(&n.text),
    }
}

fn typed_fact(shown: bool) -> Fact {
    Fact { value: if shown { "shown" } else { "absent" }.to_owned(), bounds: None, short_id: String::new(), text: String::new() }
}

/// The facts of `now` that differ from any of `before` (the screen as the trace last entered
/// it, and as it last showed it). A control seen on one visit only is not a change; a typed
/// text not looked for before was not shown then.
pub(crate) fn changed<'a>(before: &[&Holds], now: &'a Holds) -> Vec<(&'a String, &'a Fact)> {
    now.iter()
        .filter(|(key, fact)| {
            before.iter().any(|b| match b.get(*key) {
                Some(old) => !old.same_value(fact),
                None => key.starts_with("typed:") && fact.value == "shown",
            })
        })
        .collect()
}

/// Whether the phone shows every changed fact with its new value.
pub(crate) fn phone_shows(changes: &[(&String, &Fact)], elements: &[UiElement]) -> bool {
    changes.iter().all(|(key, fact)| {
        if let Some(text) = key.strip_prefix("typed:") {
            let shown = elements.iter().any(|e| e.is_editable != Some(true) && e.text.as_deref().is_some_and(|t| norm(t).contains(text)));
            return (fact.value == "shown") == shown;
        }
        let check = key.starts_with("check:");
        let Some(e) = phone_control(fact, check, elements) else { return false };
        if check {
            (e.is_checked == Some(true)) == (fact.value == "on")
        } else {
            // An empty field shows its hint, as Android's hierarchy gives it (or nothing).
            let text = e.text.as_deref().map(norm).unwrap_or_default();
            text == fact.value || (text.is_empty() && e.hint_text.as_deref().map(norm).as_deref() == Some(fact.value.as_str()))
        }
    })
}

/// The phone control standing for a trace control: among controls of its kind with its id
/// (or a numbered copy of it) or its text the one overlapping it most, else the one that
/// overlaps it at least [`PLACE_IOU`].
fn phone_control<'e>(fact: &Fact, check: bool, elements: &'e [UiElement]) -> Option<&'e UiElement> {
    let bounds = fact.bounds?;
    let overlap = |e: &UiElement| e.bbox.map_or(0.0, |b| iou(bounds, [b.x_min, b.y_min, b.x_max, b.y_max]));
    let kind = |e: &&UiElement| if check { e.is_checkable == Some(true) } else { e.is_editable == Some(true) };
    let named = |e: &&UiElement| {
        let id = e.resource_id.as_deref().map(short_id).unwrap_or_default();
        let numbered = id.strip_prefix(fact.short_id.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('_'));
        let same_text = check && !fact.text.is_empty() && e.text.as_deref().map(norm).as_deref() == Some(fact.text.as_str());
        (!fact.short_id.is_empty() && numbered) || same_text
    };
    let best = |it: &mut dyn Iterator<Item = &'e UiElement>| it.max_by(|a, b| overlap(a).total_cmp(&overlap(b)));
    best(&mut elements.iter().filter(kind).filter(named))
        .or_else(|| best(&mut elements.iter().filter(kind).filter(|e| overlap(e) >= PLACE_IOU)))
}
