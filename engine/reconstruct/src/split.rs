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

use crate::demo_tasks::write_demonstration_tasks;
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

/// Whether every success check of the held-back demonstration's own task holds on the phone
/// its replay left; `None` when the app rebuilt without it gives it no task.
fn verified(dir: &Path, id: &str, device: &Device) -> Result<Option<bool>, ReconError> {
    let file = dir.join(format!("{id}.ron"));
    if !file.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&file).map_err(|e| ReconError::io(&file, e))?;
    let template = phoneworld_tasks::parse_template(&file, &text).map_err(|e| ReconError::Input(e.to_string()))?;
    let params = phoneworld_tasks::Params::new();
    for check in &template.success {
        if !phoneworld_tasks::holds(check, device, &params).map_err(|e| ReconError::Input(format!("{}: {e}", file.display())))? {
            return Ok(Some(false));
        }
    }
    Ok(Some(true))
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
    let r = build(analysis, &scratch.0, &options)?;
    let catalog = phoneworld_phone::Catalog::load_default(std::slice::from_ref(&scratch.0))
        .map_err(|e| ReconError::Input(format!("{}: {e}", scratch.0.display())))?;
    let held_traces: Vec<Trace> = held.iter().map(|&i| traces[i].clone()).collect();
    let suite_dir = scratch.0.join("held-back-tasks");
    std::fs::create_dir_all(&suite_dir).map_err(|e| ReconError::io(&suite_dir, e))?;
    let (tasks, _) = write_demonstration_tasks(&r.model, &held_traces, &suite_dir)?;
    let mut rows = Vec::new();
    let (mut judged, mut succeeded, mut baseline, mut verified_count, mut with_task) = (0, 0, 0, 0, 0);
    for trace in &held_traces {
        let (report, device) = replay_to_end(&r.model, Arc::clone(&catalog), trace, false, None)?;
        let task = tasks.iter().find(|t| task_of(trace, &t.id));
        let passed = match task {
            Some(t) => verified(&suite_dir, &t.id, &device)?,
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

/// Whether a task written by `write_demonstration_tasks` is this trace's (named after its file).
fn task_of(trace: &Trace, id: &str) -> bool {
    let stem = Path::new(&trace.source).file_stem().map(|s| crate::abstraction::snake(&s.to_string_lossy())).unwrap_or_default();
    !stem.is_empty() && id.ends_with(&format!("_{stem}"))
}

/// Adds the split measure to the fidelity report the reconstruction wrote (`fidelity.json`
/// gets it as `split`, `fidelity.md` a table of the held-back traces).
pub(crate) fn write_report(out: &Path, split: &Value) -> Result<(), ReconError> {
    use std::fmt::Write as _;
    let json_file = out.join("fidelity.json");
    let text = std::fs::read_to_string(&json_file).map_err(|e| ReconError::io(&json_file, e))?;
    let mut report: Value = serde_json::from_str(&text).map_err(|e| ReconError::format(&json_file, e.to_string()))?;
    report["split"] = split.clone();
    std::fs::write(&json_file, serde_json::to_string_pretty(&report).unwrap_or_default()).map_err(|e| ReconError::io(&json_file, e))?;
    let pct = |v: &Value| v.as_f64().map(|f| format!("{:.1}%", f * 100.0)).unwrap_or_else(|| "n/a".into());
    let mut md = String::from("\n## Held back\n\n");
    let _ = writeln!(
        md,
        "Every other demonstration (or trace) held back, the app rebuilt from the other {}, and each held-back one replayed on it.\n",
        split["rebuilt_from"]
    );
    md.push_str("| held-back trace | judged | transition accuracy | baseline | own verifier |\n|---|---:|---:|---:|---|\n");
    for t in split["traces"].as_array().into_iter().flatten() {
        let verdict = match t["verified"].as_bool() {
            Some(true) => "passes",
            Some(false) => "fails",
            None => "no task",
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {verdict} |",
            t["trace"].as_str().unwrap_or(""),
            t["judged"],
            pct(&t["transition_accuracy"]),
            pct(&t["baseline"])
        );
    }
    let a = &split["aggregate"];
    let _ = writeln!(
        md,
        "| **all** | {} | **{}** | {} | {} of {} |",
        a["judged"],
        pct(&a["transition_accuracy"]),
        pct(&a["baseline"]),
        a["verified"],
        a["demonstrations"]
    );
    let md_file = out.join("fidelity.md");
    let mut text = std::fs::read_to_string(&md_file).map_err(|e| ReconError::io(&md_file, e))?;
    text.push_str(&md);
    std::fs::write(&md_file, text).map_err(|e| ReconError::io(&md_file, e))
}
