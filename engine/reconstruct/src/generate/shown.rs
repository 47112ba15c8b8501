//! Content that follows the widget that opened a screen: a detail screen shows the contact,
//! restaurant or event whose row was tapped, an Edit button opens "Edit contact" where Add
//! opened "Create contact". Each opening widget seen in the traces gives what the next screen
//! then showed, where its visits agree; rows never tapped show what an observed row opened,
//! with that row's label put in place of the observed row's (a title, "Call <name>").

use std::collections::{BTreeMap, BTreeSet};

use super::model::{ScreenModel, Shown};
use super::remember::Sightings;
use super::widgets::{best_match, build, find_widget, shown_texts, Mapper, Widget, WidgetKind};
use crate::abstraction::{Abstraction, Role};
use crate::trace::{Trace, TraceAction};

impl Shown {
    /// Makes `slots` follow too, showing what `example` shows in them wherever nothing else
    /// was worked out for them.
    pub(crate) fn extend_slots(&mut self, slots: &BTreeSet<String>, example: &BTreeMap<String, String>) {
        for slot in slots {
            let text = example.get(slot).cloned().unwrap_or_default();
            for texts in std::iter::once(&mut self.default).chain(self.variants.values_mut()).chain(self.items.values_mut()) {
                texts.entry(slot.clone()).or_insert_with(|| text.clone());
            }
        }
    }
}

/// The key of what the widget `id` of screen `screen` opened: `<screen>__<id>` (the generated
/// Lua builds the same from `ev.id`).
fn row_key(screen: &str, id: &str) -> String {
    format!("{screen}__{id}")
}

/// The slot name of a widget's description.
pub(crate) fn desc_slot(id: &str) -> String {
    format!("{id}__desc")
}

/// The texts a screen's widgets show, by slot.
pub(crate) fn slots(widgets: &[Widget]) -> Vec<(String, &Widget, bool)> {
    let mut out = Vec::new();
    for w in widgets {
        w.walk(&mut |w| {
            if w.kind == WidgetKind::TextField {
                return;
            }
            if !w.text.trim().is_empty() && w.kind != WidgetKind::Container {
                out.push((w.id.clone(), w, false));
            }
            if !w.content_desc.trim().is_empty() {
                out.push((desc_slot(&w.id), w, true));
            }
        });
    }
    out
}

/// The same place on screen for a slot's widget in another visit: the same line, and the
/// same left edge, center or right edge (a centered title, a rating set right, a chip that
/// widens when checked is as wide as its text).
pub(crate) fn same_place(v: &Widget, w: &Widget) -> bool {
    let center = |r: [f64; 4]| r[0] + r[2] / 2.0;
    let right = |r: [f64; 4]| r[0] + r[2];
    (v.rect[1] - w.rect[1]).abs() <= 4.0
        && ((v.rect[0] - w.rect[0]).abs() <= 4.0
            || (center(v.rect) - center(w.rect)).abs() <= 4.0
            || (right(v.rect) - right(w.rect)).abs() <= 4.0)
}

/// The texts the slots' own widgets show (the screen's example), by slot.
pub(crate) fn example_texts(slots: &[(String, &Widget, bool)]) -> BTreeMap<String, String> {
    slots.iter().map(|(slot, w, is_desc)| (slot.clone(), if *is_desc { w.content_desc.clone() } else { w.text.clone() })).collect()
}

/// What another visit shows in each slot: the widget of the same kind and id in the same
/// place; where it shows none, the example's text.
pub(crate) fn fill(slots: &[(String, &Widget, bool)], visit: &[Widget]) -> BTreeMap<String, String> {
    let mut out = example_texts(slots);
    out.extend(shown_in(slots, visit));
    out
}

/// What another visit shows in each slot it shows something in (no entry for the others).
pub(crate) fn shown_in(slots: &[(String, &Widget, bool)], visit: &[Widget]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (slot, w, is_desc) in slots {
        let mut found: Option<String> = None;
        for v in visit {
            v.walk(&mut |v| {
                if found.is_none() && same_place(v, w) && v.kind == w.kind && v.resource_id == w.resource_id {
                    let text = if *is_desc { &v.content_desc } else { &v.text };
                    if !text.trim().is_empty() {
                        found = Some(text.clone());
                    }
                }
            });
        }
        if let Some(text) = found {
            out.insert(slot.clone(), text);
        }
    }
    out
}

/// What could name a row, with the slot showing each: its description, then its texts in order.
fn label_slots(w: &Widget) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !w.content_desc.trim().is_empty() {
        out.push((desc_slot(&w.id), w.content_desc.trim().to_owned()));
    }
    w.walk(&mut |c| {
        if c.kind != WidgetKind::Container && !c.text.trim().is_empty() {
            out.push((c.id.clone(), c.text.trim().to_owned()));
        }
    });
    out
}

/// What could name a row: its description, then its texts in order.
fn labels(w: &Widget) -> Vec<String> {
    label_slots(w).into_iter().map(|(_, text)| text).collect()
}

/// The item a row names, among `items`: the first of the row's labels that is one (a dish
/// row's name), else in the first label holding one as whole words the one that starts first,
/// then the longest ("Lamb Biryani" in "Add Lamb Biryani", "Golden Wok" before "$1.99
/// delivery"; "Ada" is not in "Adam"). The generated Lua's `named_item` is the same.
fn named_item<'i>(row: &[String], items: impl Iterator<Item = &'i String> + Clone) -> Option<&'i String> {
    let items = items.filter(|item| item.chars().count() >= MIN_LABEL);
    row.iter().find_map(|label| items.clone().find(|item| *item == label)).or_else(|| {
        row.iter().find_map(|label| {
            items
                .clone()
                .filter_map(|item| Some((word_at(label, item)?, item)))
                .min_by(|(a, x), (b, y)| a.cmp(b).then(y.len().cmp(&x.len())).then_with(|| x.cmp(y)))
                .map(|(_, item)| item)
        })
    })
}

/// Where `item` first occurs in `label`, if that occurrence is whole words (no ASCII letter
/// or digit on either side). Byte offsets, as Lua's `string.find` gives them.
fn word_at(label: &str, item: &str) -> Option<usize> {
    let at = label.find(item)?;
    let end = at + item.len();
    let bytes = label.as_bytes();
    let letter = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_alphanumeric);
    let inside_a_word = (at > 0 && letter(at - 1)) || letter(end);
    (!inside_a_word).then_some(at)
}

/// The widgets whose tap or long press runs `handler`.
fn opening<'w>(widgets: &'w [Widget], handler: &str) -> Vec<&'w Widget> {
    let mut out = Vec::new();
    for w in widgets {
        w.walk(&mut |w| {
            if w.on_tap.as_deref() == Some(handler) || w.on_long_press.as_deref() == Some(handler) {
                out.push(w);
            }
        });
    }
    out
}

/// The widget a tap opened the screen from: `placed` (the model's widget in the tapped place)
/// when the tapped texts name the same item; otherwise the widget with the same handler that
/// shows them, or none when no widget does (what it opened belongs to no row of the model).
fn tapped_row<'w>(widgets: &'w [Widget], placed: &'w Widget, handler: &str, tapped: &[String]) -> Option<&'w Widget> {
    let own = labels(placed);
    if own.is_empty() || tapped.is_empty() || own.iter().any(|l| tapped.contains(l)) {
        return Some(placed);
    }
    let name = tapped.iter().find(|l| l.chars().count() >= MIN_LABEL)?;
    opening(widgets, handler).into_iter().find(|w| labels(w).first() == Some(name))
}

/// Labels shorter than this are not put in place of each other (a section letter).
const MIN_LABEL: usize = 3;

/// Finds, for every screen opened by tapping rows, the texts that followed the row.
pub(super) fn follow_rows(screens: &mut [ScreenModel], seen_as: &Sightings<'_>, abstraction: &Abstraction, traces: &[Trace]) {
    let position = |id: &str| screens.iter().position(|s| s.id == id);
    // (target screen, opening widget key) -> the widgets of the screen shown after each tap.
    let mut seen: BTreeMap<(usize, String), Vec<Vec<Widget>>> = BTreeMap::new();
    // (target screen, item the tapped row named) -> the widgets of the screen shown after it.
    let mut seen_items: BTreeMap<(usize, String), Vec<Vec<Widget>>> = BTreeMap::new();
    // (target screen, opening widget key) -> the labels of the row tapped on each visit.
    let mut tapped_at: BTreeMap<(usize, String), Vec<Vec<String>>> = BTreeMap::new();
    // (from screen, handler name) pairs that opened each target screen.
    let mut openers: BTreeMap<usize, BTreeSet<(usize, String)>> = BTreeMap::new();
    // A trace shows the same screens again and again: each is classified and built once, and
    // a visit already counted for a key adds nothing to "every visit agrees" (kept once).
    let mut built: BTreeMap<(usize, String), Vec<Widget>> = BTreeMap::new();
    let mut counted: BTreeSet<(usize, String, usize, String)> = BTreeSet::new();
    for (t, trace) in traces.iter().enumerate() {
        for step in &trace.steps {
            let long = matches!(step.action, TraceAction::LongPress { .. });
            if !long && !matches!(step.action, TraceAction::Tap { .. }) {
                continue;
            }
            let (Some(target), Some(next_id)) = (&step.target, &step.next) else { continue };
            let (Some(a), Some(b)) = (trace.screens.get(&step.screen), trace.screens.get(next_id)) else { continue };
            let (Some(ai), Some(bi)) = (seen_as.index(t, a), seen_as.index(t, b)) else { continue };
            if ai == bi || abstraction.screens[ai].role == Role::Launcher || abstraction.screens[bi].role == Role::Launcher {
                continue;
            }
            let (Some(from), Some(to), Some(root)) =
                (position(&abstraction.screens[ai].id), position(&abstraction.screens[bi].id), &b.root)
            else {
                continue;
            };
            let m = Mapper { width: f64::from(a.width.max(1)), height: f64::from(a.height.max(1)) };
            let Some(placed) = best_match(&screens[from].widgets, &target.node, &m, &|_| true) else { continue };
            let handler = if long { &placed.on_long_press } else { &placed.on_tap };
            let Some(handler) = handler else { continue };
            // The row in the tapped place may show another item than the model's row there (a
            // contact above it had been deleted): the model's row with the tapped texts, or none.
            let tapped: Vec<String> = target
                .path
                .as_ref()
                .and_then(|p| a.root.as_ref()?.at(p))
                .map(|n| build(n, &m, None).iter().flat_map(labels).collect())
                .unwrap_or_default();
            let opens = screens[from].handlers.iter().any(|h| h.name == *handler && h.target == screens[to].id && !h.pops && !h.home);
            if !opens {
                continue;
            }
            openers.entry(to).or_default().insert((from, handler.clone()));
            let visit = built
                .entry((t, next_id.clone()))
                .or_insert_with(|| build(root, &Mapper { width: f64::from(b.width.max(1)), height: f64::from(b.height.max(1)) }, None));
            // The item is what the tapped row names that the next screen shows (a dish's name in
            // its row and in its "Add <dish>" button), whether or not the model has that row.
            if let Some(item) = named_item(&tapped, shown_texts(visit).iter()) {
                if counted.insert((to, format!("item:{item}"), t, next_id.clone())) {
                    seen_items.entry((to, item.clone())).or_default().push(visit.clone());
                }
            }
            let Some(row) = tapped_row(&screens[from].widgets, placed, handler, &tapped) else { continue };
            let key = row_key(&screens[from].id, &row.id);
            let labels_seen = tapped_at.entry((to, key.clone())).or_default();
            if !labels_seen.contains(&tapped) {
                labels_seen.push(tapped);
            }
            if counted.insert((to, key.clone(), t, next_id.clone())) {
                seen.entry((to, key)).or_default().push(visit.clone());
            }
        }
    }
    for (to, openers) in openers {
        let slot_list = slots(&screens[to].widgets);
        let default = example_texts(&slot_list);
        // A slot follows the opening widget (or item) only where every visit it opened agrees.
        let agreed_by = |seen: &BTreeMap<(usize, String), Vec<Vec<Widget>>>| -> BTreeMap<String, BTreeMap<String, String>> {
            seen.range((to, String::new())..(to + 1, String::new()))
                .map(|((_, key), visits)| (key.clone(), agreed(&slot_list, &default, visits)))
                .collect()
        };
        let mut variants = agreed_by(&seen);
        let items = agreed_by(&seen_items);
        if !variants.values().chain(items.values()).any(|v| *v != default) {
            continue;
        }
        // Rows never tapped: an observed row's texts with the labels swapped. The label is the
        // first of the row's description and texts that the screen it opened shows (a contact's
        // name, not the whole "Ada, missed call, 09:20" of a call log row).
        let observed: Vec<(String, usize, String, BTreeMap<String, String>)> = variants
            .iter()
            .filter_map(|(key, v)| {
                let (from, id) = key.split_once("__")?;
                let from = screens.iter().find(|s| s.id == from)?;
                let candidates = labels(find_widget(&from.widgets, id)?);
                let (at, label) = candidates
                    .into_iter()
                    .enumerate()
                    .find(|(_, l)| l.chars().count() >= MIN_LABEL && v.values().any(|text| text.contains(l.as_str())))?;
                Some((from.id.clone(), at, label, v.clone()))
            })
            .collect();
        for (from, handler) in &openers {
            let Some((_, at, base_label, base)) = observed.iter().find(|(f, ..)| *f == screens[*from].id) else { continue };
            for w in opening(&screens[*from].widgets, handler) {
                let key = row_key(&screens[*from].id, &w.id);
                if variants.contains_key(&key) {
                    continue;
                }
                let Some(l) = labels(w).into_iter().nth(*at).filter(|l| l.chars().count() >= MIN_LABEL) else { continue };
                let v = base.iter().map(|(slot, text)| (slot.clone(), text.replace(base_label.as_str(), &l))).collect();
                variants.insert(key, v);
            }
        }
        // Every widget that opens the screen names its item by these slots.
        let mut rows = BTreeMap::new();
        if !items.is_empty() {
            for (from, handler) in &openers {
                for w in opening(&screens[*from].widgets, handler) {
                    rows.insert(row_key(&screens[*from].id, &w.id), label_slots(w));
                }
            }
        }
        // Only slots that change are kept: the others stay literal in the layout.
        let changing: BTreeSet<String> = default
            .keys()
            .filter(|slot| variants.values().chain(items.values()).any(|v| v.get(*slot) != default.get(*slot)))
            .cloned()
            .collect();
        let keep = |m: BTreeMap<String, BTreeMap<String, String>>| -> BTreeMap<String, BTreeMap<String, String>> {
            m.into_iter()
                .map(|(key, v)| (key, v.into_iter().filter(|(slot, _)| changing.contains(slot)).collect()))
                .filter(|(_, v): &(String, BTreeMap<String, String>)| !v.is_empty())
                .collect()
        };
        let items = keep(items);
        // The item each row named on every visit, among the items the Lua picks from.
        let named = tapped_at
            .range((to, String::new())..(to + 1, String::new()))
            .filter_map(|((_, key), visits)| {
                let first = named_item(&visits[0], items.keys())?;
                visits.iter().all(|tapped| named_item(tapped, items.keys()) == Some(first)).then(|| (key.clone(), first.clone()))
            })
            .collect();
        screens[to].shown = Some(Shown {
            default: default.into_iter().filter(|(slot, _)| changing.contains(slot)).collect(),
            variants: keep(variants),
            items,
            named,
            rows,
            selection: None,
        });
    }
}

/// What the visits opened by one row (or naming one item) show in each slot: their text where
/// every visit agrees, the example's where they do not (a Sign in button opens the same screen
/// each time, and the balances there change with the app's data, not with the button).
fn agreed(slot_list: &[(String, &Widget, bool)], default: &BTreeMap<String, String>, visits: &[Vec<Widget>]) -> BTreeMap<String, String> {
    let filled: Vec<BTreeMap<String, String>> = visits.iter().map(|v| fill(slot_list, v)).collect();
    default
        .iter()
        .map(|(slot, text)| {
            let first = filled[0].get(slot);
            let same = filled.iter().all(|f| f.get(slot) == first);
            (slot.clone(), if same { first.cloned().unwrap_or_default() } else { text.clone() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::widgets::from_target;
    use crate::trace::UiNode;

    fn cell(name: &str, handler: &str) -> Widget {
        let mut w = from_target(&UiNode::default(), &Mapper { width: 1.0, height: 1.0 });
        (w.id, w.content_desc, w.on_tap) = (name.to_lowercase(), format!("{name}, favorite"), Some(handler.to_owned()));
        w
    }

    #[test]
    fn a_tap_belongs_to_the_widget_showing_the_tapped_texts() {
        let grid = vec![cell("David", "open"), cell("Grace", "open"), cell("Carlos", "other")];
        let tapped = |name: &str| vec![format!("{name}, favorite")];
        // The same item as in the model's place.
        assert_eq!(tapped_row(&grid, &grid[0], "open", &tapped("David")).map(|w| w.id.as_str()), Some("david"));
        // Another item the model shows elsewhere, opened by the same handler.
        assert_eq!(tapped_row(&grid, &grid[0], "open", &tapped("Grace")).map(|w| w.id.as_str()), Some("grace"));
        // An item the model has no widget for (or only one that opens something else): no row.
        assert!(tapped_row(&grid, &grid[0], "open", &tapped("Daniela")).is_none());
        assert!(tapped_row(&grid, &grid[0], "open", &tapped("Carlos")).is_none());
        // Nothing to compare: the widget in the tapped place.
        assert_eq!(tapped_row(&grid, &grid[0], "open", &[]).map(|w| w.id.as_str()), Some("david"));
    }

    #[test]
    fn a_row_names_the_item_its_labels_are_else_the_first_whole_words_they_hold() {
        let items: Vec<String> = ["Golden Wok", "$1.99 delivery", "Lamb Biryani", "Lamb", "Naan", "Ada"].map(String::from).to_vec();
        let named = |row: &[&str]| {
            let row: Vec<String> = row.iter().map(|l| (*l).to_owned()).collect();
            named_item(&row, items.iter()).cloned()
        };
        // A whole label wins over items inside an earlier label.
        assert_eq!(named(&["Lamb Biryani, $18.00", "Lamb Biryani"]).as_deref(), Some("Lamb Biryani"));
        // Inside a label: the item that starts first, then the longest.
        assert_eq!(named(&["Golden Wok, Chinese, $1.99 delivery"]).as_deref(), Some("Golden Wok"));
        assert_eq!(named(&["Add Lamb Biryani"]).as_deref(), Some("Lamb Biryani"));
        // Whole words only: "Ada" is not in "Adam Smith"; the first label holding one decides.
        assert_eq!(named(&["Adam Smith", "Ada, missed call"]).as_deref(), Some("Ada"));
        assert_eq!(named(&["Garlic Naan, $3.50", "Lamb Biryani x2"]).as_deref(), Some("Naan"));
        assert_eq!(named(&["Adam Smith"]), None);
        assert_eq!(named(&[]), None);
    }
}
