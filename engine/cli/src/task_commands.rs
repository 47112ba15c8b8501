//! `tasks`, `eval`, `verify`: the task suite from the command line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use phoneworld_phone::{project_root, InterruptionSetting};
use phoneworld_tasks::{evaluate_each, rollouts_each, verify_suite_each, write_run_report, AgentKind, Instance, Suite};
use serde_json::json;

use crate::commands::catalog;
use crate::progress::Progress;

fn load_suite(apps_dirs: &[PathBuf], suite_dirs: &[PathBuf], name: &str) -> Result<(std::sync::Arc<phoneworld_phone::Catalog>, Suite)> {
    let catalog = catalog(apps_dirs)?;
    let mut dirs = vec![project_root().join("verifiers")];
    dirs.extend(suite_dirs.iter().cloned());
    let suite = Suite::find(name, &dirs, &catalog).context("loading the suite")?;
    Ok((catalog, suite))
}

pub(crate) fn tasks(apps_dirs: &[PathBuf], suite_dirs: &[PathBuf], name: &str, markdown: bool, as_json: bool) -> Result<ExitCode> {
    let (catalog, suite) = load_suite(apps_dirs, suite_dirs, name)?;
    if markdown {
        print!("{}", phoneworld_tasks::catalog_markdown(catalog, &suite)?);
        return Ok(ExitCode::SUCCESS);
    }
    let mut rows = Vec::new();
    let mut instances = 0;
    let mut by_category = std::collections::BTreeMap::<&str, usize>::new();
    for t in &suite.templates {
        let example = Instance::new(t.clone(), 0, &catalog)?;
        // At most 100 per template, so one wide numeric range cannot pad the count.
        let distinct = phoneworld_tasks::distinct_instances(t, &catalog, 100);
        instances += distinct;
        *by_category.entry(t.category.name()).or_default() += 1;
        rows.push(json!({
            "id": t.id, "category": t.category.name(), "apps": t.apps, "difficulty": t.difficulty,
            "skills": t.skills, "max_steps": t.max_steps, "instruction": t.instruction, "example": example.instruction,
            "instances": distinct,
        }));
    }
    if as_json {
        let summary = json!({
            "suite": suite.name, "suite_hash": suite.hash, "count": rows.len(), "by_category": by_category,
            "instances": instances, "tasks": rows,
        });
        out!("{summary}");
    } else {
        for r in &rows {
            out!(
                "{:<36} {:<9} {}",
                r["id"].as_str().unwrap_or(""),
                r["category"].as_str().unwrap_or(""),
                r["example"].as_str().unwrap_or("")
            );
        }
        out!("{} templates {by_category:?}, {instances} distinct instances (at most 100 counted per template)", rows.len());
    }
    Ok(ExitCode::SUCCESS)
}

/// Episodes of a run over every template for `seeds` seeds (for a progress bar's length).
fn episodes(suite: &Suite, seeds: u64) -> usize {
    suite.templates.len().saturating_mul(usize::try_from(seeds).unwrap_or(usize::MAX))
}

/// The options of `phoneworld eval`.
pub(crate) struct EvalArgs<'a> {
    pub name: &'a str,
    pub agent: &'a str,
    pub seeds: u64,
    pub out_dir: Option<&'a Path>,
    pub appearance: Option<&'a str>,
    pub min_success: Option<f64>,
    pub interruptions: &'a InterruptionSetting,
    pub report: Option<&'a Path>,
}

/// A folder for one run's trajectories that is gone when the run ends (`eval --report`
/// without `--out-dir`: the page needs the frames, the user did not ask to keep them).
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new() -> Result<ScratchDir> {
        let dir = std::env::temp_dir().join(format!("phoneworld-eval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(ScratchDir(dir))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the HTML page of the run in `run_dir` to `out`, and says so (on stderr under
/// `--json`, so stdout stays one JSON object).
fn write_page(run_dir: &Path, out: &Path, frame_width: u32, as_json: bool) -> Result<phoneworld_report::ReportSummary> {
    let options = phoneworld_report::ReportOptions { frame_width };
    let summary = phoneworld_report::write_report(run_dir, out, &options)?;
    let line = format!(
        "report: {} ({} episodes, {} with frames, {} steps, {} distinct frames, {:.1} MB)",
        out.display(),
        summary.episodes,
        summary.recorded,
        summary.steps,
        summary.distinct_frames,
        summary.bytes as f64 / 1e6
    );
    if as_json {
        eprintln!("{line}");
    } else {
        out!("{line}");
    }
    Ok(summary)
}

/// `phoneworld report RUN_DIR --out PAGE`.
pub(crate) fn report(run_dir: &Path, out: &Path, frame_width: u32, as_json: bool) -> Result<ExitCode> {
    if frame_width == 0 {
        bail!("--frame-width 0: frames need at least one pixel");
    }
    let summary = write_page(run_dir, out, frame_width, as_json)?;
    if as_json {
        out!(
            "{}",
            json!({ "out": out.display().to_string(), "episodes": summary.episodes, "recorded": summary.recorded, "steps": summary.steps, "distinct_frames": summary.distinct_frames, "bytes": summary.bytes })
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--appearance`: a comma-separated list of profiles, `random` and `all` (every profile),
/// each checked.
fn appearance_list(text: &str) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name == "all" {
            names.extend(phoneworld_phone::PROFILES.iter().map(|p| (*p).to_owned()));
            continue;
        }
        phoneworld_phone::Appearance::resolve(name, 0).with_context(|| format!("--appearance {text}"))?;
        names.push(name.to_owned());
    }
    if names.is_empty() {
        bail!("--appearance: name a profile, `random` or `all` (valid: {})", phoneworld_phone::appearance_names().join(", "));
    }
    Ok(names)
}

pub(crate) fn eval(apps_dirs: &[PathBuf], suite_dirs: &[PathBuf], args: &EvalArgs<'_>, as_json: bool) -> Result<ExitCode> {
    let &EvalArgs { name, agent, seeds, out_dir, appearance, min_success, interruptions, report: page } = args;
    let Some(agent) = AgentKind::parse(agent) else { bail!("--agent {agent}: expected oracle, noop, random or tree-only") };
    let appearances = appearance.map(appearance_list).transpose()?.unwrap_or_default();
    let (catalog, suite) = load_suite(apps_dirs, suite_dirs, name)?;
    let scratch = match (out_dir, page) {
        (None, Some(_)) => Some(ScratchDir::new()?),
        _ => None,
    };
    let out_dir = out_dir.or(scratch.as_ref().map(|s| s.0.as_path()));
    let mut progress = Progress::new(episodes(&suite, seeds) * appearances.len().max(1), "eval", as_json);
    let report = evaluate_each(catalog, &suite, agent, (seeds, &appearances), out_dir, interruptions, &mut |r| {
        progress.done(&r.category, r.success)
    })?;
    drop(progress);
    let report_json = serde_json::to_string(&report)?;
    if let Some(dir) = out_dir {
        write_run_report(dir, &report_json)?;
    }
    if as_json {
        out!("{report_json}");
    } else {
        out!("suite {} ({} templates x {} seeds), agent {}", report.suite, suite.templates.len(), seeds, report.agent);
        if !interruptions.is_off() {
            out!("interruptions: {interruptions}");
        }
        out!("{:<12} {:>9} {:>9}", "category", "episodes", "success");
        for (category, v) in &report.by_category {
            out!("{:<12} {:>9} {:>8.1}%", category, v["episodes"].as_u64().unwrap_or(0), v["success_rate"].as_f64().unwrap_or(0.0) * 100.0);
        }
        out!("{:<12} {:>9} {:>8.1}%", "all", report.episodes, report.success_rate * 100.0);
        for (look, v) in &report.by_appearance {
            out!(
                "{:<18} {:>9} {:>8.1}%",
                format!("appearance {look}"),
                v["episodes"].as_u64().unwrap_or(0),
                v["success_rate"].as_f64().unwrap_or(0.0) * 100.0
            );
        }
        for f in report.failures.iter().take(20) {
            out!(
                "  failed {} seed {} at step {}: {}",
                f["template"].as_str().unwrap_or(""),
                f["seed"],
                f["step"],
                f["reason"].as_str().unwrap_or("")
            );
        }
    }
    if let (Some(page), Some(dir)) = (page, out_dir) {
        write_page(dir, page, phoneworld_report::ReportOptions::default().frame_width, as_json)?;
    }
    let rates = std::iter::once(report.success_rate).chain(report.by_appearance.values().filter_map(|v| v["success_rate"].as_f64()));
    let lowest = rates.fold(f64::INFINITY, f64::min);
    if min_success.is_some_and(|min| lowest < min) {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn verify(
    apps_dirs: &[PathBuf],
    suite_dirs: &[PathBuf],
    name: &str,
    seeds: u64,
    as_json: bool,
    interruptions: &InterruptionSetting,
) -> Result<ExitCode> {
    let (catalog, suite) = load_suite(apps_dirs, suite_dirs, name)?;
    let mut progress = Progress::new(episodes(&suite, seeds), "verify", as_json);
    let problems = verify_suite_each(catalog, &suite, seeds, interruptions, &mut |category, ok| progress.done(category, ok))?;
    drop(progress);
    if as_json {
        out!(
            "{}",
            json!({ "suite": suite.name, "templates": suite.templates.len(), "seeds": seeds, "ok": problems.is_empty(), "problems": problems })
        );
    } else {
        for p in &problems {
            out!("{} seed {}: {}", p.template, p.seed, p.problem);
        }
        out!("{} templates x {seeds} seeds: {} problem(s)", suite.templates.len(), problems.len());
    }
    Ok(if problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

#[allow(clippy::too_many_arguments, reason = "one argument per command-line option")]
/// The arguments of `rollouts`.
pub(crate) struct Rollouts<'a> {
    pub suite: &'a str,
    pub seeds: u64,
    pub out_dir: &'a Path,
    pub detours: f64,
    pub image_format: &'a str,
    pub image_size: Option<&'a str>,
    pub appearance: Option<&'a str>,
    pub interruptions: &'a InterruptionSetting,
}

pub(crate) fn rollouts(apps_dirs: &[PathBuf], suite_dirs: &[PathBuf], args: &Rollouts<'_>, as_json: bool) -> Result<ExitCode> {
    let Rollouts { suite: name, seeds, out_dir, detours, image_format, image_size, appearance, interruptions } = *args;
    if let Some(look) = appearance {
        phoneworld_phone::Appearance::resolve(look, 0).with_context(|| format!("--appearance {look}"))?;
    }
    if !(0.0..=1.0).contains(&detours) {
        bail!("--detours {detours}: a probability between 0 and 1");
    }
    let Some(format) = phoneworld_agents::ImageFormat::parse(image_format) else {
        bail!("--image-format {image_format}: expected jpeg or png")
    };
    let size = match image_size {
        None => None,
        Some(text) => {
            let (w, h) = text.split_once(['x', 'X']).with_context(|| format!("--image-size `{text}`: expected WIDTHxHEIGHT"))?;
            Some((w.trim().parse().context("--image-size width")?, h.trim().parse().context("--image-size height")?))
        }
    };
    let (catalog, suite) = load_suite(apps_dirs, suite_dirs, name)?;
    let options = phoneworld_agents::ImageOptions { format, size, xml: true };
    let spec = phoneworld_tasks::RolloutSpec {
        seeds,
        detours,
        images: options,
        appearance: appearance.map(str::to_owned),
        interruptions: interruptions.clone(),
    };
    let mut progress = Progress::new(episodes(&suite, seeds), "rollouts", as_json);
    let manifest = rollouts_each(catalog, &suite, out_dir, &spec, &mut |o| progress.done(&o.category, o.kept))?;
    drop(progress);
    if as_json {
        out!("{manifest}");
    } else {
        out!(
            "{} of {} episodes kept ({} with detours), {} steps, in {}",
            manifest["episodes"],
            manifest["attempted"],
            manifest["with_detours"],
            manifest["steps"],
            out_dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
