//! `reconstruct`, `graph`, `replay`: real GUI traces to a runnable mock app, its usage
//! graph, and how faithfully an app replays a trace.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use phoneworld_reconstruct::import::{import_all, TraceFormat};
use phoneworld_reconstruct::replay::replay_writing_frames;
use phoneworld_reconstruct::{analyze, fidelity_json, fidelity_markdown, reconstruct as run_reconstruct, ReconOptions};

/// The traces `reconstruct` and `graph` read, and how they group screens.
#[derive(clap::Args, Debug)]
pub(crate) struct TraceArgs {
    /// Trace folders or files (DroidBot, LlamaTouch, Rico, uiautomator + JSONL, PhoneWorld, canonical JSON).
    #[arg(required = true)]
    traces: Vec<PathBuf>,
    /// auto, droidbot, llamatouch, rico, uiautomator, phoneworld or canonical.
    #[arg(long, default_value = "auto")]
    format: String,
    /// The package to reconstruct (default: the one the traces use most).
    #[arg(long)]
    package: Option<String>,
    /// Minimum structural similarity (0..1) for two screens to merge.
    #[arg(long, default_value_t = 0.5)]
    tolerance: f64,
}

impl TraceArgs {
    fn options(&self) -> Result<ReconOptions> {
        Ok(ReconOptions {
            format: TraceFormat::parse(&self.format)?,
            package: self.package.clone(),
            tolerance: self.tolerance,
            ..ReconOptions::default()
        })
    }
}

fn pct(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

pub(crate) fn reconstruct(args: &TraceArgs, out: &Path, force: bool, as_json: bool) -> Result<ExitCode> {
    // The library refuses an `--out` that is a file, or a folder of other files than an
    // earlier reconstruction (unless forced), before reading any trace.
    let options = ReconOptions { overwrite: force, ..args.options()? };
    let r = run_reconstruct(&args.traces, out, &options)?;
    let summary = r.summary();
    if as_json {
        out!("{summary}");
        return Ok(ExitCode::SUCCESS);
    }
    // Screenshots that could not be used: the app was built without them.
    for warning in r.warnings() {
        eprintln!("warning: {warning}");
    }
    let f = &summary["fidelity"];
    out!("{} ({}) -> {}", r.model.label, r.model.package, out.display());
    out!(
        "  {} screens ({} hash-only), {} edges, entry `{}`",
        r.model.screens.len(),
        summary["hash_only_screens"],
        r.analysis.graph.graph.edge_count(),
        r.model.entry
    );
    out!("  {} files, {} tasks in suite `{}` (verifiers/{})", r.files.len(), r.tasks.len(), r.suite, r.suite);
    for d in &r.dropped {
        out!("  dropped {}: {}", d["screen"].as_str().unwrap_or(""), d["reason"].as_str().unwrap_or(""));
    }
    out!(
        "  fidelity: transition_accuracy {} (nothing-changes baseline {}), screen_coverage {}, element_recall {}, visual_similarity {}",
        pct(f["transition_accuracy"].as_f64().unwrap_or(0.0)),
        pct(f["baseline"]["transition_accuracy"].as_f64().unwrap_or(0.0)),
        pct(f["screen_coverage"].as_f64().unwrap_or(0.0)),
        pct(f["element_recall"].as_f64().unwrap_or(0.0)),
        f["visual_similarity"].as_f64().map(pct).unwrap_or_else(|| "n/a".into()),
    );
    out!("  report: {}", out.join("fidelity.md").display());
    out!(
        "  try: phoneworld check {0} && phoneworld eval --apps-dir {0} --suite-dir {1} --suite {2} --agent oracle",
        out.display(),
        out.join("verifiers").display(),
        r.suite
    );
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn graph(args: &TraceArgs, out: &Path, as_json: bool) -> Result<ExitCode> {
    let analysis = analyze(&args.traces, &args.options()?)?;
    let text = match out.extension().and_then(|e| e.to_str()) {
        Some("dot") => analysis.graph.to_dot(),
        Some("json") => serde_json::to_string_pretty(&analysis.graph.to_json())?,
        _ => bail!("--out {}: write FILE.dot or FILE.json", out.display()),
    };
    std::fs::write(out, text).with_context(|| format!("writing {}", out.display()))?;
    let (screens, edges) = (analysis.graph.graph.node_count(), analysis.graph.graph.edge_count());
    if as_json {
        out!("{}", serde_json::json!({ "out": out, "app": analysis.abstraction.package, "screens": screens, "edges": edges }));
    } else {
        out!("{screens} screens, {edges} edges ({}) -> {}", analysis.abstraction.package, out.display());
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn replay_traces(traces: &[PathBuf], format: &str, app: &Path, out_dir: Option<&Path>, as_json: bool) -> Result<ExitCode> {
    let format = TraceFormat::parse(format)?;
    let model = phoneworld_reconstruct::generate::AppModel::load(app)?;
    let catalog = phoneworld_phone::Catalog::load_default(&[app.to_path_buf()]).with_context(|| format!("loading {}", app.display()))?;
    if let Some((dir, err)) = catalog.broken.iter().find(|(d, _)| d.starts_with(app)) {
        bail!("{}: the app does not load: {err}", dir.display());
    }
    let mut reports = Vec::new();
    for (k, t) in traces.iter().enumerate() {
        for (j, trace) in import_all(t, format)?.iter().enumerate() {
            // One folder per trace: its number on the command line, and within a DroidTask
            // folder the number of the demonstration.
            let frames = out_dir.map(|d| d.join(format!("trace_{k}_{j}")));
            reports.push(replay_writing_frames(&model, std::sync::Arc::clone(&catalog), trace, true, frames.as_deref())?);
        }
    }
    let report = fidelity_json(&model, &reports);
    if as_json {
        out!("{report}");
    } else {
        for warning in reports.iter().flat_map(|r| &r.warnings) {
            eprintln!("warning: {warning}");
        }
        print!("{}", fidelity_markdown(&report));
    }
    Ok(ExitCode::SUCCESS)
}
