//! The split measure: how the rebuilt app generalises beyond what it was built from.
//!
//! Every other demonstration (a trace with an instruction) is held back; the app is rebuilt
//! from the rest (a recording keeps its steps except the transitions only held-back
//! demonstrations made, so it cannot leak them), and each held-back demonstration is replayed
//! on it: its transition accuracy beside the nothing-changes baseline, and whether what the
//! person did satisfies the verifier of their own task on the app rebuilt without them.
//! Traces without instructions are split the same way, every other trace held back.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use phoneworld_phone::Device;
use serde_json::{json, Value};

use crate::demo_tasks::{demonstration_id, write_demonstration_tasks};
use crate::error::ReconError;
use crate::pipeline::{analyze_traces, build, ReconOptions};
use crate::replay::{ratio, replay_to_end};
use crate::trace::Trace;

/// Which traces are held back: every other demonstration when there are two or more, else
/// every other trace when there are two or more, else none.
fn held_back(traces: &[Trace]) -> Vec<usize> {
    let demos: Vec<usize> = (0..traces.len()).filter(|&i| traces[i].instruction.is_some()).collect();
    let pool: Vec<usize> = if demos.len() >= 2 { demos } else { (0..traces.len()).collect() };
    if pool.len() < 2 {
        return Vec::new();
    }
    pool.into_iter().skip(1).step_by(2).collect()
}

/// The transitions `(screen, next)` a trace makes.
fn transitions(trace: &Trace) -> BTreeSet<(String, String)> {
    trace.steps.iter().filter_map(|s| Some((s.screen.clone(), s.next.clone()?))).collect()
}

/// A scratch folder for the app rebuilt without the held-back traces, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        Scratch(std::env::temp_dir().join(format!("phoneworld-split-{}-{n}", std::process::id())))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether every success check of the held-back demonstration's own task (its file, as the
/// app rebuilt without it words it) holds on the phone its replay left.
fn verified(file: &Path, device: &Device) -> Result<bool, ReconError> {
    let text = std::fs::read_to_string(file).map_err(|e| ReconError::io(file, e))?;
    let template = phoneworld_tasks::parse_template(file, &text).map_err(|e| ReconError::Input(e.to_string()))?;
    let params = phoneworld_tasks::Params::new();
    for check in &template.success {
        if !phoneworld_tasks::holds(check, device, &params).map_err(|e| ReconError::Input(format!("{}: {e}", file.display())))? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Rebuilds without the held-back traces and replays them on it; `None` when there is
/// nothing to hold back (a single trace).
pub(crate) fn measure(traces: &[Trace], package: &str, options: &ReconOptions) -> Result<Option<Value>, ReconError> {
    let held = held_back(traces);
    if held.is_empty() {
        return Ok(None);
    }
    let is_held = |i: usize| held.contains(&i);
    let held_moves: BTreeSet<(String, String)> = held.iter().flat_map(|&i| transitions(&traces[i])).collect();
    let kept_moves: BTreeSet<(String, String)> =
        (0..traces.len()).filter(|&i| !is_held(i) && traces[i].instruction.is_some()).flat_map(|i| transitions(&traces[i])).collect();
    let mut kept = Vec::new();
    for (i, t) in traces.iter().enumerate() {
        if is_held(i) {
            continue;
        }
        let mut t = t.clone();
        if t.instruction.is_none() && traces[held[0]].instruction.is_some() {
            // The recording holds the held-back demonstrations' own steps: what only they did goes.
            t.steps.retain(|s| {
                s.next.as_ref().is_none_or(|n| {
                    let m = (s.screen.clone(), n.clone());
                    !held_moves.contains(&m) || kept_moves.contains(&m)
                })
            });
        }
        kept.push(t);
    }
    let scratch = Scratch::new();
    let options = ReconOptions { package: Some(package.to_owned()), visual: false, overwrite: true, ..options.clone() };
    let analysis = analyze_traces(kept, &options)?;
    let r = build(analysis, &scratch.0, &options, None)?;
    let catalog = phoneworld_phone::Catalog::load_default(std::slice::from_ref(&scratch.0))
        .map_err(|e| ReconError::Input(format!("{}: {e}", scratch.0.display())))?;
    let held_traces: Vec<Trace> = held.iter().map(|&i| traces[i].clone()).collect();
    let suite_dir = scratch.0.join("held-back-tasks");
    std::fs::create_dir_all(&suite_dir).map_err(|e| ReconError::io(&suite_dir, e))?;
    let (tasks, _) = write_demonstration_tasks(&r.model, &held_traces, &suite_dir)?;
    let mut rows = Vec::new();
    let (mut judged, mut succeeded, mut baseline, mut verified_count, mut with_task) = (0, 0, 0, 0, 0);
    for (k, trace) in held_traces.iter().enumerate() {
        let (report, device) = replay_to_end(&r.model, Arc::clone(&catalog), trace, false, None)?;
        let id = demonstration_id(&r.model, k, trace);
        let passed = match tasks.iter().find(|t| t.id == id) {
            Some(t) => Some(verified(Path::new(&t.file), &device)?),
            None => None,
        };
        judged += report.judged;
        succeeded += report.succeeded;
        baseline += report.baseline.succeeded;
        if trace.instruction.is_some() {
            with_task += 1;
            verified_count += usize::from(passed == Some(true));
        }
        rows.push(json!({
            "trace": trace.source,
            "instruction": trace.instruction,
            "judged": report.judged,
            "transition_accuracy": report.transition_accuracy,
            "baseline": report.baseline.transition_accuracy,
            "verified": passed,
            // Each step that went elsewhere on the app rebuilt without it: where it was, what it
            // did, where the person went and where the app did.
            "missed": report.per_step.iter().filter(|d| d.ok == Some(false)).map(|d| json!({
                "step": d.step, "action": d.action, "from": d.from, "expected": d.expected, "landed": d.landed,
            })).collect::<Vec<_>>(),
        }));
    }
    Ok(Some(json!({
        "held_back": held.len(),
        "rebuilt_from": traces.len() - held.len(),
        "aggregate": {
            "judged": judged,
            "transition_accuracy": ratio(succeeded, judged),
            "baseline": ratio(baseline, judged),
            "demonstrations": with_task,
            "verified": verified_count,
        },
        "traces": rows,
    })))
}
