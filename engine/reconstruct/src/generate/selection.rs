//! Content that follows a screen's own checkable controls: a results screen whose category
//! chips, price and rating filters stay on the screen shows other results for each choice.
//! Every visit of the screen gives the set of controls it had on and what it showed; the
//! generated Lua shows, after a control changed, what the visits with the most alike set showed.

use std::collections::{BTreeMap, BTreeSet};

use super::model::{ScreenModel, Selection, Shown, Texts};
use super::shown::{example_texts, same_place, shown_in, slots};
use super::widgets::{best_match, build, Mapper, Widget};
use crate::abstraction::Abstraction;
use crate::trace::{Trace, TraceAction};

impl Selection {
    /// The handler name the screen's checkable controls call when they change.
    pub(crate) fn handler(screen: &str) -> String {
        format!("{screen}__checked_changed")
    }
}

/// The screen's checkable controls outside lists (a control in a list row belongs to that
/// row's item, an alarm's switch) that lead nowhere else (those keep their own handler).
fn checkable_controls(widgets: &[Widget]) -> Vec<&Widget> {
    fn collect<'w>(widgets: &'w [Widget], out: &mut Vec<&'w Widget>) {
        for w in widgets {
            if w.is_toggle() && w.on_tap.is_none() && w.on_change.is_none() {
                out.push(w);
            }
            if !w.list {
                collect(&w.children, out);
            }
        }
    }
    let mut out = Vec::new();
    collect(widgets, &mut out);
    out
}

/// The ids of a visit's checkable controls that were on, by the model's checkable controls it
/// shows in the same place (same kind and resource id); none when it lacks one of them (the
/// panel holding them was scrolled away or closed).
fn checked_in(checkable: &[&Widget], visit: &[Widget]) -> Option<BTreeSet<String>> {
    let mut on = BTreeSet::new();
    for w in checkable {
        let mut found = None;
        for v in visit {
            v.walk(&mut |v| {
                if found.is_none() && same_place(v, w) && v.kind == w.kind && v.resource_id == w.resource_id {
                    found = Some(v.checked);
                }
            });
        }
        if found? {
            on.insert(w.id.clone());
        }
    }
    Some(on)
}

/// The slots that a tap on one of the checkable controls changed, where the screen stayed
/// (the results under a filter chip, a total under a shipping choice; not the product a size
/// chip belongs to, which the chip does not change).
fn changed_by_taps(
    widgets: &[Widget],
    checkable: &[&Widget],
    slot_list: &[(String, &Widget, bool)],
    abstraction: &Abstraction,
    traces: &[Trace],
    screen: usize,
) -> BTreeSet<String> {
    let mut changed = BTreeSet::new();
    for (t, trace) in traces.iter().enumerate() {
        for step in &trace.steps {
            let (TraceAction::Tap { .. }, Some(target), Some(next)) = (&step.action, &step.target, &step.next) else { continue };
            let (Some(a), Some(b)) = (trace.screens.get(&step.screen), trace.screens.get(next)) else { continue };
            if abstraction.classify(t, a) != Some(screen) || abstraction.classify(t, b) != Some(screen) {
                continue;
            }
            let m = Mapper { width: f64::from(a.width.max(1)), height: f64::from(a.height.max(1)) };
            let tapped = best_match(widgets, &target.node, &m, &|_| true);
            let (Some(ra), Some(rb)) = (&a.root, &b.root) else { continue };
            if !tapped.is_some_and(|t| checkable.iter().any(|w| w.id == t.id)) {
                continue;
            }
            let mb = Mapper { width: f64::from(b.width.max(1)), height: f64::from(b.height.max(1)) };
            let (before, after) = (shown_in(slot_list, &build(ra, &m, None)), shown_in(slot_list, &build(rb, &mb, None)));
            changed.extend(slot_list.iter().map(|(slot, ..)| slot).filter(|slot| before.get(*slot) != after.get(*slot)).cloned());
        }
    }
    changed
}

/// Groups of the controls `ids` side by side in one container.
fn groups(widgets: &[Widget], ids: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for w in widgets {
        w.walk(&mut |w| {
            let ids: Vec<String> = w.children.iter().filter(|c| ids.contains(&c.id)).map(|c| c.id.clone()).collect();
            if ids.len() >= 2 {
                out.push(ids);
            }
        });
    }
    out
}

/// Per control of each group that is one choice, the others of its group: every set seen on
/// had exactly one of the group on, and two of them were on at least once each (a category's
/// chips, not a column of independent switches, nor a group only ever seen one way).
fn choices(groups: Vec<Vec<String>>, seen_on: &[&BTreeSet<String>]) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for group in groups {
        let on_in = |on: &BTreeSet<String>| group.iter().filter(|id| on.contains(*id)).cloned().collect::<Vec<_>>();
        let one_each_time = seen_on.iter().all(|on| on_in(on).len() == 1);
        let chosen: BTreeSet<String> = seen_on.iter().flat_map(|on| on_in(on)).collect();
        if one_each_time && chosen.len() >= 2 {
            for id in &group {
                out.insert(id.clone(), group.iter().filter(|o| *o != id).cloned().collect());
            }
        }
    }
    out
}

/// What most of `filled` showed, whole (the first seen of equals): visits with the same
/// controls on may differ in more (a query typed, a sort order), and slots taken from
/// different visits would show a list no visit showed.
fn most_shown(filled: &[Texts]) -> Texts {
    let mut counts: Vec<(&Texts, usize)> = Vec::new();
    for f in filled {
        match counts.iter_mut().find(|(seen, _)| *seen == f) {
            Some((_, n)) => *n += 1,
            None => counts.push((f, 1)),
        }
    }
    let most = counts.iter().map(|(_, n)| *n).max().unwrap_or(0);
    counts.into_iter().find(|(_, n)| *n == most).map(|(f, _)| f.clone()).unwrap_or_default()
}

/// Finds, for every screen whose checkable controls the traces changed while staying on it,
/// what it showed with each set of them on, and adds the slots that follow them to its
/// `shown` content.
pub(crate) fn follow_checked(screens: &mut [ScreenModel], abstraction: &Abstraction, traces: &[Trace]) {
    for screen in screens.iter_mut() {
        let Some(index) = abstraction.screens.iter().position(|a| a.id == screen.id) else { continue };
        let abs = &abstraction.screens[index];
        let checkable = checkable_controls(&screen.widgets);
        if checkable.len() < 2 {
            continue;
        }
        let slot_list = slots(&screen.widgets);
        let follows = changed_by_taps(&screen.widgets, &checkable, &slot_list, abstraction, traces, index);
        if follows.is_empty() {
            continue;
        }
        let mut seen: Vec<(BTreeSet<String>, Vec<Texts>)> = Vec::new();
        for (t, id) in &abs.members {
            let Some(s) = traces.get(*t).and_then(|t| t.screens.get(id)) else { continue };
            let Some(root) = &s.root else { continue };
            let m = Mapper { width: f64::from(s.width.max(1)), height: f64::from(s.height.max(1)) };
            let visit = build(root, &m, None);
            let Some(on) = checked_in(&checkable, &visit) else { continue };
            let mut shown = shown_in(&slot_list, &visit);
            let filled: Texts = follows.iter().map(|slot| (slot.clone(), shown.remove(slot).unwrap_or_default())).collect();
            match seen.iter_mut().find(|(o, _)| *o == on) {
                Some((_, visits)) => visits.push(filled),
                None => seen.push((on, vec![filled])),
            }
        }
        if seen.len() < 2 {
            continue;
        }
        let mut states: Vec<(BTreeSet<String>, Texts)> = seen.iter().map(|(on, filled)| (on.clone(), most_shown(filled))).collect();
        let example = example_texts(&slot_list);
        let changing: BTreeSet<String> =
            follows.into_iter().filter(|slot| states.iter().any(|(_, s)| s.get(slot) != example.get(slot))).collect();
        if changing.is_empty() {
            continue;
        }
        let ids: Vec<String> = checkable.iter().map(|w| w.id.clone()).collect();
        let seen_on: Vec<&BTreeSet<String>> = seen.iter().map(|(on, _)| on).collect();
        let choices = choices(groups(&screen.widgets, &ids), &seen_on);
        for (_, texts) in &mut states {
            texts.retain(|slot, _| changing.contains(slot));
        }
        let shown = screen.shown.get_or_insert_with(Shown::default);
        shown.extend_slots(&changing, &example);
        shown.selection = Some(Selection { checkable: ids.clone(), choices, slots: changing, states });
        let handler = Selection::handler(&screen.id);
        for w in screen.widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                if ids.contains(&w.id) {
                    w.on_change = Some(handler.clone());
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_one_choice_only_where_one_of_them_was_on_each_time() {
        let set = |ids: &[&str]| ids.iter().map(|id| (*id).to_owned()).collect::<BTreeSet<String>>();
        let group = |ids: &[&str]| ids.iter().map(|id| (*id).to_owned()).collect::<Vec<String>>();
        let seen = [set(&["all", "wifi"]), set(&["home", "wifi", "bluetooth"]), set(&["home"])];
        let seen_on: Vec<&BTreeSet<String>> = seen.iter().collect();
        let found = choices(vec![group(&["all", "home", "tech"]), group(&["wifi", "bluetooth"])], &seen_on);
        // The category chips: one on each time, two of them seen on.
        assert_eq!(found.get("home"), Some(&group(&["all", "tech"])));
        // The switches were both on once, and none on once: independent.
        assert!(!found.contains_key("wifi"));
        // A group only ever seen one way is not known to be one choice.
        let same = [set(&["all"]), set(&["all"])];
        assert!(choices(vec![group(&["all", "home"])], &same.iter().collect::<Vec<_>>()).is_empty());
    }

    #[test]
    fn a_selection_shows_what_most_of_its_visits_showed_whole() {
        let visit =
            |name: &str, price: &str| BTreeMap::from([("name".to_owned(), name.to_owned()), ("price".to_owned(), price.to_owned())]);
        let shown = most_shown(&[visit("Mug", "$32"), visit("Kettle", "$64"), visit("Kettle", "$64")]);
        assert_eq!(shown, visit("Kettle", "$64"));
        // All different: the first seen, never a mix of slots from several.
        assert_eq!(most_shown(&[visit("Mug", "$32"), visit("Kettle", "$64"), visit("Tee", "$32")]), visit("Mug", "$32"));
    }
}
