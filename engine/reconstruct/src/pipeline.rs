//! The whole reconstruction: import, abstract, graph, generate the app and its tasks,
//! replay every source trace, and write the fidelity report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use phoneworld_phone::Catalog;
use serde_json::{json, Value};

use crate::abstraction::{is_launcher_package, snake, Abstraction, Role, ScreenMap};
use crate::demo_tasks::{keep_proven, write_demonstration_tasks};
use crate::error::ReconError;
use crate::generate::{check_output, model, write_app, AppModel, GenOptions};
use crate::graph::UsageGraph;
use crate::import::{import_all, TraceFormat};
use crate::replay::{ratio, replay_with, FidelityReport};
use crate::report::fidelity_markdown;
use crate::tasks::{write_tasks, TaskSummary};
use crate::trace::{ScreenKind, Trace, TraceAction};

/// Seeds each generated task is proven with before it is kept.
const PROOF_SEEDS: u64 = 3;

/// How to reconstruct.
#[derive(Debug, Clone)]
pub struct ReconOptions {
    /// `None` detects each trace's format.
    pub format: Option<TraceFormat>,
    /// The app to reconstruct; `None` takes the package the traces spend most steps in.
    pub package: Option<String>,
    /// Minimum structural similarity for two concrete screens to be one screen (0..1).
    pub tolerance: f64,
    /// How many of the most used screens are built with every widget.
    pub full_screens: usize,
    /// At most this many navigation tasks and this many input tasks.
    pub max_tasks: usize,
    /// Compare rendered screens with the traces' screenshots.
    pub visual: bool,
    /// Write into an output folder that holds other files than an earlier reconstruction
    /// (`--force`); they may be replaced or removed.
    pub overwrite: bool,
}

impl Default for ReconOptions {
    fn default() -> Self {
        ReconOptions { format: None, package: None, tolerance: 0.5, full_screens: 40, max_tasks: 8, visual: true, overwrite: false }
    }
}

/// Traces, their abstract screens and the usage graph.
#[derive(Debug, Clone)]
pub struct Analysis {
    pub traces: Vec<Trace>,
    pub abstraction: Abstraction,
    pub maps: Vec<ScreenMap>,
    pub graph: UsageGraph,
}

/// What a reconstruction produced.
#[derive(Debug, Clone)]
pub struct Reconstruction {
    pub analysis: Analysis,
    pub model: AppModel,
    pub out: PathBuf,
    pub files: Vec<String>,
    pub suite: String,
    pub tasks: Vec<TaskSummary>,
    /// Tasks not written (a demonstration the rebuilt app cannot follow) or taken out again
    /// (`verify` found a problem), and why.
    pub tasks_left_out: Vec<Value>,
    pub fidelity: Vec<FidelityReport>,
    /// Concrete screens not in the app, and why.
    pub dropped: Vec<Value>,
    /// Held-back demonstrations replayed on an app rebuilt without them (`split::measure`).
    pub split: Option<Value>,
}

const SYSTEM_PACKAGES: [&str; 4] =
    ["android", "com.android.systemui", "com.android.permissioncontroller", "com.google.android.permissioncontroller"];

/// The package the traces spend most steps in (not the launcher, not system windows).
fn main_package(traces: &[Trace]) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for t in traces {
        for s in &t.steps {
            if let Some(screen) = t.screens.get(&s.screen) {
                let p = screen.package.as_str();
                if !p.is_empty() && !is_launcher_package(p) && !SYSTEM_PACKAGES.contains(&p) {
                    *counts.entry(p).or_default() += 1;
                }
            }
        }
    }
    counts.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0))).map(|(p, _)| p.to_owned())
}

/// The app's name: what the launcher icon that opened it said, else from the package.
fn app_label(traces: &[Trace], package: &str) -> String {
    for t in traces {
        for s in &t.steps {
            let from = t.screens.get(&s.screen);
            let to = s.next.as_ref().and_then(|n| t.screens.get(n));
            if to.is_none_or(|to| to.package != package) {
                continue;
            }
            if let TraceAction::OpenApp { app } = &s.action {
                if !app.contains('.') && !app.trim().is_empty() {
                    return app.trim().to_owned();
                }
            }
            if from.is_some_and(|f| is_launcher_package(&f.package)) {
                // An icon, not a button of one of the launcher's dialogs (`Cancel`).
                if let Some(t) = s.target.as_ref().filter(|t| !t.node.class.ends_with("Button")) {
                    let name = if t.node.text.is_empty() { &t.node.content_desc } else { &t.node.text };
                    if !name.trim().is_empty() && name.len() < 40 {
                        return name.trim().to_owned();
                    }
                }
            }
        }
    }
    // Words that name no app (`contacts.pro` is Contacts).
    const GENERIC: [&str; 14] = ["com", "org", "net", "io", "android", "app", "apps", "mobile", "www", "de", "pro", "lite", "free", "beta"];
    let word = package.split('.').rev().find(|w| !GENERIC.contains(w)).unwrap_or(package);
    let name = snake(word).replace('_', " ");
    let mut chars = name.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_else(|| "App".into())
}

/// Imports the traces and builds the abstraction and the usage graph.
pub fn analyze(paths: &[PathBuf], options: &ReconOptions) -> Result<Analysis, ReconError> {
    if paths.is_empty() {
        return Err(ReconError::Input("no trace given".into()));
    }
    let mut traces: Vec<Trace> = Vec::new();
    for p in paths {
        traces.extend(import_all(p, options.format)?);
    }
    analyze_traces(traces, options)
}

/// The abstraction and the usage graph of traces already imported.
pub fn analyze_traces(traces: Vec<Trace>, options: &ReconOptions) -> Result<Analysis, ReconError> {
    let package = match &options.package {
        Some(p) => p.clone(),
        None => main_package(&traces).ok_or_else(|| {
            ReconError::Input("the traces show no app screen (every screen is the launcher or unsaved); name the app with --package".into())
        })?,
    };
    if !(0.0..=1.0).contains(&options.tolerance) {
        return Err(ReconError::Input(format!("tolerance {}: expected a value between 0 and 1", options.tolerance)));
    }
    let mut abstraction = Abstraction::new(&package, options.tolerance);
    abstraction.find_frame(&traces);
    let mut maps: Vec<ScreenMap> = traces.iter().enumerate().map(|(i, t)| abstraction.add_trace(i, t)).collect::<Result<_, _>>()?;
    abstraction.settle(&traces, &mut maps);
    abstraction.merge_scrolled(&traces, &mut maps);
    abstraction.name_screens();
    let graph = UsageGraph::build(&abstraction, &traces, &maps);
    Ok(Analysis { traces, abstraction, maps, graph })
}

/// Foreign screens that neither are reached from the app's screens nor lead into them are
/// dropped from the app. One that leads in stays: a trace may begin in the camera or a picker
/// the app had opened before the recording started.
fn drop_unreachable(analysis: &mut Analysis) -> Vec<Value> {
    let abs = &analysis.abstraction;
    let mut reachable = vec![false; abs.screens.len()];
    let mut stack: Vec<usize> = (0..abs.screens.len()).filter(|&i| abs.screens[i].role == Role::App).collect();
    for &i in &stack {
        reachable[i] = true;
    }
    while let Some(i) = stack.pop() {
        for (to, _) in analysis.graph.out_edges(i) {
            if !reachable[to] && abs.screens[to].role == Role::Foreign {
                reachable[to] = true;
                stack.push(to);
            }
        }
    }
    // Then the foreign screens that lead to a kept one, until none is added.
    let mut grew = true;
    while grew {
        grew = false;
        for i in 0..abs.screens.len() {
            if !reachable[i] && abs.screens[i].role == Role::Foreign && analysis.graph.out_edges(i).iter().any(|(to, _)| reachable[*to]) {
                reachable[i] = true;
                grew = true;
            }
        }
    }
    let mut dropped = Vec::new();
    for (i, s) in abs.screens.iter().enumerate() {
        if s.role == Role::Foreign && !reachable[i] {
            dropped.push(
                json!({ "screen": s.id, "package": s.package, "visits": s.visits, "reason": "another app, never reached from the app nor leading to it" }),
            );
        }
    }
    let keep: Vec<bool> = abs.screens.iter().enumerate().map(|(i, s)| s.role != Role::Foreign || reachable[i]).collect();
    if keep.iter().all(|k| *k) {
        return dropped;
    }
    // Rebuild without the dropped screens so indices stay dense.
    let mut abstraction = analysis.abstraction.clone();
    abstraction.screens = abstraction.screens.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(s, _)| s).collect();
    let maps: Vec<ScreenMap> = analysis
        .traces
        .iter()
        .enumerate()
        .map(|(t, trace)| trace.screens.values().filter_map(|s| abstraction.classify(t, s).map(|i| (s.id.clone(), i))).collect())
        .collect();
    analysis.graph = UsageGraph::build(&abstraction, &analysis.traces, &maps);
    analysis.abstraction = abstraction;
    analysis.maps = maps;
    dropped
}

/// Reconstructs an app from traces into `out` and measures it against the traces.
pub fn reconstruct(paths: &[PathBuf], out: &Path, options: &ReconOptions) -> Result<Reconstruction, ReconError> {
    check_output(out, options.overwrite)?;
    let analysis = analyze(paths, options)?;
    let split = crate::split::measure(&analysis.traces, &analysis.abstraction.package, options)?;
    build(analysis, out, options, split)
}

/// Generates, writes, proves and measures the app of analysed traces; the split measure, when
/// there is one, goes into the fidelity report beside self-replay.
pub(crate) fn build(
    mut analysis: Analysis,
    out: &Path,
    options: &ReconOptions,
    split: Option<Value>,
) -> Result<Reconstruction, ReconError> {
    let dropped = drop_unreachable(&mut analysis);
    let package = analysis.abstraction.package.clone();
    let mut label = app_label(&analysis.traces, &package);
    let bundled = Catalog::load_default(&[]).map_err(|e| ReconError::Input(format!("loading the bundled apps: {e}")))?;
    if bundled.apps.iter().any(|a| a.label().eq_ignore_ascii_case(&label) && a.package() != package) {
        label = format!("{label} (reconstructed)");
    }
    let gen = GenOptions { package: package.clone(), label, full_screens: options.full_screens };
    let model = model(&analysis.abstraction, &analysis.graph, &analysis.traces, &gen);
    if model.screens.iter().all(|s| s.role != Role::App) {
        return Err(ReconError::Input(format!("no screen of {package} was found in the traces")));
    }
    let mut files = write_app(&model, &analysis.traces, out)?;
    let slug = package.rsplit('.').next().map(snake).unwrap_or_default();
    let suite = format!("{}-reconstructed", if slug.is_empty() { "app".to_owned() } else { slug.replace('_', "-") });
    let suite_dir = out.join("verifiers").join(&suite);
    let mut tasks = write_tasks(&model, &analysis.traces, &suite_dir, options.max_tasks)?;
    let (demonstrations, mut tasks_left_out) = write_demonstration_tasks(&model, &analysis.traces, &suite_dir)?;
    tasks.extend(demonstrations);
    let catalog = Catalog::load_default(&[out.to_path_buf()]).map_err(|e| ReconError::Input(format!("{}: {e}", out.display())))?;
    if let Some((dir, err)) = catalog.broken.iter().find(|(d, _)| d.starts_with(out)) {
        return Err(ReconError::Input(format!("{}: the generated app does not load: {err}", dir.display())));
    }
    keep_proven(std::sync::Arc::clone(&catalog), &suite_dir, &mut tasks, &mut tasks_left_out, PROOF_SEEDS)?;
    files.extend(tasks.iter().map(|t| format!("verifiers/{suite}/{}.ron", t.id)));
    let graph_json = serde_json::to_string_pretty(&analysis.graph.to_json()).unwrap_or_default();
    for (rel, text) in [("graph.json", graph_json), ("graph.dot", analysis.graph.to_dot())] {
        std::fs::write(out.join(rel), text).map_err(|e| ReconError::io(&out.join(rel), e))?;
        files.push(rel.to_owned());
    }
    let fidelity: Vec<FidelityReport> = analysis
        .traces
        .iter()
        .map(|t| replay_with(&model, std::sync::Arc::clone(&catalog), t, options.visual))
        .collect::<Result<_, _>>()?;
    let mut report = fidelity_json(&model, &fidelity);
    if let Some(split) = &split {
        report["split"] = split.clone();
    }
    std::fs::write(out.join("fidelity.json"), serde_json::to_string_pretty(&report).unwrap_or_default())
        .map_err(|e| ReconError::io(&out.join("fidelity.json"), e))?;
    std::fs::write(out.join("fidelity.md"), fidelity_markdown(&report)).map_err(|e| ReconError::io(&out.join("fidelity.md"), e))?;
    files.push("fidelity.json".into());
    files.push("fidelity.md".into());
    Ok(Reconstruction { analysis, model, out: out.to_path_buf(), files, suite, tasks, tasks_left_out, fidelity, dropped, split })
}

/// The revisit measure over several replays (`memory`).
fn memory_json(reproduced: usize, changed_revisits: usize) -> Value {
    let share = if changed_revisits == 0 { Value::Null } else { json!(ratio(reproduced, changed_revisits)) };
    json!({ "changed_revisits": changed_revisits, "reproduced": reproduced, "share": share })
}

/// The fidelity report of several traces: each trace and the aggregate.
pub fn fidelity_json(model: &AppModel, reports: &[FidelityReport]) -> Value {
    let sum = |f: &dyn Fn(&FidelityReport) -> usize| reports.iter().map(f).sum::<usize>();
    let judged = sum(&|r| r.judged);
    let visual: Vec<f64> = reports.iter().filter_map(|r| r.visual_similarity).collect();
    json!({
        "app": model.package,
        "label": model.label,
        "aggregate": {
            "traces": reports.len(),
            "steps": sum(&|r| r.steps),
            "judged": judged,
            "transition_accuracy": ratio(sum(&|r| r.succeeded), judged),
            "screen_coverage": ratio(sum(&|r| r.screens_reached), sum(&|r| r.screens_in_trace)),
            "element_recall": ratio(sum(&|r| r.elements_matched), sum(&|r| r.elements_total)),
            "visual_similarity": if visual.is_empty() { Value::Null } else { json!((visual.iter().sum::<f64>() / visual.len() as f64 * 10_000.0).round() / 10_000.0) },
            "baseline": { "transition_accuracy": ratio(sum(&|r| r.baseline.succeeded), judged) },
            "memory": memory_json(sum(&|r| r.memory.reproduced), sum(&|r| r.memory.changed_revisits)),
            "script_errors": sum(&|r| r.script_errors),
        },
        "traces": reports,
    })
}

impl Reconstruction {
    /// What could not be used and was left out (screenshots that do not decode), once each.
    pub fn warnings(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for w in self.model.warnings.iter().chain(self.fidelity.iter().flat_map(|f| &f.warnings)) {
            if !out.contains(w) {
                out.push(w.clone());
            }
        }
        out
    }

    /// The `--json` summary: screens, edges, files, tasks, fidelity.
    pub fn summary(&self) -> Value {
        let screens: Vec<Value> = self
            .model
            .screens
            .iter()
            .map(
                |s| json!({ "id": s.id, "role": s.role, "kind": s.kind, "visits": s.visits, "full": s.full, "handlers": s.handlers.len() }),
            )
            .collect();
        let hash_only = self.model.screens.iter().filter(|s| s.kind == ScreenKind::HashOnly).count();
        let report = fidelity_json(&self.model, &self.fidelity);
        json!({
            "app": self.model.package,
            "label": self.model.label,
            "out": self.out,
            "entry": self.model.entry,
            "screens": screens,
            "screen_count": self.model.screens.len(),
            "hash_only_screens": hash_only,
            "edges": self.analysis.graph.to_json()["edges"],
            "unreproduced_edges": self.model.unreproduced_edges,
            "dropped": self.dropped,
            "files": self.files,
            "suite": self.suite,
            "tasks": self.tasks,
            "tasks_left_out": self.tasks_left_out,
            "fidelity": report["aggregate"],
            "split": self.split,
            "warnings": self.warnings(),
            "notes": self.analysis.traces.iter().map(|t| json!({ "trace": t.source, "notes": t.notes })).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Screen, Target, TraceStep, UiNode};

    /// A trace that enters `package` from the launcher by tapping `node`.
    fn entered_by(node: UiNode, package: &str) -> Trace {
        let mut t = Trace::new("droidbot", Path::new("/nonexistent"));
        let root =
            |package: &str| Some(UiNode { package: package.to_owned(), ..UiNode::new("android.widget.FrameLayout", [0, 0, 1080, 2400]) });
        t.screens.insert("home".into(), Screen::from_root("home", "com.android.launcher3", "", 1080, 2400, root("com.android.launcher3")));
        t.screens.insert("main".into(), Screen::from_root("main", package, "", 1080, 2400, root(package)));
        let target = Some(Target { path: None, node });
        t.steps.push(TraceStep {
            screen: "home".into(),
            action: TraceAction::Tap { x: 500.0, y: 1500.0 },
            target,
            next: Some("main".into()),
        });
        t
    }

    #[test]
    fn the_label_is_the_launcher_icons_not_a_launcher_dialogs_button_nor_a_word_like_pro() {
        let package = "com.simplemobiletools.notes.pro";
        let icon = UiNode { text: "Notebook".into(), ..UiNode::new("android.widget.TextView", [400, 1400, 600, 1600]) };
        assert_eq!(app_label(&[entered_by(icon, package)], package), "Notebook");
        let cancel = UiNode { text: "Cancel".into(), ..UiNode::new("android.widget.Button", [400, 1400, 600, 1600]) };
        assert_eq!(app_label(&[entered_by(cancel, package)], package), "Notes");
    }
}
