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
/// "Create group" on another); `None` for a control with none of them.
fn identity(w: &Widget) -> Option<String> {
    let parts = [&w.resource_id, &w.content_desc, &w.text];
    parts.iter().any(|p| !p.trim().is_empty()).then(|| format!("{}|{}|{}", parts[0], parts[1], parts[2]))
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
        for h in s.handlers.iter().filter(|h| !h.typed && !h.long_press && h.like.is_none() && !h.titled) {
            let mut key = None;
            for w in &s.widgets {
                w.walk(&mut |w| {
                    if w.id == h.widget && w.on_tap.as_ref() == Some(&h.name) {
                        key = identity(w);
                    }
                });
            }
            let Some(key) = key else { continue };
            let entry = seen.entry((s.activity.clone(), key)).or_insert_with(|| (BTreeSet::new(), s.id.clone(), h.count));
            entry.0.insert((h.target.clone(), h.home, h.pops, h.dismisses));
        }
    }
    for s in screens.iter_mut().filter(|s| eligible(s)) {
        let mut lent = Vec::new();
        for w in s.widgets.iter_mut() {
            w.walk_mut(&mut |w| {
                if !w.unused_control() {
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
