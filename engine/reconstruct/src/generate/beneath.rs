//! Screens a trace never captured, found beneath the screen a control opened by where Back
//! went from it. A recorder that keeps a screen now and then (Rico keeps one per gesture the
//! person made on it) may show a menu, then a Support page, and Back from Support showing
//! Settings: the person had opened Settings and Support from it in between. The control that
//! led from the menu then opens the screens Back went through beneath its target, so Back in
//! the rebuilt app goes where it went in the trace. The same holds where the screens Back
//! showed had been seen before: a dialer whose End call closes it onto the contact it called
//! from, then Back onto the list, or a theme switch that recreates its screen and Back leaving
//! it; the control then opens them beneath its target so Back shows what it showed.

use std::collections::BTreeMap;

use super::model::{ScreenModel, Way};
use super::remember::Sightings;
use super::routes::handler_run;
use crate::abstraction::{Abstraction, Role};
use crate::trace::{Trace, TraceAction, TraceStep};

/// The abstract screens a step went from and to.
fn moved(seen_as: &Sightings<'_>, t: usize, trace: &Trace, step: &TraceStep) -> Option<(usize, usize)> {
    let here = trace.screens.get(&step.screen)?;
    let next = trace.screens.get(step.next.as_ref()?)?;
    Some((seen_as.index(t, here)?, seen_as.index(t, next)?))
}

fn is_back(step: &TraceStep) -> bool {
    matches!(&step.action, TraceAction::Key { key } if key == "back")
}

/// The screens Back showed in turn from `to`, which a step led to from `from` (the `steps`
/// after it), before it showed `from`, the phone's home screen or a screen it had shown: what
/// the app had beneath `to`, the first shown first.
fn revealed(
    seen_as: &Sightings<'_>,
    abstraction: &Abstraction,
    t: usize,
    trace: &Trace,
    steps: &[TraceStep],
    (from, to): (usize, usize),
) -> Vec<usize> {
    let mut hidden = Vec::new();
    let mut top = to;
    for step in steps {
        if !is_back(step) {
            break;
        }
        let Some((on, shown)) = moved(seen_as, t, trace, step) else { break };
        let known = shown == from || shown == to || shown == top || hidden.contains(&shown);
        if on != top || known || abstraction.screens[shown].role == Role::Launcher {
            break;
        }
        hidden.push(shown);
        top = shown;
    }
    hidden
}

/// The screen and handler a tap of `step` ran on the rebuilt screen, when that handler pushes
/// the screen the step led to.
fn plain_push(
    model_of: &BTreeMap<&str, &ScreenModel>,
    abstraction: &Abstraction,
    trace: &Trace,
    step: &TraceStep,
    (from, to): (usize, usize),
) -> Option<(String, String)> {
    let screen = model_of.get(abstraction.screens[from].id.as_str())?;
    let here = trace.screens.get(&step.screen)?;
    let name = handler_run(screen, step, (here.width, here.height))?;
    let pushes = screen.handlers.iter().any(|h| h.name == name && h.target == abstraction.screens[to].id && h.way() == Way::default());
    pushes.then(|| (screen.id.clone(), name))
}

/// Sets `Handler::beneath` of each control that, most times it led on, had screens revealed
/// beneath its target.
pub(super) fn learn(screens: &mut [ScreenModel], seen_as: &Sightings<'_>, abstraction: &Abstraction, traces: &[Trace]) {
    // Per (screen, handler): how often each run of screens was revealed beneath its target.
    let mut seen: BTreeMap<(String, String), BTreeMap<Vec<usize>, usize>> = BTreeMap::new();
    {
        let model_of: BTreeMap<&str, &ScreenModel> = screens.iter().map(|s| (s.id.as_str(), s)).collect();
        for (t, trace) in traces.iter().enumerate() {
            for (i, step) in trace.steps.iter().enumerate() {
                let Some((from, to)) = moved(seen_as, t, trace, step).filter(|(from, to)| from != to) else { continue };
                if let Some((screen, name)) = plain_push(&model_of, abstraction, trace, step, (from, to)) {
                    let hidden = revealed(seen_as, abstraction, t, trace, &trace.steps[i + 1..], (from, to));
                    *seen.entry((screen, name)).or_default().entry(hidden).or_default() += 1;
                }
            }
        }
    }
    for ((screen_id, name), runs) in seen {
        let most = runs.values().copied().max().unwrap_or(0);
        let mut tops = runs.iter().filter(|(_, &n)| n == most);
        // A tie between two readings keeps the control as it was.
        let (Some((hidden, _)), None) = (tops.next(), tops.next()) else { continue };
        let Some(h) = screens.iter_mut().find(|s| s.id == screen_id).and_then(|s| s.handlers.iter_mut().find(|h| h.name == name)) else {
            continue;
        };
        h.beneath = hidden.iter().rev().map(|&i| abstraction.screens[i].id.clone()).collect();
    }
}
