//! A control the traces never used on one screen does what the same control did on the other
//! screens of its activity: the overflow button of a toolbar every tab shares opens the same
//! menu whichever tab shows it. Only where every screen that used it agrees, and never in a
//! dialog (a dialog's buttons are its own).

use std::collections::{BTreeMap, BTreeSet};

use super::model::{Handler, ScreenModel};
use super::widgets::Widget;
use crate::abstraction::Role;
use crate::trace::ScreenKind;

/// What makes a control the same control on another screen of its activity: the same id,
/// description and text (one floating button says "Create new contact" on one tab and
/// "Create group" on another); `None` for a control that says nothing (an id alone is a
/// layout's, shared by rows and steps that do different things).
fn identity(w: &Widget) -> Option<String> {
    let says = !w.content_desc.trim().is_empty() || !w.text.trim().is_empty();
    says.then(|| format!("{}|{}|{}", w.resource_id, w.content_desc, w.text))
}

/// The ids of the widgets inside a list: a row's controls are the row's item's, not the screen's.
fn in_lists(widgets: &[Widget]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for w in widgets {
        w.walk(&mut |w| {
            if w.list {
                for c in &w.children {
                    c.walk(&mut |d| {
                        out.insert(d.id.clone());
                    });
                }
            }
        });
    }
    out
}

/// What a tap did: where it led and how.
type Effect = (String, bool, bool, bool);

/// Lends the taps of controls to the same controls unused on the other screens of their
/// activity, where every screen that used them agrees on what they do.
pub(super) fn lend_taps(screens: &mut [ScreenModel]) {
    let eligible = |s: &ScreenModel| s.role == Role::App && s.kind != ScreenKind::Dialog && !s.activity.is_empty();
    // (activity, control) -> what its taps did, and the first screen where it did it.
    let mut seen: BTreeMap<(String, String), (BTreeSet<Effect>, String, usize)> = BTreeMap::new();
    for s in screens.iter().filter(|s| eligible(s)) {
        let listed = in_lists(&s.widgets);
        for h in s.handlers.iter().filter(|h| h.plain_move()) {
            let mut key = None;
            for w in &s.widgets {
                w.walk(&mut |w| {
                    if w.id == h.widget && w.on_tap.as_ref() == Some(&h.name) && !listed.contains(&w.id) {
                        key = identity(w);
                    }
                });
            }
            let Some(key) = key else { continue };
            let entry = seen.entry((s.activity.clone(), key)).or_insert_with(|| (BTreeSet::new(), s.id.clone(), h.count));
            entry.0.insert((h.target.clone(), h.home, h.pops, h.dismisses));
        }
    }
    for s in screens.iter_mut().filter(|s| eligible(s) && s.moves_on.is_none()) {
        let listed = in_lists(&s.widgets);
        let mut lent = Vec::new();
        for w in s.widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                if !w.unused_control() || listed.contains(&w.id) {
                    return;
                }
                let Some(key) = identity(w) else { return };
                let Some((effects, from, count)) = seen.get(&(s.activity.clone(), key)) else { return };
                let [(target, home, pops, dismisses)] = effects.iter().collect::<Vec<_>>()[..] else { return };
                if *from == s.id || *target == s.id {
                    return;
                }
                let name = format!("{}__{}", s.id, w.id);
                if s.handlers.iter().any(|h| h.name == name) {
                    return;
                }
                w.navigates_on_tap(&name);
                lent.push(Handler {
                    name,
                    widget: w.id.clone(),
                    target: target.clone(),
                    home: *home,
                    pops: *pops,
                    dismisses: *dismisses,
                    count: *count,
                    like: Some(from.clone()),
                    ..Handler::default()
                });
            });
        }
        s.handlers.extend(lent);
    }
}
