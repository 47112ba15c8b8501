//! Controls whose target follows the way their screen was opened. One confirmation dialog may
//! ask before deleting a note (opened by the menu's "Delete note") and before leaving a setting
//! (opened by a settings row): its first button then closes onto the notes in one case and
//! opens the settings in the other. A menu whose rows follow the screen that opened it (a
//! checklist's menu has two rows more) has another item at the same place. For every control
//! that led to more than one screen, the traces tell which control had opened its screen each
//! time; where that tells its targets apart better than its most frequent target alone, it
//! leads, after each such opener, where it most often led after it. The opener travels with
//! the screen it opened (`ev.params.opener`), so Back to the screen keeps it.
//!
//! Where no opener tells a control's targets apart, a box of its screen may: a new note's
//! dialog whose OK opens a checklist when "Checklist" is checked and a text note otherwise.
//! The boxes each run showed checked are read off the visit it was tapped on.

use std::collections::{BTreeMap, BTreeSet};

use super::model::{CheckedRoute, Route, ScreenModel, Way};
use super::remember::Sightings;
use super::ways::closes_into;
use super::widgets::{best_match, checked_in, Mapper, Widget};
use crate::abstraction::{Abstraction, Role};
use crate::graph::UsageGraph;
use crate::trace::{ScreenKind, Trace, TraceAction};

/// A handler that opened a screen, and the abstract screen it is on.
type Opener = (String, usize);

/// One time a control led away: the handler that had opened its screen (if the trace showed
/// one), the abstract screen it led to, and the state keys of its screen's boxes checked then.
struct Run {
    opener: Option<Opener>,
    to: usize,
    checked: BTreeSet<String>,
}

/// Per (screen, handler): each time it led away.
type Runs = BTreeMap<(String, String), Vec<Run>>;

/// The state keys of the boxes of `screen` the visit `root` shows checked.
fn checked_boxes(screen: &ScreenModel, root: Option<&crate::trace::UiNode>, size: (u32, u32)) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let Some(root) = root else { return keys };
    let m = Mapper::for_size(size);
    for w in &screen.widgets {
        w.walk(&mut |w| {
            if let (true, Some(key)) = (w.is_toggle(), &w.state_key) {
                if checked_in(w, root, &m) == Some(true) {
                    keys.insert(key.clone());
                }
            }
        });
    }
    keys
}

/// The handler of `screen` that a tap or long press on `step`'s target runs on the rebuilt
/// screen, if any (`ScreenModel::handler_at_centre`).
pub(super) fn handler_run(screen: &ScreenModel, step: &crate::trace::TraceStep, size: (u32, u32)) -> Option<String> {
    let long = matches!(step.action, TraceAction::LongPress { .. });
    if !long && !matches!(step.action, TraceAction::Tap { .. }) {
        return None;
    }
    let m = Mapper::for_size(size);
    let handler_of = |w: &Widget| if long { w.on_long_press.is_some() } else { w.on_tap.is_some() };
    let aimed = best_match(&screen.widgets, &step.target.as_ref()?.node, &m, &handler_of)?;
    ScreenModel::handler_at_centre(aimed, long).filter(|name| screen.handlers.iter().any(|h| h.name == *name))
}

fn runs(screens: &[ScreenModel], seen_as: &Sightings<'_>, abstraction: &Abstraction, traces: &[Trace]) -> Runs {
    let model_of: BTreeMap<&str, &ScreenModel> = screens.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut runs = Runs::new();
    for (t, trace) in traces.iter().enumerate() {
        // Each abstract screen's opener, as of the trace's latest step.
        let mut opener_of: BTreeMap<usize, Opener> = BTreeMap::new();
        for step in &trace.steps {
            let (Some(here), Some(next)) = (trace.screens.get(&step.screen), step.next.as_ref().and_then(|n| trace.screens.get(n))) else {
                continue;
            };
            let (Some(from), Some(to)) = (seen_as.index(t, here), seen_as.index(t, next)) else { continue };
            if from == to {
                continue;
            }
            let screen = model_of.get(abstraction.screens[from].id.as_str());
            match screen.and_then(|s| handler_run(s, step, (here.width, here.height)).map(|name| (s, name))) {
                Some((screen, name)) => {
                    let checked = checked_boxes(screen, here.root.as_ref(), (here.width, here.height));
                    let run = Run { opener: opener_of.get(&from).cloned(), to, checked };
                    runs.entry((abstraction.screens[from].id.clone(), name.clone())).or_default().push(run);
                    // A control going back (Cancel, Up) returns to a screen as it was opened.
                    let back = screen.handlers.iter().any(|h| h.name == name && h.pops) || opener_of.get(&from).is_some_and(|o| o.1 == to);
                    if !back {
                        opener_of.insert(to, (name, from));
                    }
                }
                // Back returns to a screen as it was opened; anything else opens it anew.
                None if matches!(&step.action, TraceAction::Key { key } if key == "back") => {}
                None => {
                    opener_of.remove(&to);
                }
            }
        }
    }
    runs
}

/// Gives each control whose target the opener of its screen tells better its routes.
pub(super) fn learn(screens: &mut [ScreenModel], seen_as: &Sightings<'_>, abstraction: &Abstraction, graph: &UsageGraph, traces: &[Trace]) {
    let runs = runs(screens, seen_as, abstraction, traces);
    for screen in screens.iter_mut() {
        let Some(from) = abstraction.index_of(&screen.id) else { continue };
        for h in screen.handlers.iter_mut() {
            if h.alternatives.is_empty() || h.typed || h.stays || h.selects_first.is_some() || !h.requires.is_empty() {
                continue;
            }
            let (Some(seen), Some(usual)) = (runs.get(&(screen.id.clone(), h.name.clone())), abstraction.index_of(&h.target)) else {
                continue;
            };
            let mut by_opener: BTreeMap<&Opener, BTreeMap<usize, usize>> = BTreeMap::new();
            for run in seen {
                if let Some(opener) = &run.opener {
                    *by_opener.entry(opener).or_default().entry(run.to).or_default() += 1;
                }
            }
            let mut routes = Vec::new();
            for ((opener, opener_screen), targets) in by_opener {
                let usual_count = targets.get(&usual).copied().unwrap_or(0);
                // The most frequent target, the first screen of equals.
                let Some((&to, &count)) = targets.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) else { continue };
                if count > usual_count {
                    // Back to the screen that opened this one; else forward, closing a dialog
                    // as the usual way would (the stack under it is not the usual one).
                    let pops = to == *opener_screen;
                    let dialog = abstraction.screens[from].kind == ScreenKind::Dialog;
                    let way = Way {
                        home: abstraction.screens[to].role == Role::Launcher,
                        pops,
                        dismisses: dialog && !pops && closes_into(abstraction, graph, from, to),
                    };
                    routes.push(Route { opener: opener.clone(), target: abstraction.screens[to].id.clone(), count, way });
                }
            }
            if routes.is_empty() {
                h.when_checked = checked_route(seen, usual).map(|(key, to, count)| {
                    let dialog = abstraction.screens[from].kind == ScreenKind::Dialog;
                    let way = Way {
                        home: abstraction.screens[to].role == Role::Launcher,
                        pops: false,
                        dismisses: dialog && closes_into(abstraction, graph, from, to),
                    };
                    CheckedRoute { key, target: abstraction.screens[to].id.clone(), count, way }
                });
            }
            h.routes = routes;
        }
    }
}

/// The box whose state tells a control's targets apart: with it checked, the control led
/// somewhere else than `usual` more often than to `usual`, and with it unchecked, to `usual`
/// at least as often as anywhere. Its key, that target and how often; the box explaining the
/// most runs, the first key of equals.
fn checked_route(runs: &[Run], usual: usize) -> Option<(String, usize, usize)> {
    let keys: BTreeSet<&String> = runs.iter().flat_map(|r| &r.checked).collect();
    let mut best: Option<(String, usize, usize)> = None;
    for key in keys {
        let (mut with, mut without): (BTreeMap<usize, usize>, BTreeMap<usize, usize>) = Default::default();
        for r in runs {
            *if r.checked.contains(key) { &mut with } else { &mut without }.entry(r.to).or_default() += 1;
        }
        let Some((&to, &count)) = with.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) else { continue };
        let usual_without = without.get(&usual).copied().unwrap_or(0);
        let explains = to != usual
            && count > with.get(&usual).copied().unwrap_or(0)
            && without.values().all(|&n| n <= usual_without)
            && without.get(&to).copied().unwrap_or(0) < usual_without.max(1);
        if explains && best.as_ref().is_none_or(|b| count > b.2) {
            best = Some((key.clone(), to, count));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(to: usize, checked: &[&str]) -> Run {
        Run { opener: None, to, checked: checked.iter().map(|k| k.to_string()).collect() }
    }

    #[test]
    fn a_box_checked_each_time_a_control_led_elsewhere_routes_it() {
        // A new note's OK: a text note (screen 1) three times, a checklist (screen 2) once.
        let (text, checklist) = (1, 2);
        let runs = [run(text, &["type_text"]), run(text, &["type_text"]), run(checklist, &["type_checklist"]), run(text, &["type_text"])];
        assert_eq!(checked_route(&runs, text), Some(("type_checklist".to_owned(), checklist, 1)));
        // A box checked whatever happened tells nothing.
        let runs = [run(text, &["autosave"]), run(checklist, &["autosave"]), run(text, &["autosave"])];
        assert_eq!(checked_route(&runs, text), None);
        // Nor one checked as often on the usual way as on the other.
        let runs = [run(text, &["wrap"]), run(checklist, &["wrap"]), run(text, &[])];
        assert_eq!(checked_route(&runs, text), None);
    }
}
