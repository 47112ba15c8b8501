//! How a control of one abstract screen reaches another: forward, back, home, or closing a
//! dialog on the way; and the gestures a widget was used with.

use super::model::Way;
use crate::abstraction::{Abstraction, Role};
use crate::graph::UsageGraph;
use crate::trace::ScreenKind;

/// How a widget was used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Gesture {
    Tap,
    LongPress,
    Type,
}

impl Gesture {
    pub(crate) fn of(action: &str) -> Option<Gesture> {
        match action {
            "tap" => Some(Gesture::Tap),
            "long_press" => Some(Gesture::LongPress),
            "type_text" => Some(Gesture::Type),
            _ => None,
        }
    }

    pub(crate) fn action(self) -> &'static str {
        match self {
            Gesture::Tap => "tap",
            Gesture::LongPress => "long_press",
            Gesture::Type => "type_text",
        }
    }

    /// What a handler's name ends with.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Gesture::Tap => "",
            Gesture::LongPress => "_long",
            Gesture::Type => "_typed",
        }
    }
}

pub(crate) fn navigation(abstraction: &Abstraction, graph: &UsageGraph, from: usize, to: usize, count: usize, typed: bool) -> Way {
    // Goes back when Back from here most often went to the same screen (an Up arrow);
    // a control leading where Back went only now and then goes forward.
    let back_counts =
        |t: usize| graph.out_edges(from).iter().filter(|(u, e)| *u == t && e.action == "key:back").map(|(_, e)| e.count).sum::<usize>();
    let back_to = graph.out_edges(from).iter().filter(|(_, e)| e.action == "key:back").map(|(t, _)| (back_counts(*t), *t)).max();
    // A dialog's control leading to a screen that opened the dialog (as often as the
    // control led there) closes it (OK, Cancel); leading to another screen of the app,
    // the dialog closes and the target takes its place. A dialog opening a dialog that
    // led back to it stacks (a picker over a form); another app's screen (a browser tab)
    // opens over the dialog.
    let from_dialog = abstraction.screens[from].kind == ScreenKind::Dialog && !typed;
    let to_dialog = abstraction.screens[to].kind == ScreenKind::Dialog;
    let opened: usize = graph
        .out_edges(to)
        .iter()
        .filter(|(u, e)| *u == from && e.action != "key:back" && Gesture::of(&e.action).is_some())
        .map(|(_, e)| e.count)
        .sum();
    let opened_it = opened > 0 && opened >= count;
    let pops = back_to.is_some_and(|(n, t)| t == to && n > 0) || (from_dialog && !to_dialog && opened_it);
    // Another app's screen that handed the app what it asked for (a file picker's Save), or a
    // menu whose item opened another app's screen, is gone once it led on: Back from where it
    // led never returned to it.
    let back_from_target: Vec<usize> =
        graph.out_edges(to).iter().filter(|(t, e)| e.action == "key:back" && *t != to).map(|(t, _)| *t).collect();
    let handed_back = (abstraction.screens[from].role == Role::Foreign || from_dialog)
        && !back_from_target.is_empty()
        && !back_from_target.contains(&from);
    Way {
        home: abstraction.screens[to].role == Role::Launcher,
        pops: pops && !typed,
        dismisses: !pops && ((from_dialog && closes_into(abstraction, graph, from, to)) || handed_back),
    }
}

/// Whether a dialog's control leading forward to `to` closes the dialog (`to` takes its place):
/// unless `to` is another app's screen (a browser tab opens over the dialog) or a dialog that
/// led back to this one (a picker stacks over a form).
pub(crate) fn closes_into(abstraction: &Abstraction, graph: &UsageGraph, from: usize, to: usize) -> bool {
    let stacks = abstraction.screens[to].kind == ScreenKind::Dialog && graph.out_edges(to).iter().any(|(u, _)| *u == from);
    abstraction.screens[to].role == Role::App && !stacks
}
