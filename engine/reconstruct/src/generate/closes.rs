//! A dialog's controls the traces never used do what a dialog's controls do: its buttons
//! (OK, Cancel) close it, and so does a choice in a list of choices without buttons (a
//! sort order, a theme), after choosing. The dialog closes onto the screen Back from it led
//! to most, else the screen that opened it most. A control the traces used keeps what they
//! showed; a choice in a dialog with buttons only chooses.

use std::collections::BTreeMap;

use super::model::Handler;
use super::remember::is_radio;
use super::widgets::{Widget, WidgetKind};
use crate::abstraction::{Abstraction, Role};
use crate::graph::UsageGraph;
use crate::trace::ScreenKind;

/// The screen a dialog closes onto: where Back from it led most, else where it was opened
/// from most (the first screen of equals).
fn beneath(abstraction: &Abstraction, graph: &UsageGraph, dialog: usize) -> Option<usize> {
    let mut tally: BTreeMap<usize, usize> = BTreeMap::new();
    for (to, e) in graph.out_edges(dialog) {
        if to != dialog && e.action == "key:back" {
            *tally.entry(to).or_default() += e.count;
        }
    }
    if tally.is_empty() {
        for from in (0..abstraction.screens.len()).filter(|&i| i != dialog && abstraction.screens[i].role == Role::App) {
            for (to, e) in graph.out_edges(from) {
                if to == dialog && e.action != "key:back" {
                    *tally.entry(from).or_default() += e.count;
                }
            }
        }
    }
    tally.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0))).map(|(to, _)| to)
}

/// Gives the unused buttons (and, without buttons, the unused choices) of dialog `index`
/// handlers closing it.
pub(super) fn untried_controls(
    abstraction: &Abstraction,
    graph: &UsageGraph,
    index: usize,
    widgets: &mut [Widget],
    handlers: &mut Vec<Handler>,
) {
    let abs = &abstraction.screens[index];
    if abs.kind != ScreenKind::Dialog || abs.role != Role::App {
        return;
    }
    let Some(under) = beneath(abstraction, graph, index) else { return };
    let mut buttons = false;
    for w in widgets.iter() {
        w.walk(&mut |w| buttons |= w.kind == WidgetKind::Button);
    }
    for w in widgets.iter_mut() {
        w.walk_mut(&mut |w| {
            let closes = w.kind == WidgetKind::Button || (!buttons && is_radio(w));
            if !closes || w.on_tap.is_some() || w.on_long_press.is_some() {
                return;
            }
            let name = format!("{}__{}", abs.id, w.id);
            if handlers.iter().any(|h| h.name == name) {
                return;
            }
            w.navigates_on_tap(&name);
            handlers.push(Handler {
                name,
                widget: w.id.clone(),
                target: abstraction.screens[under].id.clone(),
                home: abstraction.screens[under].role == Role::Launcher,
                pops: true,
                closes_dialog: true,
                ..Handler::default()
            });
        });
    }
}
