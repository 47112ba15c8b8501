//! Tabs: a screen is one abstract screen per selected tab (`abstraction::selected_tab`), and
//! every tab of a tab bar leads to the screen of its tab, whether or not the traces tapped it
//! there. A person switches tabs from any tab; the traces show only some of those switches.

use std::collections::BTreeMap;

use super::model::{Handler, ScreenModel};
use super::widgets::Widget;
use crate::abstraction::Abstraction;
use crate::memory::norm;

/// Gives each tab of a tabbed screen that leads nowhere yet a handler to its tab's screen: the
/// widget holding the label (its parent when that is the tab's box, so a tap on the icon works
/// too).
pub(super) fn link_tabs(screens: &mut [ScreenModel], abstraction: &Abstraction) {
    // (activity, tab label) → the screen showing that tab selected.
    let mut tab_screens: BTreeMap<(String, String), String> = BTreeMap::new();
    for a in abstraction.screens.iter().filter(|a| !a.tab.is_empty()) {
        tab_screens.entry((a.activity.clone(), norm(&a.tab))).or_insert_with(|| a.id.clone());
    }
    if tab_screens.len() < 2 {
        return;
    }
    for screen in screens.iter_mut() {
        let Some(own_tab) = abstraction.screens.iter().find(|a| a.id == screen.id).map(|a| norm(&a.tab)).filter(|t| !t.is_empty()) else {
            continue;
        };
        let mut links: Vec<(String, String)> = Vec::new();
        for w in &screen.widgets {
            tab_boxes(w, None, &mut |tab_box: &Widget, label: &str| {
                let target = tab_screens.get(&(screen.activity.clone(), label.to_owned()));
                if let Some(target) = target.filter(|_| label != own_tab && tab_box.on_tap.is_none()) {
                    links.push((tab_box.id.clone(), target.clone()));
                }
            });
        }
        for (widget, target) in links {
            let name = format!("{}__{widget}", screen.id);
            if screen.handlers.iter().any(|h| h.name == name) {
                continue;
            }
            for w in &mut screen.widgets {
                w.walk_mut(&mut |w| {
                    if w.id == widget {
                        w.on_tap = Some(name.clone());
                    }
                });
            }
            screen.handlers.push(Handler { name, widget, target, ..Handler::default() });
        }
    }
}

/// Whether a widget's class or resource id says it is (part of) a tab.
fn names_a_tab(w: &Widget) -> bool {
    let class = w.class.rsplit('.').next().unwrap_or("");
    let id = w.resource_id.rsplit('/').next().unwrap_or("");
    class.to_ascii_lowercase().contains("tab") || id.to_ascii_lowercase().contains("tab")
}

/// Calls `f(tab box, label)` for each tab label no tap leads on from: the box is the label's
/// parent when the parent holds nothing but the label and an icon (a tab's box), else the label.
/// A label is a text widget that, or whose parent, names a tab.
fn tab_boxes<'w>(w: &'w Widget, parent: Option<&'w Widget>, f: &mut dyn FnMut(&'w Widget, &str)) {
    let label = norm(&w.text);
    if w.children.is_empty() && !label.is_empty() && (names_a_tab(w) || parent.is_some_and(names_a_tab)) {
        let boxed = parent.filter(|p| p.children.len() <= 2 && p.children.iter().all(|c| c.children.is_empty()));
        let tapped_already = w.on_tap.is_some() || boxed.is_some_and(|p| p.on_tap.is_some());
        if !tapped_already {
            f(boxed.unwrap_or(w), &label);
        }
    }
    for c in &w.children {
        tab_boxes(c, Some(w), f);
    }
}
